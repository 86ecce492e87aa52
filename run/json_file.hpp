#pragma once
// Reading and writing whole JSON documents (configs, run records, experiment results), with errors
// that name the file. Writes are atomic (run/output/atomic_file.hpp).
#include <cstddef>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/run/fields.hpp>
#include <sgmcmc/run/output/atomic_file.hpp>

namespace sgmcmc::run {

/// How deep a config or record may nest: far more than any real one, and shallow enough that the JSON
/// library's recursive printing and destruction cannot overflow the stack (a 100,000-deep `[[[…]]]`
/// used to crash the error path).
inline constexpr int max_json_depth = 256;

/// The JSON library's message in words: without its "[json.exception.…]" tag, and without the input it
/// quotes ("last read: '…'"), which may be a secret from a file given by mistake; at most 100 characters,
/// control characters escaped. The position (line, column) stays.
inline std::string json_error_words(const nlohmann::json::exception& e) {
  std::string_view m = e.what();
  if (m.starts_with("[json.exception.")) {
    const auto close = m.find("] ");
    if (close != std::string_view::npos) m.remove_prefix(close + 2);
  }
  if (const auto quote = m.find("; last read: "); quote != std::string_view::npos) m = m.substr(0, quote);
  if (m.starts_with("number overflow parsing")) return "a number too large for a double (at most about 1.8e308)";
  return printable(m);
}

/// JSON text parsed with the depth limit above; errors are prefixed with `source` (a file's path, or
/// what the text is: the Python module's "config" and "record").
inline nlohmann::json parse_json_text(const std::string& text, const std::string& source) {
  try {
    return nlohmann::json::parse(text, [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
      if (depth > max_json_depth)
        throw Error(fmt::format("{}: nested deeper than {} levels; not a config or run record", source, max_json_depth));
      return true;
    });
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(fmt::format("{}: not valid JSON: {}", source, json_error_words(e)));
  } catch (const nlohmann::json::out_of_range& e) {  // 406: a number beyond a double (1e400)
    throw Error(fmt::format("{}: not valid JSON here: {}", source, json_error_words(e)));
  }
}

/// The most a config file may hold: far beyond any config (the largest shipped is a few KB; a matrix
/// field of a 1000-dimensional target is about 20 MB), far below the memory that `sgmcmc run /dev/zero`
/// or a runaway pipe would take before the parser saw a byte.
inline constexpr std::size_t max_config_bytes = std::size_t{256} << 20;

/// A config file, parsed (with the depth limit above). A pipe is read (`sgmcmc run <(make_config)`),
/// up to max_config_bytes like anything else.
inline nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open the file for reading", path));
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_config_bytes)
      throw Error(fmt::format("{}: larger than {} MB: not a config (a device or a runaway pipe?)", path, max_config_bytes >> 20));
  }
  return parse_json_text(text, path);
}

/// Writes `j` (indented by `indent` spaces; -1: one line) to `path`, creating its folder if needed; the
/// file appears whole or not at all (run/output/atomic_file.hpp).
inline void write_json_file(const nlohmann::json& j, const std::string& path, int indent = -1) {
  AtomicFile file(path);
  file.write(j.dump(indent));
  file.write("\n");
  file.commit();
}

}  // namespace sgmcmc::run
