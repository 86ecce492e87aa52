#pragma once
// Echoing a string from the input (a config's key or value, a data path) in a message: cut short and
// with control characters escaped, so a path or field cannot flood the terminal or move its cursor.
// A base module: the data readers (layer 2) and the run layer share it.
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace sgmcmc {

/// A string from the input, safe to echo in a message: at most `max` characters (then "..."), control
/// characters (terminal escapes included) written as \xNN.
inline std::string printable(std::string_view s, std::size_t max = 100) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (out.size() >= max) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
    else out += static_cast<char>(c);
  }
  return out;
}

}  // namespace sgmcmc
