#pragma once
// Reading text data files: the whole file at once (no per-line allocation), and numeric CSV parsing
// with a clear error naming the file, line and column. No zlib here: gzip.hpp adds compressed input.
#include <algorithm>
#include <cmath>
#include <charconv>
#include <cstring>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::data {

inline std::string read_file(const std::filesystem::path& path, const std::string& what, const std::string& hint = "") {
  require_file(path, what, hint);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open the {} file for reading", shown(path), what));
  // A regular file is read in one piece into a string of its size: through a stringstream it was
  // copied twice more and grown by doubling, a third of the CSV's load time (docs/benchmarks.md,
  // "Reading data"). A pipe or device has no size: streamed.
  std::error_code ec;
  const bool regular = std::filesystem::is_regular_file(path, ec);
  const auto size = regular ? std::filesystem::file_size(path, ec) : 0;
  if (regular && !ec) {
    std::string bytes(static_cast<std::size_t>(size), '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(size));
    bytes.resize(static_cast<std::size_t>(in.gcount()));
    if (in.gcount() == static_cast<std::streamsize>(size) && in.peek() == std::char_traits<char>::eof()) return bytes;
    std::ostringstream rest;  // the file grew while it was read: take the rest as well
    rest << in.rdbuf();
    return bytes + std::move(rest).str();
  }
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
  if (!in) throw Error(fmt::format("{}: cannot open the {} file for reading", shown(path), what));
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
/// A field without the spaces, tabs and quotes around it (and a '\r' a line ending left).
inline std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '"')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '"')) s.remove_suffix(1);
  return s;
}

inline bool parse_double(std::string_view s, double& out) {
  s = trimmed(s);
  if (s.empty()) return false;
  if (s.front() == '+') s.remove_prefix(1);
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

/// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
inline bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n;
    std::uint32_t cp;
    if (c < 0x80) n = 1, cp = c;
    else if (c >= 0xc2 && c < 0xe0) n = 2, cp = c & 0x1fu;
    else if (c >= 0xe0 && c < 0xf0) n = 3, cp = c & 0x0fu;
    else if (c >= 0xf0 && c < 0xf5) n = 4, cp = c & 0x07u;
    else return false;
    if (i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xc0u) != 0x80u) return false;
      cp = cp << 6 | (d & 0x3fu);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff))) return false;
    i += n;
  }
  return true;
}

/// The header rule, part 1: whether a field of a first line that is not a number is a plausible column
/// name — trimmed as numbers are, at most 256 bytes of UTF-8 text without control characters, and not
/// starting like a number (a digit, or '+', '-' or '.' then a digit: "1e400" or "1.2.3" is a malformed
/// number, not a name). Empty is allowed (an index column's blank name), but not every field empty.
inline bool header_name(std::string_view f) {
  f = trimmed(f);
  if (f.size() > 256 || !valid_utf8(f)) return false;
  for (char ch : f)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) return false;
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!f.empty() && digit(f[0])) return false;
  if (f.size() > 1 && (f[0] == '+' || f[0] == '-' || f[0] == '.') && digit(f[1])) return false;
  return true;
}

/// A CSV text walked line by line — the line (its '\r' dropped), its number, its fields — with the
/// rules and errors every reader here shares.
struct CsvLines {
  std::string_view text;
  const std::string& name;
  char sep = ',';
  std::size_t pos = 0, line_no = 0;
  std::string_view line{};
  std::vector<std::string_view> fields{};

  /// The next line; false at the end of the text.
  bool next() {
    if (pos >= text.size()) return false;
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return true;
  }
  /// Blank lines (spaces and tabs only) are skipped by every reader.
  bool blank() const { return line.find_first_not_of(" \t") == std::string_view::npos; }
  /// The line's fields, split at `sep`.
  void split() {
    fields.clear();
    for (std::size_t a = 0;;) {
      const std::size_t b = line.find(sep, a);
      fields.push_back(line.substr(a, b == std::string_view::npos ? std::string_view::npos : b - a));
      if (b == std::string_view::npos) break;
      a = b + 1;
    }
  }
  /// Room for the rows after this line and this one: a row a line, and never more than the text could
  /// hold (a value takes a digit and a separator), so a wide first line over many blank ones asks for
  /// no more than the file's size. One allocation for the whole table (grown by doubling, its values
  /// were copied about twice and twice the memory touched).
  std::size_t max_rows(std::size_t cols) const {
    const auto lines = static_cast<std::size_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(std::min(pos, text.size())), text.end(), '\n')) + 2;
    return std::min(lines, (text.size() / 2) / cols + 1);
  }
  [[noreturn]] void width_error(std::size_t cols) const {
    throw Error(fmt::format("{}:{}: expected {} comma-separated values (as on the first row), got {}", name, line_no, cols, fields.size()));
  }
  /// The field itself is not echoed: a data path pointed at the wrong file (an .env, a key file) must
  /// not print its contents. Line and column say where to look.
  [[noreturn]] void number_error(std::size_t c) const {
    throw Error(fmt::format("{}:{}: column {}: expected a number (a field of {} characters is not one)", name, line_no, c + 1, fields[c].size()));
  }
  /// The same in a file with a header row: the data row too (1 = the first after the header) and the
  /// column's name when it looks like one (letters, digits, '_', '.', at most 60 characters): a header
  /// cell such as API_KEY=… from a wrong file is not echoed either.
  [[noreturn]] void number_error(std::size_t c, const std::vector<std::string>& header, std::size_t data_row) const {
    const std::string_view h = c < header.size() ? trimmed(header[c]) : std::string_view();
    const bool plain = !h.empty() && h.size() <= 60 && std::all_of(h.begin(), h.end(), [](char ch) {
      return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '.';
    });
    throw Error(fmt::format("{}:{}: column {}: expected a number (a field of {} characters is not one; data row {}{})", name, line_no, c + 1,
                            fields[c].size(), data_row, plain ? fmt::format(", column \"{}\"", h) : std::string()));
  }
  /// The header rule, part 2: a first line with a field that is not a number is a header only when no
  /// field is a number and every field is a name (header_name), one at least not empty; a header is
  /// returned as true. Otherwise the line is a malformed row: an error naming its first field that is
  /// neither (a BOM, 1e400, a typo or a NUL in one field of a first row of numbers was taken for a
  /// header and the row dropped silently; the same on row 2 was an error).
  bool header_or_error() const {
    double v;
    if (std::any_of(fields.begin(), fields.end(), [&](std::string_view f) { return parse_double(f, v); }))
      for (std::size_t k = 0; k < fields.size(); ++k)  // a row of numbers with a malformed one
        if (!parse_double(fields[k], v)) number_error(k);
    bool named = false;
    for (std::size_t c = 0; c < fields.size(); ++c) {
      if (!header_name(fields[c]))
        throw Error(fmt::format("{}:{}: column {}: expected a number, or a column name on a header line (a field of {} characters is "
                                "neither: names are printable UTF-8 of at most 256 bytes, not starting like a number)",
                                name, line_no, c + 1, fields[c].size()));
      named = named || !trimmed(fields[c]).empty();
    }
    if (!named) number_error(0);
    return true;
  }
};

/// A UTF-8 byte-order mark, which some spreadsheets write at the start of a CSV: skipped there.
inline constexpr std::string_view utf8_bom = "\xEF\xBB\xBF";
}  // namespace detail

/// Parses comma-separated numbers, one row a line, every row the same width. The first non-blank line
/// may be a header (when `header_allowed`: a part of a file after its first line has none) by the header
/// rule (CsvLines::header_or_error): no field a number, every field a plausible name; a first line with
/// some numbers and a field that is not one is an error, as on any other line. A UTF-8 byte-order mark
/// at the start is skipped. Blank lines are skipped. `name` labels errors (the caller's printable name
/// for the text, data::shown(path) for a file); no field's contents are echoed.
inline Table parse_csv(std::string_view text, const std::string& name, char sep = ',', bool header_allowed = true) {
  Table t;
  if (header_allowed && text.starts_with(detail::utf8_bom)) text.remove_prefix(detail::utf8_bom.size());
  detail::CsvLines in{text, name, sep, 0, 0};
  while (in.next()) {
    if (in.blank()) continue;
    in.split();
    if (t.cols == 0) t.cols = in.fields.size(), t.values.reserve(in.max_rows(t.cols) * t.cols);
    if (in.fields.size() != t.cols) in.width_error(t.cols);
    const std::size_t start = t.values.size();
    bool numeric = true;
    for (std::size_t c = 0; c < in.fields.size(); ++c) {
      double v;
      if (!detail::parse_double(in.fields[c], v)) {
        if (header_allowed && t.rows == 0 && t.header.empty() && start == 0 && in.header_or_error()) {  // the first line may be a header
          numeric = false;
          break;
        }
        if (!t.header.empty()) in.number_error(c, t.header, t.rows + 1);
        in.number_error(c);
      }
      t.values.push_back(v);
    }
    if (!numeric) {
      t.values.resize(start);
      for (auto f : in.fields) t.header.emplace_back(f);
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

/// The column names on a CSV file's header line (trimmed, as the loaders trim fields), or none when its
/// first non-blank line is a row of numbers: the header rule the loaders apply (CsvLines::header_or_error),
/// for a target that names its parameters after the columns (run/targets/coefficient_names.hpp).
inline std::vector<std::string> csv_header(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    std::string_view text = line;
    if (first && text.starts_with(detail::utf8_bom)) text.remove_prefix(detail::utf8_bom.size());
    first = false;
    const std::string name = shown(path);
    detail::CsvLines lines{text, name, ',', 0, 0};
    if (!lines.next() || lines.blank()) continue;
    lines.split();
    double v;
    const bool numbers = std::all_of(lines.fields.begin(), lines.fields.end(), [&](std::string_view f) { return detail::parse_double(f, v); });
    if (numbers || !lines.header_or_error()) return {};
    std::vector<std::string> names;
    for (std::string_view f : lines.fields) names.emplace_back(detail::trimmed(f));
    return names;
  }
  return {};
}

namespace detail {
/// A line of exactly `cols` plain numbers separated by single commas (no spaces, quotes or '+'), as CSV
/// writers emit them: the first cols − 1 into `features`, the last into `label`, one from_chars a
/// field and no split. False on anything else (nothing is decided: the general path takes the line,
/// with its trimming, header and errors), so both paths accept the same values.
inline bool parse_plain_row(std::string_view line, std::size_t cols, double* features, double& label) {
  const char* p = line.data();
  const char* const end = p + line.size();
  for (std::size_t c = 0; c + 1 < cols; ++c) {
    const auto r = std::from_chars(p, end, features[c]);
    if (r.ec != std::errc() || r.ptr == end || *r.ptr != ',') return false;
    p = r.ptr + 1;
  }
  const auto r = std::from_chars(p, end, label);
  return r.ec == std::errc() && r.ptr == end;
}

// Features in every column but the last, an integer label in the last; `label_ok` says which labels
// the target accepts and `expected` names them in the error. Rows are parsed straight into the data
// set's layout (an example's features are one column of x, contiguous as on its line), and a file is
// read a few megabytes at a time: neither the whole text nor a table of all its values is held (they
// took 2.5x the data's memory and most of the load time: docs/benchmarks.md, "Reading data").
// Accepts what parse_csv accepts, with its errors in the same order: a malformed row first, then no
// rows, then the width, then a label (in row order), then a non-finite feature.
template <class LabelOk>
class LabelledRows {
 public:
  /// `bytes`: the size of all the text to come (the room for rows is sized from it and the first line).
  LabelledRows(std::string name, bool header_allowed, LabelOk label_ok, const char* expected, std::size_t bytes)
      : name_(std::move(name)), header_allowed_(header_allowed), label_ok_(label_ok), expected_(expected), bytes_(bytes) {}

  /// Parses whole lines (a last line without its newline only at the end of the text).
  void add(std::string_view text) {
    if (header_allowed_ && line_no_ == 0 && text.starts_with(utf8_bom)) text.remove_prefix(utf8_bom.size());
    CsvLines in{text, name_, ',', 0, line_no_};
    while (in.next()) {
      if (cols_ > 0) {  // the fast path: a row as writers emit it, numbers and single commas
        make_room();
        double label;
        if (parse_plain_row(in.line, cols_, d_.x.col(rows_).data(), label)) {
          labels_.push_back(label);
          ++rows_;
          continue;
        }
      }
      if (in.blank()) continue;
      in.split();
      if (cols_ == 0) first_line(in);
      if (in.fields.size() != cols_) in.width_error(cols_);
      make_room();
      double* features = d_.x.col(rows_).data();
      double label = 0;
      bool numeric = true;
      for (std::size_t c = 0; c < cols_; ++c) {
        double v;
        if (!parse_double(in.fields[c], v)) {
          if (header_allowed_ && rows_ == 0 && !header_ && in.header_or_error()) {  // the first line may be a header
            numeric = false;
            break;
          }
          in.number_error(c);
        }
        if (c + 1 < cols_) features[c] = v;
        else label = v;
      }
      if (!numeric) {
        header_ = true;
        continue;
      }
      labels_.push_back(label);
      ++rows_;
    }
    line_no_ = in.line_no;
  }

  Dataset<double> finish(const std::filesystem::path& path) && {
    if (rows_ == 0) throw Error(fmt::format("{}: no data rows", name_));
    if (cols_ < 2) throw Error(fmt::format("{}: expected at least one feature column and a label column, got {} column(s)", name_, cols_));
    if (rows_ < d_.x.cols()) d_.x.conservativeResize(Eigen::NoChange, rows_);
    d_.y.resize(rows_);
    for (Eigen::Index i = 0; i < rows_; ++i) {
      const double l = labels_[static_cast<std::size_t>(i)];
      if (!label_ok_(l))
        throw Error(fmt::format("{}: row {}: expected {} in the last column", name_, i + 1 + (header_ ? 1 : 0), expected_));
      d_.y[i] = static_cast<int>(l);
    }
    d_.source = path.string();
    d_.validate();
    return std::move(d_);
  }

 private:
  // Room for the rows the text holds if its lines are as long as the first, a little over; more when
  // they are not. Never more than the text could hold (a value takes a digit and a separator), so a
  // wide first line asks for no more than the file's size.
  void first_line(const CsvLines& in) {
    cols_ = in.fields.size();
    const std::size_t most = (bytes_ / 2) / cols_ + 1;
    const std::size_t guess = bytes_ / (in.line.size() + 1) + bytes_ / (in.line.size() + 1) / 8 + 16;
    d_.x.resize(static_cast<Eigen::Index>(cols_) - 1, static_cast<Eigen::Index>(std::min(guess, most)));
    advise_huge_pages(d_.x);  // a minibatch step gathers random columns: fewer TLB misses on 2 MB pages
    labels_.reserve(static_cast<std::size_t>(d_.x.cols()));
  }
  // Grows by half: the storage is reallocated in place (mremap) for a large set, not copied.
  void make_room() {
    if (rows_ < d_.x.cols()) return;
    d_.x.conservativeResize(Eigen::NoChange, d_.x.cols() + d_.x.cols() / 2 + 16);
    advise_huge_pages(d_.x);
  }

  Dataset<double> d_;
  std::vector<double> labels_;
  std::string name_;
  bool header_allowed_;
  LabelOk label_ok_;
  const char* expected_;
  std::size_t bytes_, cols_ = 0, line_no_ = 0;
  Eigen::Index rows_ = 0;
  bool header_ = false;
};

template <class LabelOk>
Dataset<double> parse_features_and_label(std::string_view text, const std::filesystem::path& path, const std::string& name,
                                         bool header_allowed, LabelOk label_ok, const char* expected) {
  LabelledRows<LabelOk> rows(name, header_allowed, label_ok, expected, text.size());
  rows.add(text);
  return std::move(rows).finish(path);
}

/// A labelled CSV file read in chunks of 4 MB (a line longer than that grows the chunk), each chunk's
/// whole lines parsed before the next is read. `chunk_bytes` is for the fuzzer (tests/fuzz/targets_data.hpp),
/// whose small inputs reach chunk boundaries only with small chunks.
template <class LabelOk>
Dataset<double> load_features_and_label(const std::filesystem::path& path, LabelOk label_ok, const char* expected,
                                        std::size_t chunk_bytes = std::size_t{4} << 20) {
  require_file(path, "CSV data");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open the CSV data file for reading", shown(path)));
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  LabelledRows<LabelOk> rows(shown(path), true, label_ok, expected, ec ? std::size_t{1} << 20 : static_cast<std::size_t>(size));
  // A file smaller than a chunk needs no more room than its size (and a byte to see its end).
  std::string chunk(std::max<std::size_t>(ec ? chunk_bytes : std::min<std::size_t>(chunk_bytes, static_cast<std::size_t>(size) + 1), 1), '\0');
  std::size_t kept = 0;  // the start of a line carried over from the chunk before
  for (;;) {
    if (kept == chunk.size()) chunk.resize(2 * chunk.size());  // one line fills the chunk
    in.read(chunk.data() + kept, static_cast<std::streamsize>(chunk.size() - kept));
    const std::size_t end = kept + static_cast<std::size_t>(in.gcount());
    if (end == kept) break;  // the end of the file
    const std::size_t last = std::string_view(chunk.data(), end).rfind('\n');
    if (last == std::string_view::npos) {
      kept = end;
      continue;
    }
    rows.add(std::string_view(chunk.data(), last + 1));
    kept = end - (last + 1);
    std::memmove(chunk.data(), chunk.data() + last + 1, kept);
  }
  if (in.bad()) throw Error(fmt::format("{}: reading the CSV data file failed", shown(path)));
  if (kept > 0) rows.add(std::string_view(chunk.data(), kept));  // a last line without its newline
  return std::move(rows).finish(path);
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
  const std::string name = fmt::format("{} (part {} of {}, from byte {})", shown(path), part + 1, parts, p.begin);
  if (p.text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw Error(fmt::format("{}: no data rows: the file has fewer lines than shards", name));
  return detail::parse_features_and_label(p.text, path, name, p.begin == 0, detail::is_binary_label, "a 0/1 label");
}

/// The bnn target's CSV (docs/config.md): one example a row, the features then a class label
/// 0, 1, ..., K−1 (an integer) in the last column, a header row allowed.
inline Dataset<double> load_class_csv(const std::filesystem::path& path) {
  return detail::load_features_and_label(
      path, [](double l) { return l >= 0 && l < 1e6 && l == std::floor(l); }, "a class label 0, 1, 2, ...");
}

}  // namespace sgmcmc::data
