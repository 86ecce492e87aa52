#pragma once
// The one exception type of the library: invalid arguments, bad configuration, malformed run records
// and non-finite states all throw sgmcmc::Error with a message that names the offending field or value.
#include <stdexcept>
#include <string>

namespace sgmcmc {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws Error(message) unless `ok`; keeps argument checks to one line at the call site.
inline void require(bool ok, const std::string& message) {
  if (!ok) throw Error(message);
}

}  // namespace sgmcmc
