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

/// Part `part` of `parts` of a text file: the lines whose first byte lies in [F·part/parts,
/// F·(part+1)/parts), F the file's size — read from disk alone (a seek, the range, and the rest of its
/// last line), so `parts` processes each read about 1/parts of the file and every line is read by
/// exactly one of them. `begin` is the offset of the part's first line.
struct TextPart {
  std::string text;
  std::uint64_t begin = 0, end = 0;
};

inline TextPart read_file_part(const std::filesystem::path& path, const std::string& what, std::uint64_t part, std::uint64_t parts) {
  require_file(path, what);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open the {} file for reading", path.string(), what));
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::uint64_t>(in.tellg());
  std::uint64_t begin = part_start(size, part, parts);
  const std::uint64_t end = part_start(size, part + 1, parts);
  const auto read_at = [&](std::uint64_t at, std::size_t n) {
    std::string bytes(n, '\0');
    in.clear();
    in.seekg(static_cast<std::streamoff>(at));
    in.read(bytes.data(), static_cast<std::streamsize>(n));
    bytes.resize(static_cast<std::size_t>(in.gcount()));
    return bytes;
  };
  constexpr std::size_t chunk = 1 << 16;
  // A line that started before the part belongs to the part before: skip to the byte after its end.
  if (begin > 0 && read_at(begin - 1, 1) != "\n") {
    for (;;) {
      const std::string bytes = read_at(begin, chunk);
      const auto nl = bytes.find('\n');
      if (nl != std::string::npos) {
        begin += nl + 1;
        break;
      }
      begin += bytes.size();
      if (bytes.size() < chunk) break;
    }
  }
  TextPart p;
  p.begin = begin;
  if (begin >= end) {
    p.end = begin;
    return p;
  }
  p.text = read_at(begin, static_cast<std::size_t>(end - begin));
  // The part's last line runs on past `end` to its newline.
  while (!p.text.empty() && p.text.back() != '\n' && begin + p.text.size() < size) {
    const std::string bytes = read_at(begin + p.text.size(), chunk);
    const auto nl = bytes.find('\n');
    p.text += nl == std::string::npos ? bytes : bytes.substr(0, nl + 1);
    if (nl != std::string::npos || bytes.empty()) break;
  }
  p.end = begin + p.text.size();
  return p;
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
/// all numbers is a header (when `header_allowed`: a part of a file after its first line has none).
/// Blank lines are skipped. `name` labels errors (usually the path).
inline Table parse_csv(std::string_view text, const std::string& name, char sep = ',', bool header_allowed = true) {
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
        if (header_allowed && t.rows == 0 && t.header.empty() && start == 0) {  // the first line may be a header
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
Dataset<double> features_and_label(const Table& t, const std::filesystem::path& path, const std::string& name, LabelOk label_ok,
                                   const char* expected) {
  if (t.cols < 2) throw Error(fmt::format("{}: expected at least one feature column and a label column, got {} column(s)", name, t.cols));
  Dataset<double> d;
  const auto n = static_cast<Eigen::Index>(t.rows), dim = static_cast<Eigen::Index>(t.cols - 1);
  d.x.resize(dim, n);
  d.y.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index k = 0; k < dim; ++k) d.x(k, i) = t(static_cast<std::size_t>(i), static_cast<std::size_t>(k));
    const double label = t(static_cast<std::size_t>(i), t.cols - 1);
    if (!label_ok(label))
      throw Error(fmt::format("{}: row {}: expected {} in the last column, got {}", name,
                              i + 1 + (t.header.empty() ? 0 : 1), expected, label));
    d.y[i] = static_cast<int>(label);
  }
  d.source = path.string();
  d.validate();
  return d;
}

template <class LabelOk>
Dataset<double> load_features_and_label(const std::filesystem::path& path, LabelOk label_ok, const char* expected) {
  return features_and_label(parse_csv(read_file(path, "CSV data"), path.string()), path, path.string(), label_ok, expected);
}

inline bool is_binary_label(double l) { return l == 0.0 || l == 1.0; }
}  // namespace detail

/// The logistic target's CSV (docs/config.md, `target`): one example a row, the features then a 0/1 label
/// in the last column, a header row allowed.
inline Dataset<double> load_labelled_csv(const std::filesystem::path& path) {
  return detail::load_features_and_label(path, detail::is_binary_label, "a 0/1 label");
}

/// Part `part` of `parts` of the logistic target's CSV (read_file_part: the lines that start in its
/// byte range, the header allowed only in part 0). Errors name the file, the part's byte offset and the
/// row within the part. A part with no rows is an error (a file of fewer lines than parts).
inline Dataset<double> load_labelled_csv_part(const std::filesystem::path& path, std::uint64_t part, std::uint64_t parts) {
  const TextPart p = read_file_part(path, "CSV data", part, parts);
  const std::string name = fmt::format("{} (part {} of {}, from byte {})", path.string(), part + 1, parts, p.begin);
  if (p.text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw Error(fmt::format("{}: no data rows: the file has fewer lines than shards", name));
  return detail::features_and_label(parse_csv(p.text, name, ',', p.begin == 0), path, name, detail::is_binary_label, "a 0/1 label");
}

/// The bnn target's CSV (docs/config.md): one example a row, the features then a class label
/// 0, 1, ..., K−1 (an integer) in the last column, a header row allowed.
inline Dataset<double> load_class_csv(const std::filesystem::path& path) {
  return detail::load_features_and_label(
      path, [](double l) { return l >= 0 && l < 1e6 && l == std::floor(l); }, "a class label 0, 1, 2, ...");
}

}  // namespace sgmcmc::data
