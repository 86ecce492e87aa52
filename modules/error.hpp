#pragma once
// The one exception type of the library: invalid arguments, bad configuration, malformed run records
// and non-finite states all throw sgmcmc::Error with a message that names the offending field or value.
//
// A check costs a comparison until it fails: `require` takes a format string and its arguments and
// formats only when it throws (an SGLD step that built its message first spent most of its time on
// it). Arguments are still evaluated at the call; where one is costly to compute (a point printed as
// text), write `if (!ok) fail(...)` so nothing runs on success.
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace sgmcmc {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Throws Error with the formatted message. Cold and out of line: a failing path never inflates the
/// step that calls it.
template <class... Args>
[[noreturn, gnu::cold, gnu::noinline]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

/// Throws Error(message) unless `ok`; a message without arguments is never formatted.
inline void require(bool ok, const char* message) {
  if (!ok) [[unlikely]] fail("{}", message);
}

/// Throws Error(fmt::format(format, args...)) unless `ok`; formats only when it throws.
template <class... Args>
  requires(sizeof...(Args) > 0)
inline void require(bool ok, fmt::format_string<Args...> format, Args&&... args) {
  if (!ok) [[unlikely]] fail(format, std::forward<Args>(args)...);
}

}  // namespace sgmcmc
