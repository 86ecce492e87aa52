#pragma once
// Reading JSON objects field by field with errors that name the JSON path (RFC 6901) and the problem:
//   "/sampler/friction: expected a positive number, got -1"
// `finish()` rejects fields nobody asked for, so a typo ("frction") is an error, not a silent default.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/printable.hpp>

namespace sgmcmc::run {

using json = nlohmann::json;

inline std::string describe(const json& j) {
  std::string s = j.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

using sgmcmc::printable;  // modules/printable.hpp: the data readers echo paths through it too

/// Throws the error for the field at JSON pointer `path`. The path may hold keys from the input: it is
/// echoed as any input string is (cut to 200 characters, control characters as \xNN).
[[noreturn]] inline void fail(const std::string& path, const std::string& what) {
  throw Error(fmt::format("{}: {}", path.empty() ? "/" : printable(path, 200), what));
}

enum class Range { any, positive, non_negative, unit_open };  // unit_open: (0, 1)

inline bool in_range(double v, Range r) {
  switch (r) {
    case Range::any: return std::isfinite(v);
    case Range::positive: return std::isfinite(v) && v > 0;
    case Range::non_negative: return std::isfinite(v) && v >= 0;
    case Range::unit_open: return std::isfinite(v) && v > 0 && v < 1;
  }
  return false;
}
inline const char* range_words(Range r) {
  switch (r) {
    case Range::any: return "a finite number";
    case Range::positive: return "a positive number";
    case Range::non_negative: return "a number >= 0";
    case Range::unit_open: return "a number in (0, 1)";
  }
  return "";
}

inline double as_number(const json& j, const std::string& path, Range r = Range::any) {
  if (!j.is_number() || !in_range(j.get<double>(), r)) fail(path, fmt::format("expected {}, got {}", range_words(r), describe(j)));
  return j.get<double>();
}

inline std::uint64_t as_count(const json& j, const std::string& path, std::uint64_t minimum) {
  const bool ok = (j.is_number_unsigned() || (j.is_number_integer() && j.get<std::int64_t>() >= 0)) &&
                  j.get<std::uint64_t>() >= minimum;
  if (!ok) fail(path, fmt::format("expected an integer >= {}, got {}", minimum, describe(j)));
  return j.get<std::uint64_t>();
}

inline Eigen::VectorXd as_vector(const json& j, const std::string& path, Eigen::Index expected = -1) {
  if (!j.is_array()) fail(path, fmt::format("expected an array of numbers, got {}", describe(j)));
  if (expected >= 0 && static_cast<Eigen::Index>(j.size()) != expected)
    fail(path, fmt::format("expected {} numbers, got {}", expected, j.size()));
  Eigen::VectorXd v(static_cast<Eigen::Index>(j.size()));
  for (std::size_t i = 0; i < j.size(); ++i) v[static_cast<Eigen::Index>(i)] = as_number(j[i], fmt::format("{}/{}", path, i));
  return v;
}

/// A matrix given as a list of rows.
inline Eigen::MatrixXd as_matrix(const json& j, const std::string& path) {
  if (!j.is_array() || j.empty() || !j[0].is_array())
    fail(path, fmt::format("expected a matrix as a non-empty list of rows, got {}", describe(j)));
  const auto rows = static_cast<Eigen::Index>(j.size()), cols = static_cast<Eigen::Index>(j[0].size());
  Eigen::MatrixXd m(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r) m.row(r) = as_vector(j[static_cast<std::size_t>(r)], fmt::format("{}/{}", path, r), cols).transpose();
  return m;
}

inline json vector_json(const Eigen::VectorXd& v) { return json(std::vector<double>(v.data(), v.data() + v.size())); }

/// A JSON object read field by field.
class Fields {
 public:
  Fields(const json& j, std::string path) : j_(j), path_(std::move(path)) {
    if (!j_.is_object()) fail(path_, fmt::format("expected an object, got {}", describe(j_)));
  }
  const std::string& path() const { return path_; }
  /// The JSON pointer of `key` here (RFC 6901: `~` as `~0`, `/` as `~1`, so a key with a slash is one
  /// step, not two). `fail` makes it printable.
  std::string at(const std::string& key) const {
    std::string p = path_ + "/";
    for (const char ch : key) p += ch == '~' ? std::string("~0") : ch == '/' ? std::string("~1") : std::string(1, ch);
    return p;
  }
  bool has(const std::string& key) { seen_.insert(key); return j_.contains(key); }
  const json& get(const std::string& key) {
    seen_.insert(key);
    if (!j_.contains(key)) fail(at(key), "required field is missing");
    return j_.at(key);
  }
  const json* find(const std::string& key) {
    seen_.insert(key);
    return j_.contains(key) ? &j_.at(key) : nullptr;
  }
  double number(const std::string& key, Range r = Range::any) { return as_number(get(key), at(key), r); }
  double number(const std::string& key, double fallback, Range r = Range::any) {
    const json* v = find(key);
    return v ? as_number(*v, at(key), r) : fallback;
  }
  std::uint64_t count(const std::string& key, std::uint64_t fallback, std::uint64_t minimum = 0) {
    const json* v = find(key);
    return v ? as_count(*v, at(key), minimum) : fallback;
  }
  bool boolean(const std::string& key, bool fallback) {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(at(key), fmt::format("expected true or false, got {}", describe(*v)));
    return v->get<bool>();
  }
  std::string string(const std::string& key) {
    const json& v = get(key);
    if (!v.is_string()) fail(at(key), fmt::format("expected a string, got {}", describe(v)));
    return v.get<std::string>();
  }
  std::string string(const std::string& key, const std::string& fallback) {
    return has(key) ? string(key) : fallback;
  }
  /// Every field present must have been asked for.
  void finish() const {
    for (const auto& [key, value] : j_.items()) {
      if (!seen_.count(key)) {
        std::string known;
        for (const auto& k : seen_) known += (known.empty() ? "" : ", ") + k;
        fail(at(key), fmt::format("unknown field (known here: {})", known));
      }
    }
  }

 private:
  const json& j_;
  std::string path_;
  std::set<std::string> seen_;
};

}  // namespace sgmcmc::run
