#pragma once
// The JSON run record (schema "sgmcmc.run", version 2; docs/run-format.md), written as a stream and
// read back as one.
//
// Writing: each chain's draws go to a spool beside the target as they come (an unlinked temporary file
// of raw doubles, so nothing is left behind however the run ends); `finish` writes the record, copying
// each chain's draws from its spool into `samples` and `sample_stats`. Memory does not grow with the
// number of draws kept.
// Reading: `read_record` parses a record of version 1 or 2 keeping everything but the draws, which it
// hands to callbacks row by row; `summary`, `resume` and `convert` read records through it, so a large
// record is never held as a JSON tree.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/run/fields.hpp>
#include <sgmcmc/run/json_file.hpp>
#include <sgmcmc/run/output/atomic_file.hpp>
#include <sgmcmc/run/output/formats.hpp>
#include <sgmcmc/run/output/writer.hpp>

namespace sgmcmc::run::output {

/// A JSON number with the fewest digits that read back to the same double ("1.0" stays a float, as the
/// JSON library writes it); null for NaN and infinities, which JSON cannot hold.
inline void append_json_number(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  const std::size_t start = out.size();
  fmt::format_to(std::back_inserter(out), "{}", v);
  if (out.find_first_of(".eE", start) == std::string::npos) out += ".0";
}

namespace detail {

/// An anonymous scratch file beside the output (created exclusively, unlinked at once): rows of doubles
/// written during the run and read back once at the end.
class Spool {
 public:
  explicit Spool(const std::string& beside) : beside_(beside) {
    fd_ = run::detail::create_unnamed(beside);  // never named: nothing to leave behind, even on SIGKILL
    if (fd_ < 0) {
      const run::detail::HoldSignals hold;  // named, then unlinked: never left behind
      std::string tmp;
      fd_ = run::detail::create_temporary(beside, tmp);
      ::unlink(tmp.c_str());
    }
  }
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;
  ~Spool() {
    if (fd_ >= 0) ::close(fd_);
  }
  void write(const double* v, std::size_t n) {
    buffer_.insert(buffer_.end(), v, v + n);
    if (buffer_.size() >= (1u << 17)) flush();
  }
  /// Calls `row(values)` for each row of `width` doubles written, in order.
  template <class F>
  void replay(std::size_t width, F&& row) {
    flush();
    if (::lseek(fd_, 0, SEEK_SET) != 0) fail("seek");
    std::vector<double> chunk(width * std::max<std::size_t>(1, (1u << 17) / std::max<std::size_t>(1, width)));
    std::size_t have = 0;  // doubles in chunk
    for (;;) {
      const ssize_t n = ::read(fd_, reinterpret_cast<char*>(chunk.data() + have), (chunk.size() - have) * sizeof(double));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail("read");
      if (n % static_cast<ssize_t>(sizeof(double)) != 0) fail("read (partial value)");
      have += static_cast<std::size_t>(n) / sizeof(double);
      const std::size_t rows = width ? have / width : 0;
      for (std::size_t r = 0; r < rows; ++r) row(std::span<const double>(chunk.data() + r * width, width));
      std::copy(chunk.begin() + static_cast<std::ptrdiff_t>(rows * width), chunk.begin() + static_cast<std::ptrdiff_t>(have), chunk.begin());
      have -= rows * width;
      if (n == 0) break;
    }
    if (have != 0) fail("read (partial row)");
  }

 private:
  void flush() {
    const char* p = reinterpret_cast<const char*>(buffer_.data());
    std::size_t left = buffer_.size() * sizeof(double);
    while (left > 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail("write");
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    buffer_.clear();
  }
  [[noreturn]] void fail(const char* what) const {
    throw Error(fmt::format("{}: the draws' scratch file beside it: {} failed: {}", beside_, what, std::strerror(errno)));
  }
  std::string beside_;
  int fd_ = -1;
  std::vector<double> buffer_;
};

}  // namespace detail

/// The JSON run record as a streaming writer.
class JsonRecordWriter final : public Writer {
 public:
  explicit JsonRecordWriter(std::string path) : path_(std::move(path)) {}

  void begin(const RunHeader& header) override {
    header_ = header;
    spools_.clear();
    for (std::size_t c = 0; c < header.chains; ++c) spools_.push_back(std::make_unique<detail::Spool>(path_));
    warmup_.assign(header.chains, 0);
  }
  void append(const DrawBlock& b) override {
    auto& spool = *spools_.at(b.chain);
    warmup_[b.chain] += b.warmup_rows;
    for (std::size_t i = 0; i < b.rows(); ++i) {
      row_.assign(b.row(i).begin(), b.row(i).end());
      for (const Statistic* s : header_.statistics) row_.push_back(s->get(b.stats[i]));
      if (header_.has_lp) row_.push_back(b.lp[i]);
      spool.write(row_.data(), row_.size());
    }
  }
  void finish(const json& record) override {
    prepare(record);
    commit();
  }
  void prepare(const json& record) override {
    pending_.emplace(path_);
    AtomicFile& file = *pending_;
    std::string text;
    const auto flush_if_big = [&] {
      if (text.size() >= (1u << 20)) file.write(std::exchange(text, {}));
    };
    // The draw's named blocks first (docs/run-format.md, "parameters"), from the header: every record
    // written (a run's, resume's, convert's, thin's) names its draws as its writers' other formats do.
    text += "{\"parameters\":" + parameters_json(header_.parameters).dump();
    for (const auto& [key, value] : record.items()) {
      if (key == "parameters") continue;
      text += ',' + json(key).dump() + ':';
      if (key != "chains") {
        text += value.dump();
        continue;
      }
      text += '[';
      for (std::size_t c = 0; c < value.size(); ++c) {
        if (c) text += ',';
        std::string ch = value[c].dump();
        ch.pop_back();  // the closing brace: the draws go in before it
        text += ch;
        // save_warmup: `samples` and `sample_stats` begin with this many warm-up draws (before the
        // draws, so a reader knows them as it reads).
        if (header_.save_warmup && c < warmup_.size()) text += fmt::format(",\"burn_in_draws\":{}", warmup_[c]);
        if (c < spools_.size()) write_draws(c, text, file);
        text += '}';
        flush_if_big();
      }
      text += ']';
    }
    text += "}\n";
    file.write(text);
    file.prepare();
  }
  void commit() override {
    if (!pending_) return;
    pending_->commit();
    pending_.reset();
  }
  /// The record so far, written as finish writes it (the spools are read, not consumed: the draws
  /// that follow are appended to them).
  void checkpoint(const json& record) override { finish(record); }
  std::vector<std::string> files() const override { return {path_}; }

 private:
  std::size_t width() const {
    return static_cast<std::size_t>(header_.dim()) + header_.statistics.size() + (header_.has_lp ? 1 : 0);
  }
  // "sample_stats": {name: [...], ...}, "samples": [[...], ...] — statistics first, so a reader can pair
  // each row with its statistics as it goes. The spool is replayed once per statistic column (cheap)
  // and once for the rows.
  void write_draws(std::size_t c, std::string& text, AtomicFile& file) {
    const std::size_t dim = static_cast<std::size_t>(header_.dim()), w = width();
    auto& spool = *spools_[c];
    text += text.back() == '{' ? "\"sample_stats\":{" : ",\"sample_stats\":{";
    std::vector<std::string> names;
    for (const Statistic* s : header_.statistics) names.emplace_back(s->name);
    if (header_.has_lp) names.push_back("lp");
    for (std::size_t k = 0; k < names.size(); ++k) {
      text += (k ? ",\"" : "\"") + names[k] + "\":[";
      bool first = true;
      spool.replay(w, [&](std::span<const double> row) {
        if (!first) text += ',';
        first = false;
        append_json_number(text, row[dim + k]);
        if (text.size() >= (1u << 20)) file.write(std::exchange(text, {}));
      });
      text += ']';
    }
    text += "},\"samples\":[";
    bool first = true;
    spool.replay(w, [&](std::span<const double> row) {
      text += first ? "[" : ",[";
      first = false;
      for (std::size_t i = 0; i < dim; ++i) {
        if (i) text += ',';
        append_json_number(text, row[i]);
      }
      text += ']';
      if (text.size() >= (1u << 20)) file.write(std::exchange(text, {}));
    });
    text += ']';
  }

  std::string path_;
  RunHeader header_;
  std::vector<std::unique_ptr<detail::Spool>> spools_;
  std::vector<std::uint64_t> warmup_;  ///< per chain: the warm-up draws spooled (they come first)
  std::vector<double> row_;  ///< scratch: one spooled row
  std::optional<AtomicFile> pending_;  ///< the record prepared, until committed
};

/// The format "json": the run record at the -o path itself (the one output `resume` continues).
inline FormatEntry json_record_format() {
  return {{"json"}, "the JSON run record: config, every draw, per-draw statistics, each chain's state (resumable)", "OUT",
          [](const OutputPath& out) { return std::make_unique<JsonRecordWriter>(out.path); },
          [](const OutputPath& out) { return std::vector<std::string>{out.path}; }, ".json"};
}

/// The JSON run record kept in memory (`run::run`'s return value, for programs and tests that look at
/// draws directly): the same document the file writer writes.
class RecordInMemory final : public Writer {
 public:
  void begin(const RunHeader& header) override {
    header_ = header;
    samples_.assign(header.chains, json::array());
    stats_.assign(header.chains, json::object());
    warmup_.assign(header.chains, 0);
    for (auto& st : stats_) {
      for (const Statistic* s : header.statistics) st[std::string(s->name)] = json::array();
      if (header.has_lp) st["lp"] = json::array();
    }
  }
  void append(const DrawBlock& b) override {
    warmup_[b.chain] += b.warmup_rows;
    for (std::size_t i = 0; i < b.rows(); ++i) {
      const auto r = b.row(i);
      samples_[b.chain].push_back(std::vector<double>(r.begin(), r.end()));
      for (const Statistic* s : header_.statistics) stats_[b.chain][std::string(s->name)].push_back(number(s->get(b.stats[i])));
      if (header_.has_lp) stats_[b.chain]["lp"].push_back(number(b.lp[i]));
    }
  }
  void finish(const json& record) override {
    record_ = record;
    record_["parameters"] = parameters_json(header_.parameters);
    for (std::size_t c = 0; c < record_["chains"].size() && c < samples_.size(); ++c) {
      if (header_.save_warmup) record_["chains"][c]["burn_in_draws"] = warmup_[c];
      record_["chains"][c]["sample_stats"] = std::move(stats_[c]);
      record_["chains"][c]["samples"] = std::move(samples_[c]);
    }
  }
  std::vector<std::string> files() const override { return {}; }
  json& record() { return record_; }

 private:
  static json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
  RunHeader header_;
  std::vector<json> samples_, stats_;
  std::vector<std::uint64_t> warmup_;
  json record_;
};

/// What `read_record` hands over for each draw: the chain, the row's coordinates and its statistics by
/// name (empty for a version-1 record, which has none).
struct RecordDraw {
  std::size_t chain;
  std::span<const double> values;
  const std::vector<std::pair<std::string, double>>& stats;
  bool warmup = false;  ///< a warm-up draw (save_warmup: the chain's first `burn_in_draws`)
};

/// Reads a run record file (version 1 or 2) without holding its draws: returns the record with each
/// chain's `samples` and `sample_stats` emptied and `draws` set to the number of draws, and calls
/// `on_draw` for every draw in order (chain by chain). Errors name the file. Without `with_stats` the
/// draws come without their statistics, and nothing is buffered to pair them.
inline json read_record(const std::string& path, const std::function<void(const RecordDraw&)>& on_draw, bool with_stats = true) {
  // A record is read twice (resume checks it whole, then replays its draws): a FIFO would block the
  // second pass for ever (and its open, until a writer came), a device never ends.
  run::detail::require_regular_input(path, "a run record is a file that can be read twice");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open the file for reading", path));
  // The draws sit at fixed depths: {"chains": [ {"samples": [[v, ...], ...], "sample_stats": {name: [v, ...]}} ]}.
  // Keys are tracked per depth; values inside draws are taken and dropped from the tree.
  std::vector<std::string> key_at(8);
  std::size_t chain = 0;
  bool in_chains = false;
  std::vector<double> row;
  // Per chain: statistics columns (they come before the rows in files this library writes; a record
  // with rows first buffers the rows until its statistics are read).
  std::vector<std::pair<std::string, std::vector<double>>> stat_columns;
  std::vector<std::vector<double>> pending_rows;
  std::size_t rows_seen = 0;
  std::vector<std::pair<std::string, double>> row_stats;
  bool have_stats = false;
  std::vector<std::uint64_t> draws_per_chain;
  std::uint64_t warmup = 0;  ///< the chain's `burn_in_draws` (written before its draws)

  const auto emit = [&](std::span<const double> values, std::size_t index) {
    row_stats.clear();
    for (const auto& [name, column] : stat_columns)
      row_stats.emplace_back(name, index < column.size() ? column[index] : std::nan(""));
    on_draw(RecordDraw{chain, values, row_stats, index < warmup});
  };
  const auto end_chain = [&] {
    for (const auto& r : pending_rows) emit(r, rows_seen++);
    pending_rows.clear();
    if (rows_seen < warmup)
      throw Error(fmt::format("{}: /chains/{}/burn_in_draws: says {} warm-up draws, but the chain holds {} draws in all", path, chain,
                              warmup, rows_seen));
    draws_per_chain.push_back(rows_seen - warmup);
    stat_columns.clear();
    rows_seen = 0;
    warmup = 0;
    have_stats = false;
  };

  // A draw's or statistic's value: a number, or null for a non-finite one; anything else is named.
  const auto number = [&](const json& v, const char* field) {
    if (v.is_null()) return std::nan("");
    if (!v.is_number()) throw Error(fmt::format("{}: /chains/{}/{}: expected numbers (or null), got {}", path, chain, field, describe(v)));
    return v.get<double>();
  };

  using E = json::parse_event_t;
  json::parser_callback_t callback = [&](int depth, E event, json& parsed) -> bool {
    // As read_json_file: deeper nesting than any record has would overflow the stack when printed or freed.
    if (depth > 256) throw Error(fmt::format("{}: nested deeper than 256 levels; not a run record", path));
    const auto d = static_cast<std::size_t>(depth);
    if (event == E::key) {
      if (d < key_at.size()) key_at[d] = parsed.get<std::string>();
      if (d == 1) in_chains = parsed == "chains";
      return true;
    }
    if (!in_chains) return true;
    if (event == E::value && d == 3 && key_at[3] == "burn_in_draws") {
      if (!parsed.is_number_unsigned())
        throw Error(fmt::format("{}: /chains/{}/burn_in_draws: expected a count, got {}", path, chain, describe(parsed)));
      warmup = parsed.get<std::uint64_t>();
      // Written before the draws (the writer puts it there, and sorted keys put it before "samples"):
      // after them it would come too late to mark them.
      if (rows_seen + pending_rows.size() > 0)
        throw Error(fmt::format("{}: /chains/{}/burn_in_draws: must come before the chain's samples", path, chain));
      return true;
    }
    const bool samples = d >= 3 && key_at[3] == "samples", stats = d >= 3 && key_at[3] == "sample_stats";
    if (event == E::object_end && d == 2) {  // a chain's object ends
      end_chain();
      ++chain;
      return true;
    }
    if (event == E::object_start && d == 2) key_at[3].clear();
    if (samples) {
      if ((event == E::value || event == E::object_start) && d == 4)
        throw Error(fmt::format("{}: /chains/{}/samples/{}: expected a draw (an array of numbers), got {}", path, chain,
                                rows_seen + pending_rows.size(), event == E::value ? describe(parsed) : "an object"));
      if (event == E::value && d == 5) {
        row.push_back(number(parsed, "samples"));
        return false;
      }
      if (event == E::array_start && d == 4) row.clear();
      if (event == E::array_end && d == 4) {
        if (have_stats || !with_stats) emit(row, rows_seen++);
        else pending_rows.push_back(row);
        return false;
      }
      return true;
    }
    if (stats) {
      if ((event == E::value || event == E::object_start) && d == 4)
        throw Error(fmt::format("{}: /chains/{}/sample_stats/{}: expected a column (an array of numbers), got {}", path, chain,
                                run::printable(key_at[4]), event == E::value ? describe(parsed) : "an object"));
      if (event == E::array_start && d == 4 && with_stats) stat_columns.emplace_back(key_at[4], std::vector<double>{});
      if (event == E::value && d == 5) {
        const double v = number(parsed, "sample_stats");
        if (with_stats && !stat_columns.empty()) stat_columns.back().second.push_back(v);
        return false;
      }
      if (event == E::array_end && d == 4) return false;
      if (event == E::object_end && d == 3) {
        have_stats = true;
        for (const auto& r : pending_rows) emit(r, rows_seen++);
        pending_rows.clear();
      }
      return true;
    }
    return true;
  };
  json record;
  try {
    record = json::parse(in, callback);
  } catch (const json::parse_error& e) {
    throw Error(fmt::format("{}: not valid JSON: {}", path, run::json_error_words(e)));
  } catch (const json::exception& e) {  // a number beyond a double (1e400), or a value of a shape no record has
    throw Error(fmt::format("{}: not a readable run record: {}", path, run::json_error_words(e)));
  }
  if (record.is_object() && record.contains("chains") && record["chains"].is_array())
    for (std::size_t c = 0; c < record["chains"].size() && c < draws_per_chain.size(); ++c)
      if (json& ch = record["chains"][c]; ch.is_object()) {
        ch["draws"] = draws_per_chain[c];
        if (ch.contains("sample_stats")) ch["sample_stats"] = json::object();  // its columns were taken out
      }
  return record;
}

}  // namespace sgmcmc::run::output
