#pragma once
// Reading text data files: the whole file at once (no per-line allocation), and numeric CSV parsing
// with a clear error naming the file, line and column. No zlib here: gzip.hpp adds compressed input.
#include <algorithm>
#include <cmath>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/models/data/dataset.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::data {

inline std::string read_file(const std::filesystem::path& path, const std::string& what, const std::string& hint = "") {
  require_file(path, what, hint);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open the {} file for reading", path.string(), what));
  std::ostringstream ss;
  ss << in.rdbuf();
  return std::move(ss).str();
}

/// A numeric table: `cols` values a row, row-major.
struct Table {
  std::size_t rows = 0, cols = 0;
  std::vector<double> values;
  std::vector<std::string> header;  ///< empty when the file had none
  double operator()(std::size_t r, std::size_t c) const { return values[r * cols + c]; }
};

namespace detail {
inline bool parse_double(std::string_view s, double& out) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '"')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '"')) s.remove_suffix(1);
  if (s.empty()) return false;
  if (s.front() == '+') s.remove_prefix(1);
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}
}  // namespace detail

/// Parses comma-separated numbers, one row a line, every row the same width. A first line that is not
/// all numbers is a header. Blank lines are skipped. `name` labels errors (usually the path).
inline Table parse_csv(std::string_view text, const std::string& name, char sep = ',') {
  Table t;
  std::size_t line_no = 0, pos = 0;
  std::vector<std::string_view> fields;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    fields.clear();
    for (std::size_t a = 0;;) {
      const std::size_t b = line.find(sep, a);
      fields.push_back(line.substr(a, b == std::string_view::npos ? std::string_view::npos : b - a));
      if (b == std::string_view::npos) break;
      a = b + 1;
    }
    if (t.cols == 0) t.cols = fields.size();
    if (fields.size() != t.cols)
      throw Error(fmt::format("{}:{}: expected {} comma-separated values (as on the first row), got {}", name, line_no,
                              t.cols, fields.size()));
    const std::size_t start = t.values.size();
    bool numeric = true;
    for (std::size_t c = 0; c < fields.size(); ++c) {
      double v;
      if (!detail::parse_double(fields[c], v)) {
        if (t.rows == 0 && t.header.empty() && start == 0) {  // the first line may be a header
          numeric = false;
          break;
        }
        // The field itself is not echoed: a data path pointed at the wrong file (an .env, a key file)
        // must not print its contents. Line and column say where to look.
        throw Error(fmt::format("{}:{}: column {}: expected a number (a field of {} characters is not one)", name, line_no,
                                c + 1, fields[c].size()));
      }
      t.values.push_back(v);
    }
    if (!numeric) {
      t.values.resize(start);
      for (auto f : fields) t.header.emplace_back(f);
      continue;
    }
    ++t.rows;
  }
  if (t.rows == 0) throw Error(fmt::format("{}: no data rows", name));
  return t;
}

/// The number of comma-separated columns on the first non-blank line of a text file (header or not),
/// or 0 when the file cannot be read: a cheap look at a CSV's width before loading it.
inline std::size_t csv_columns(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos)
      return static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1;
  return 0;
}

namespace detail {
// Features in every column but the last, an integer label in the last; `label_ok` says which labels
// the target accepts and `expected` names them in the error.
template <class LabelOk>
Dataset<double> load_features_and_label(const std::filesystem::path& path, LabelOk label_ok, const char* expected) {
  const Table t = parse_csv(read_file(path, "CSV data"), path.string());
  if (t.cols < 2) throw Error(fmt::format("{}: expected at least one feature column and a label column, got {} column(s)", path.string(), t.cols));
  Dataset<double> d;
  const auto n = static_cast<Eigen::Index>(t.rows), dim = static_cast<Eigen::Index>(t.cols - 1);
  d.x.resize(dim, n);
  d.y.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index k = 0; k < dim; ++k) d.x(k, i) = t(static_cast<std::size_t>(i), static_cast<std::size_t>(k));
    const double label = t(static_cast<std::size_t>(i), t.cols - 1);
    if (!label_ok(label))
      throw Error(fmt::format("{}: row {}: expected {} in the last column, got {}", path.string(),
                              i + 1 + (t.header.empty() ? 0 : 1), expected, label));
    d.y[i] = static_cast<int>(label);
  }
  d.source = path.string();
  d.validate();
  return d;
}
}  // namespace detail

/// The logistic target's CSV (docs/config.md, `target`): one example a row, the features then a 0/1 label
/// in the last column, a header row allowed.
inline Dataset<double> load_labelled_csv(const std::filesystem::path& path) {
  return detail::load_features_and_label(path, [](double l) { return l == 0.0 || l == 1.0; }, "a 0/1 label");
}

/// The bnn target's CSV (docs/config.md): one example a row, the features then a class label
/// 0, 1, ..., K−1 (an integer) in the last column, a header row allowed.
inline Dataset<double> load_class_csv(const std::filesystem::path& path) {
  return detail::load_features_and_label(
      path, [](double l) { return l >= 0 && l < 1e6 && l == std::floor(l); }, "a class label 0, 1, 2, ...");
}

}  // namespace sgmcmc::data
