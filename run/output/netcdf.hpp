#pragma once
// ArviZ InferenceData as NetCDF-4 (docs/run-format.md, "ArviZ InferenceData"): what `arviz.from_netcdf`
// and `xarray.open_dataset(path, group=...)` read. The layout follows ArviZ's schema
// (python.arviz.org, "InferenceData schema specification"):
//   posterior     a variable per parameter block (run/output/parameters.hpp), in the draw's order:
//                 name(chain, draw[, name_dim_0[, name_dim_1]]) double — by default the one block
//                 x(chain, draw, x_dim_0[, x_dim_1]) — NaN where a chain made no draw;
//   sample_stats  one (chain, draw) variable per statistic, under ArviZ's name where ArviZ has one with
//                 the same meaning (lp, acceptance_rate, step_size, diverging, energy), else ours;
//   the root      the run: per chain the draws it kept, its status, its diagnostics (diagnostic_*) and
//                 Stein diagnostics when recorded (stein_*), the resolved config, the status and
//                 sampling time (ArviZ reads the root's attributes as InferenceData.attrs and ignores
//                 its variables; xarray.open_dataset(path) reads them).
// Every dimension has an int64 coordinate variable 0..n-1, and every group the attributes ArviZ's
// `make_attrs` writes (created_at, inference_library, inference_library_version), but no
// `arviz_version`: ArviZ did not write the file.
//
// Draws are streamed: each block goes straight to the file at its chain's running offset, so memory
// holds one block. The file is written as a temporary beside the target and renamed at `finish`
// (run/output/atomic_file.hpp): a failed or abandoned run leaves no partial file under the name.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <cstdint>
#include <ctime>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <H5public.h>
#include <fmt/format.h>
#include <netcdf>
#include <nlohmann/json.hpp>

#include <sgmcmc/concepts/sampler.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/run/output/atomic_file.hpp>
#include <sgmcmc/run/output/formats.hpp>
#include <sgmcmc/run/output/writer.hpp>

namespace sgmcmc::run::output {

namespace netcdf_detail {

/// A count's fill value, read back as NaN (xarray masks it too): a draw the chain did not make.
inline constexpr long long missing_count = -1;

/// The creation time as ArviZ writes it (Python's datetime.now(timezone.utc).isoformat()).
inline std::string utc_now_iso8601() {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const std::time_t seconds = system_clock::to_time_t(now);
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  const auto micros = duration_cast<microseconds>(now.time_since_epoch()).count() % 1000000;
  return fmt::format("{}.{:06d}+00:00", text, micros);
}

/// HDF5 (under netCDF-4) closes its open files at exit by default, and a file whose close failed (a
/// full disk, a file-size limit) is one its 1.10 release then crashes on (SIGSEGV in H5F__close_cb
/// during exit: `sgmcmc run` exited 139 after printing its error, issue #40). Every file here is closed
/// explicitly or abandoned, so the exit handler has nothing to do: it is switched off before HDF5
/// starts (the first netCDF call of the process; a no-op if another part of the program started it).
inline void no_hdf5_exit_handler() {
  static const bool once = (H5dont_atexit(), true);
  (void)once;
}

/// Runs `work`, turning a netCDF exception into sgmcmc::Error naming the file. `failing` says what a
/// failure means for the file (a writer's: it is not written); netCDF-C++'s source location is dropped.
template <class Work>
decltype(auto) naming_file(const std::string& path, Work&& work, const char* failing = "") {
  no_hdf5_exit_handler();
  try {
    return work();
  } catch (const netCDF::exceptions::NcException& e) {
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    throw Error(fmt::format("{}: netCDF: {}{}", path, what, failing));
  }
}

/// A writer's failure: the likely causes, and that the output is not written (its temporary removed).
inline constexpr const char* write_failed =
    " (writing failed: a full disk, a file-size limit or an I/O error; this file is not written, an existing one is kept)";

inline std::vector<long long> zero_to(std::size_t n) {
  std::vector<long long> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<long long>(i);
  return v;
}

/// A dimension of `length` with its coordinate variable 0..length-1. A length of 0 makes netCDF's
/// unlimited dimension, which reads as empty (a run that keeps no draws).
inline netCDF::NcDim add_indexed_dim(netCDF::NcGroup& group, const std::string& name, std::size_t length) {
  const netCDF::NcDim dim = group.addDim(name, length);
  const netCDF::NcVar coordinate = group.addVar(name, netCDF::ncInt64, dim);
  if (length > 0) coordinate.putVar(zero_to(length).data());
  return dim;
}

/// How many draws a chunk of x holds: about 1 MiB of values, so a block's write touches few chunks.
inline std::size_t draws_per_chunk(std::size_t values_per_draw, std::uint64_t draws) {
  const std::size_t target = (std::size_t{1} << 20) / sizeof(double);
  const std::size_t by_size = std::max<std::size_t>(1, target / std::max<std::size_t>(1, values_per_draw));
  return std::max<std::size_t>(1, std::min<std::size_t>(by_size, static_cast<std::size_t>(draws)));
}

/// Chunks of one chain each (chunk[0] = 1): a chain's block never touches another chain's chunks.
inline void set_chunks(const netCDF::NcVar& var, std::vector<std::size_t> chunk) {
  var.setChunking(netCDF::NcVar::nc_CHUNKED, chunk);
}

/// Gives a variable's chunk cache room for every chain's current chunk (and one more), at least
/// netCDF's default of 16 MiB and at most 256 MiB: blocks arrive chain after chain, and a chunk
/// evicted half-written is written out and read back in when the chain's next block comes.
inline void cache_a_chunk_per_chain(const netCDF::NcVar& var, std::size_t chains, std::size_t chunk_bytes) {
  const std::size_t wanted = (chains + 1) * chunk_bytes;
  const std::size_t bytes = std::clamp<std::size_t>(wanted, std::size_t{16} << 20, std::size_t{256} << 20);
  netCDF::ncCheck(nc_set_var_chunk_cache(var.getParentGroup().getId(), var.getId(), bytes, 4133, 0.75f), __FILE__, __LINE__);
}

inline std::string text_attribute(const netCDF::NcGroup& group, const std::string& name) {
  std::string value;
  if (group.getAtts().count(name) > 0) group.getAtt(name).getValues(value);  // getAtt throws when absent
  return value;
}

}  // namespace netcdf_detail

/// Streams a run to `path` as ArviZ InferenceData (NetCDF-4).
class NetcdfWriter final : public Writer {
 public:
  explicit NetcdfWriter(std::string path) : file_(std::move(path), Temporary::named) {}
  NetcdfWriter(const NetcdfWriter&) = delete;
  NetcdfWriter& operator=(const NetcdfWriter&) = delete;
  /// An abandoned file (an error came first, and named it) is closed quietly: netCDF-C++'s destructor
  /// prints its own close error to std::cerr, a second, unclear line before the real one.
  ~NetcdfWriter() override {
    if (!nc_) return;
    std::streambuf* const saved = std::cerr.rdbuf(nullptr);
    nc_.reset();
    std::cerr.rdbuf(saved);
    std::cerr.clear();
  }

  void begin(const RunHeader& header) override {
    require(!nc_, "{}: begin called twice", path());
    require(!header.parameters.empty(), "{}: a draw with no parameters", path());
    parameters_ = header.parameters;
    dim_ = header.dim();
    chains_ = header.chains;
    has_lp_ = header.has_lp;
    log_lik_size_ = header.log_likelihood;
    save_warmup_ = header.save_warmup;
    metric_ = header.metric;
    inverse_metric_.assign(chains_, {});
    draws_ = Phase::of("", header.expected_draws, chains_);
    warmup_ = Phase::of("warmup_", header.expected_warmup, chains_);
    // netCDF creates the file by name: it replaces the empty temporary AtomicFile made beside the
    // target (truncating it in place, so it keeps the temporary's permissions).
    file_.close();
    netcdf_detail::naming_file(path(), [&] {
      nc_.emplace(file_.temporary_path(), netCDF::NcFile::replace, netCDF::NcFile::nc4);
      define(header);
    }, netcdf_detail::write_failed);
  }

  /// A chain's inverse metric adapted in its warm-up (a diagonal preconditioner's s²), written at the end.
  void warm_up_done(std::size_t chain, const WarmUp& warm_up) override {
    if (chain < inverse_metric_.size() && metric_.any()) inverse_metric_[chain] = warm_up.inverse_metric;
  }

  void append(const DrawBlock& all) override {
    require(nc_.has_value(), "{}: append before begin", path());
    require(all.warmup_rows == 0 || save_warmup_, "{}: warm-up draws for a run that does not save them", path());
    append_to(warmup_, all.warmup());
    append_to(draws_, all.sampling());
  }


  void finish(const json& record) override {
    prepare(record);
    commit();
  }
  void prepare(const json& record) override {
    require(nc_.has_value(), "{}: finish before begin", path());
    netcdf_detail::naming_file(path(), [&] {
      put_chains(record);
      put_chain_diagnostics(record);
      put_thinned(record);
      put_metric();
      put_run(record);
      nc_->close();
    }, netcdf_detail::write_failed);
    nc_.reset();
    file_.prepare();
  }
  void commit() override { file_.commit(); }

  std::vector<std::string> files() const override { return {file_.path()}; }

 private:
  // A statistic is stored by its kind (concepts/statistics.hpp): xarray writes a boolean as a byte with
  // attribute dtype = "bool" (and reads it back as bool), counts are integers, the rest doubles; its
  // variable is named by ArviZ's schema (Statistic::arviz_name: acceptance_rate, diverging, step_size,
  // as ArviZ's CmdStan reader maps accept_stat__, stepsize__, divergent__; n_grad keeps its name, since
  // ArviZ's n_steps counts leapfrog steps, not gradient evaluations).
  struct StatisticVar {
    const Statistic* statistic;
    netCDF::NcVar var;
  };

  /// One kind of draws' groups (ArviZ's `posterior`, `sample_stats`, `log_likelihood`, or their
  /// `warmup_` twins) and how far each chain has written into them.
  struct Phase {
    std::string prefix;                            ///< "" or "warmup_"
    std::uint64_t expected = 0;                    ///< draws per chain the run announced
    std::vector<netCDF::NcVar> posterior;          ///< a variable per parameter block
    std::vector<StatisticVar> statistics;
    netCDF::NcVar lp, log_lik;
    std::vector<netCDF::NcVar> draw_coordinates;   ///< `draw` of each group
    std::uint64_t covered = 0;                     ///< the length of `draw`: the most draws any chain wrote
    std::vector<std::uint64_t> written;            ///< draws written per chain: the next block's offset
    static Phase of(std::string prefix, std::uint64_t expected, std::size_t chains) {
      Phase p;
      p.prefix = std::move(prefix);
      p.expected = expected;
      p.written.assign(chains, 0);
      return p;
    }
  };

  const std::string& path() const { return file_.path(); }

  void append_to(Phase& phase, const DrawBlock& block) {
    const std::size_t rows = block.rows();
    require(block.chain < chains_, "{}: chain {} of a run with {} chains", path(), block.chain, chains_);
    require(block.dim == dim_, "{}: a draw of {} values, the header said {}", path(), block.dim, dim_);
    require(block.values.size() == rows * static_cast<std::size_t>(dim_),
            "{}: a block of {} draws has {} values, not {}", path(), rows, block.values.size(), rows * static_cast<std::size_t>(dim_));
    require(!has_lp_ || block.lp.size() == rows, "{}: a block of {} draws has {} lp values", path(), rows, block.lp.size());
    require(block.log_lik.size() == rows * static_cast<std::size_t>(log_lik_size_),
            "{}: a block of {} draws has {} log-likelihood values, not {} per draw", path(), rows, block.log_lik.size(), log_lik_size_);
    if (rows == 0) return;
    const std::uint64_t offset = phase.written[block.chain];
    if (offset + rows > phase.expected)
      throw Error(fmt::format("{}: chain {} would keep {} {}draws, more than the {} the run announced", path(), block.chain,
                              offset + rows, phase.prefix.empty() ? "" : "warm-up ", phase.expected));
    netcdf_detail::naming_file(path(), [&] {
      put_draws(phase, block, offset);
      put_statistics(phase, block, offset);
      if (has_lp_) phase.lp.putVar({block.chain, offset}, {1, rows}, block.lp.data());
      if (log_lik_size_ > 0)
        phase.log_lik.putVar({block.chain, offset, 0}, {1, rows, static_cast<std::size_t>(log_lik_size_)}, block.log_lik.data());
      cover_draws(phase, offset + rows);
    }, netcdf_detail::write_failed);
    phase.written[block.chain] = offset + rows;
  }

  void define(const RunHeader& header) {
    const std::string created_at = netcdf_detail::utc_now_iso8601();
    netCDF::NcGroup root = *nc_;
    put_group_attributes(root, header, created_at);
    // The whole config, so the file alone says how the run was made (docs/config.md).
    root.putAtt("sgmcmc_config", header.config.dump());
    if (!header.tuning.is_null()) root.putAtt("sgmcmc_tuning", header.tuning.dump());  // the tuner's choice (run/tune.hpp)
    tuned_ = !header.tuning.is_null();
    const netCDF::NcDim root_chain = netcdf_detail::add_indexed_dim(root, "chain", chains_);
    draws_kept_ = root.addVar("draws_kept", netCDF::ncInt64, root_chain);
    chain_status_ = root.addVar("chain_status", netCDF::ncString, root_chain);
    chain_error_ = root.addVar("chain_error", netCDF::ncString, root_chain);
    define_phase(draws_, header, created_at);
    if (save_warmup_) define_phase(warmup_, header, created_at);
  }

  /// A phase's groups: <prefix>posterior, <prefix>log_likelihood (on request) and <prefix>sample_stats.
  void define_phase(Phase& phase, const RunHeader& header, const std::string& created_at) {
    netCDF::NcGroup root = *nc_;
    const std::uint64_t expected_draws = phase.expected;
    netCDF::NcGroup posterior = root.addGroup(phase.prefix + "posterior");
    put_group_attributes(posterior, header, created_at);
    const std::vector<netCDF::NcDim> draw_dims = sample_dims(phase, posterior);
    // Every block's chunk holds the same draws, about 1 MiB of the whole draw's values: a block of
    // rows touches one chunk per variable, and all of a chain's chunks together stay near 1 MiB.
    const std::size_t chunk_draws = netcdf_detail::draws_per_chunk(static_cast<std::size_t>(dim_), expected_draws);
    for (const ParameterBlock& b : parameters_.blocks) {
      std::vector<netCDF::NcDim> dims = draw_dims;
      std::vector<std::size_t> chunk{1, chunk_draws};
      for (std::size_t k = 0; k < b.shape.size(); ++k) {
        const auto length = static_cast<std::size_t>(b.shape[k]);
        dims.push_back(netcdf_detail::add_indexed_dim(posterior, fmt::format("{}_dim_{}", b.name, k), length));
        chunk.push_back(length);
      }
      const netCDF::NcVar var = posterior.addVar(b.name, netCDF::ncDouble, dims);
      netcdf_detail::set_chunks(var, chunk);
      netcdf_detail::cache_a_chunk_per_chain(var, chains_, chunk_draws * static_cast<std::size_t>(b.size()) * sizeof(double));
      var.setFill(true, std::numeric_limits<double>::quiet_NaN());
      phase.posterior.push_back(var);
    }

    // The pointwise log-likelihood (config "log_likelihood": true): ArviZ's `log_likelihood` group,
    // which az.loo and az.waic read; named log_lik, as Stan's CSV column.
    if (log_lik_size_ > 0) {
      netCDF::NcGroup group = root.addGroup(phase.prefix + "log_likelihood");
      put_group_attributes(group, header, created_at);
      std::vector<netCDF::NcDim> ll_dims = sample_dims(phase, group);
      const auto n = static_cast<std::size_t>(log_lik_size_);
      ll_dims.push_back(netcdf_detail::add_indexed_dim(group, "log_lik_dim_0", n));
      const std::vector<std::size_t> ll_chunk{1, netcdf_detail::draws_per_chunk(n, expected_draws), n};
      phase.log_lik = add_real(group, "log_lik", ll_dims, ll_chunk);
      netcdf_detail::cache_a_chunk_per_chain(phase.log_lik, chains_, ll_chunk[1] * n * sizeof(double));
    }

    netCDF::NcGroup stats = root.addGroup(phase.prefix + "sample_stats");
    put_group_attributes(stats, header, created_at);
    const std::vector<netCDF::NcDim> stat_dims = sample_dims(phase, stats);
    // A statistic's chunk: 4096 draws (32 KiB), so the default cache holds one for hundreds of chains.
    const std::vector<std::size_t> stat_chunk{1, std::clamp<std::size_t>(static_cast<std::size_t>(expected_draws), 1, 4096)};
    if (has_lp_) phase.lp = add_real(stats, "lp", stat_dims, stat_chunk);
    std::vector<StatisticVar>& statistics = phase.statistics;
    for (const Statistic* s : header.statistics) {
      const std::string name(s->arviz_name);
      switch (s->kind) {
        case StatKind::real: statistics.push_back({s, add_real(stats, name, stat_dims, stat_chunk)}); break;
        case StatKind::flag: {
          const netCDF::NcVar var = stats.addVar(name, netCDF::ncByte, stat_dims);
          netcdf_detail::set_chunks(var, stat_chunk);
          // As xarray writes a bool (no _FillValue: xarray would read a masked byte as a float and
          // its NaN as true); `finish` writes false where a chain made no draw.
          var.putAtt("dtype", "bool");
          statistics.push_back({s, var});
          break;
        }
        case StatKind::count: {
          const netCDF::NcVar var = stats.addVar(name, netCDF::ncInt64, stat_dims);
          netcdf_detail::set_chunks(var, stat_chunk);
          var.setFill(true, netcdf_detail::missing_count);
          statistics.push_back({s, var});
          break;
        }
      }
    }
  }

  // `draw` is unlimited: it grows with the draws written (a run may end early, interrupted or stopped by
  // an error, and the announced count may be far larger than memory), its coordinate written as it grows.
  std::vector<netCDF::NcDim> sample_dims(Phase& phase, netCDF::NcGroup& group) {
    std::vector<netCDF::NcDim> dims{netcdf_detail::add_indexed_dim(group, "chain", chains_),
                                    netcdf_detail::add_indexed_dim(group, "draw", 0)};
    phase.draw_coordinates.push_back(group.getVar("draw"));
    return dims;
  }

  // Extends the `draw` coordinates to cover draws [0, n).
  void cover_draws(Phase& phase, std::uint64_t n) {
    if (n <= phase.covered) return;
    std::vector<long long> index(static_cast<std::size_t>(n - phase.covered));
    for (std::size_t i = 0; i < index.size(); ++i) index[i] = static_cast<long long>(phase.covered + i);
    for (const netCDF::NcVar& v : phase.draw_coordinates)
      v.putVar({static_cast<std::size_t>(phase.covered)}, {index.size()}, index.data());
    phase.covered = n;
  }

  static netCDF::NcVar add_real(netCDF::NcGroup& group, const std::string& name, const std::vector<netCDF::NcDim>& dims,
                                const std::vector<std::size_t>& chunk) {
    const netCDF::NcVar var = group.addVar(name, netCDF::ncDouble, dims);
    netcdf_detail::set_chunks(var, chunk);
    var.setFill(true, std::numeric_limits<double>::quiet_NaN());
    return var;
  }

  static void put_group_attributes(netCDF::NcGroup& group, const RunHeader& header, const std::string& created_at) {
    group.putAtt("created_at", created_at);
    group.putAtt("inference_library", "sgmcmc");
    group.putAtt("inference_library_version", header.library_version);
    // The schema's creation_library*: the library that wrote the file (ArviZ writes its own name there).
    group.putAtt("creation_library", "sgmcmc");
    group.putAtt("creation_library_version", header.library_version);
    group.putAtt("creation_library_language", "C++");
    group.putAtt("sampler", header.sampler);
    if (!header.thinning.is_null()) group.putAtt("sgmcmc_thinned", header.thinning.dump());
  }

  /// Each block's name[c, k, i, j] of draws that arrive flattened, a matrix block column-major (element
  /// (i, j) at i + n j): netCDF stores the last index fastest, so a matrix block is transposed on the
  /// way; a draw of one vector block goes as it is.
  void put_draws(Phase& phase, const DrawBlock& block, std::uint64_t offset) {
    const std::size_t rows = block.rows(), d = static_cast<std::size_t>(dim_);
    for (std::size_t v = 0; v < parameters_.blocks.size(); ++v) {
      const ParameterBlock& b = parameters_.blocks[v];
      std::vector<std::size_t> start{block.chain, offset}, count{1, rows};
      for (Eigen::Index n : b.shape) start.push_back(0), count.push_back(static_cast<std::size_t>(n));
      if (b.shape.size() < 2 && parameters_.blocks.size() == 1) {
        phase.posterior[v].putVar(start, count, block.values.data());
        continue;
      }
      const auto size = static_cast<std::size_t>(b.size()), at = static_cast<std::size_t>(b.offset);
      const std::size_t n = b.shape.size() == 2 ? static_cast<std::size_t>(b.shape[0]) : size, p = size / n;
      reals_.resize(rows * size);
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < p; ++j)
          for (std::size_t i = 0; i < n; ++i) reals_[r * size + i * p + j] = block.values[r * d + at + i + n * j];
      phase.posterior[v].putVar(start, count, reals_.data());
    }
  }

  void put_statistics(Phase& phase, const DrawBlock& block, std::uint64_t offset) {
    const std::size_t rows = block.rows();
    const std::vector<std::size_t> start{block.chain, offset}, count{1, rows};
    for (const StatisticVar& s : phase.statistics) {
      switch (s.statistic->kind) {
        case StatKind::real:
          reals_.resize(rows);
          for (std::size_t r = 0; r < rows; ++r) reals_[r] = s.statistic->get(block.stats[r]);
          s.var.putVar(start, count, reals_.data());
          break;
        case StatKind::flag:
          flags_.resize(rows);
          for (std::size_t r = 0; r < rows; ++r) flags_[r] = s.statistic->get(block.stats[r]) != 0.0 ? 1 : 0;
          s.var.putVar(start, count, flags_.data());
          break;
        case StatKind::count:
          counts_.resize(rows);
          for (std::size_t r = 0; r < rows; ++r) {
            const double v = s.statistic->get(block.stats[r]);
            counts_[r] = v >= 0 && v < 9.2e18 ? static_cast<long long>(v) : netcdf_detail::missing_count;
          }
          s.var.putVar(start, count, counts_.data());
          break;
      }
    }
  }

  /// Per chain: the draws it kept (checked against the record's count), its status and error; and
  /// false in a flag where the chain made no draw.
  void put_chains(const json& record) {
    const json* chains = record.contains("chains") && record["chains"].is_array() ? &record["chains"] : nullptr;
    std::vector<long long> kept;
    std::vector<std::string> status, error, warnings;
    // Also as attributes of sample_stats, which ArviZ loads (it never loads the root group's variables).
    const auto put_facts = [&] {
      netCDF::NcGroup stats = nc_->getGroup("sample_stats");
      stats.putAtt("draws_kept", netCDF::ncInt64, kept.size(), kept.data());
      put_strings(stats, "chain_status", status);
      put_strings(stats, "chain_error", error);
      put_strings(stats, "chain_warnings", warnings);
    };
    const std::vector<std::uint64_t>& written = draws_.written;
    for (std::size_t c = 0; c < chains_; ++c) {
      const json* chain = chains && c < chains->size() ? &(*chains)[c] : nullptr;
      if (chain && chain->contains("draws") && (*chain)["draws"].is_number_unsigned() &&
          (*chain)["draws"].get<std::uint64_t>() != written[c])
        throw Error(fmt::format("{}: chain {}: the record says {} draws, {} were written", path(), c,
                                (*chain)["draws"].get<std::uint64_t>(), written[c]));
      const std::vector<std::size_t> at{c};
      draws_kept_.putVar(at, static_cast<long long>(written[c]));
      chain_status_.putVar(at, string_field(chain, "status", "ok"));
      chain_error_.putVar(at, string_field(chain, "error", ""));
      kept.push_back(static_cast<long long>(written[c]));
      status.push_back(string_field(chain, "status", "ok"));
      error.push_back(string_field(chain, "error", ""));
      // The chain's warnings (run/checks.hpp), one a line; empty when it has none.
      std::string lines;
      if (chain && chain->contains("warnings") && (*chain)["warnings"].is_array())
        for (const json& w : (*chain)["warnings"])
          if (w.is_object() && w.contains("message") && w["message"].is_string()) lines += (lines.empty() ? "" : "\n") + w["message"].get<std::string>();
      warnings.push_back(std::move(lines));
      for (const Phase* phase : {&draws_, &warmup_}) {
        const std::size_t missing = static_cast<std::size_t>(phase->covered - phase->written[c]);
        if (missing == 0) continue;
        flags_.assign(missing, 0);
        for (const StatisticVar& s : phase->statistics)
          if (s.statistic->kind == StatKind::flag)
            s.var.putVar({c, static_cast<std::size_t>(phase->written[c])}, {1, missing}, flags_.data());
      }
    }
    put_facts();
  }

  /// The metric and what the warm-up adapted, where ArviZ shows them: sample_stats' attributes `metric`
  /// (Stan's unit_e, diag_e or dense_e) and `adaptation_engaged`, and with a diagonal metric the root
  /// variable `inverse_metric(chain, inverse_metric_dim_0)` (each chain's s², NaN for a chain without one;
  /// the given scale's when none was adapted) — with a dense one `inverse_metric(chain,
  /// inverse_metric_dim_0, inverse_metric_dim_1)`, each chain's SSᵀ — also as sample_stats' attribute
  /// `inverse_metric` (JSON text, a list per chain: of numbers, or of rows).
  void put_metric() {
    netCDF::NcGroup stats = nc_->getGroup("sample_stats");
    stats.putAtt("metric", metric_.stan_name());
    stats.putAtt("adaptation_engaged", netCDF::ncInt, metric_.adapted_in_warm_up() || tuned_ ? 1 : 0);
    if (!metric_.any()) return;
    const auto d = static_cast<std::size_t>(dim_), size = metric_.inverse_size(d);
    std::vector<double> values(chains_ * size, std::numeric_limits<double>::quiet_NaN());
    json lists = json::array();
    for (std::size_t c = 0; c < chains_; ++c) {
      const std::vector<double>& m = !inverse_metric_[c].empty() ? inverse_metric_[c] : metric_.given_inverse;
      if (m.size() != size) {
        lists.push_back(nullptr);
        continue;
      }
      std::copy(m.begin(), m.end(), values.begin() + static_cast<std::ptrdiff_t>(c * size));
      if (!metric_.dense) {
        lists.push_back(m);
        continue;
      }
      json rows = json::array();
      for (std::size_t r = 0; r < d; ++r)
        rows.push_back(std::vector<double>(m.begin() + static_cast<std::ptrdiff_t>(r * d), m.begin() + static_cast<std::ptrdiff_t>((r + 1) * d)));
      lists.push_back(rows);
    }
    netCDF::NcGroup root = *nc_;
    std::vector<netCDF::NcDim> dims{root.getDim("chain"), netcdf_detail::add_indexed_dim(root, "inverse_metric_dim_0", d)};
    if (metric_.dense) dims.push_back(netcdf_detail::add_indexed_dim(root, "inverse_metric_dim_1", d));
    root.addVar("inverse_metric", netCDF::ncDouble, dims).putVar(values.data());
    stats.putAtt("inverse_metric", lists.dump());
  }

  static void put_strings(netCDF::NcGroup& group, const std::string& name, const std::vector<std::string>& values) {
    std::vector<const char*> text;
    for (const auto& v : values) text.push_back(v.c_str());
    group.putAtt(name, netCDF::ncString, text.size(), text.data());
  }

  /// A Stein-thinned file (`sgmcmc thin`): sample_stats gets `source_draw(chain, draw)`, each draw's
  /// position among the source chain's kept draws, and the attributes ksd_before / ksd_after per chain.
  void put_thinned(const json& record) {
    if (!record.contains("thinned") || !record["thinned"].is_object()) return;
    const json& t = record["thinned"];
    netCDF::NcGroup stats = nc_->getGroup("sample_stats");
    const netCDF::NcVar source = stats.addVar("source_draw", netCDF::ncInt64, {stats.getDim("chain"), stats.getDim("draw")});
    source.setFill(true, netcdf_detail::missing_count);
    std::vector<double> before(chains_, std::numeric_limits<double>::quiet_NaN()), after = before;
    for (std::size_t c = 0; c < chains_; ++c) {
      const auto at = [&](const char* key) -> const json* {
        return t.contains(key) && t[key].is_array() && c < t[key].size() ? &t[key][c] : nullptr;
      };
      if (const json* k = at("ksd_before"); k && k->is_number()) before[c] = k->get<double>();
      if (const json* k = at("ksd_after"); k && k->is_number()) after[c] = k->get<double>();
      const json* indices = at("indices");
      if (!indices || !indices->is_array()) continue;
      std::vector<long long> index;
      for (const json& i : *indices) index.push_back(i.is_number_integer() ? i.get<long long>() : netcdf_detail::missing_count);
      index.resize(std::min<std::size_t>(index.size(), static_cast<std::size_t>(draws_.covered)));
      if (!index.empty()) source.putVar({c, 0}, {1, index.size()}, index.data());
    }
    stats.putAtt("ksd_before", netCDF::ncDouble, before.size(), before.data());
    stats.putAtt("ksd_after", netCDF::ncDouble, after.size(), after.data());
  }

  /// Per chain, every number among the record's chain diagnostics (`diagnostic_<name>`: kinetic
  /// temperature, gradient evaluations, …) and its Stein diagnostics when the record carries them
  /// (`stein_<name>`: ksd, configurational_temperature, the gradient noise's numbers; `sgmcmc convert
  /// --stein`), as root variables over `chain`, NaN where a chain has none. A nested object's numbers
  /// are named by their path joined with '_' (stein_gradient_noise_mean_variance).
  void put_chain_diagnostics(const json& record) {
    std::map<std::string, std::vector<double>> columns;
    const auto collect = [&](const json& object, const std::string& prefix, std::size_t c) {
      collect_numbers(object, prefix, c, chains_, columns);
    };
    const json* chains = record.contains("chains") && record["chains"].is_array() ? &record["chains"] : nullptr;
    const json* stein = record.contains("stein") && record["stein"].is_object() && record["stein"].contains("chains") &&
                                record["stein"]["chains"].is_array()
                            ? &record["stein"]["chains"]
                            : nullptr;
    for (std::size_t c = 0; c < chains_; ++c) {
      if (chains && c < chains->size() && (*chains)[c].is_object() && (*chains)[c].contains("diagnostics") &&
          (*chains)[c]["diagnostics"].is_object())
        collect((*chains)[c]["diagnostics"], "diagnostic_", c);
      // The chain's own wall times (chains[i].timing: warmup_seconds, sampling_seconds).
      if (chains && c < chains->size() && (*chains)[c].is_object() && (*chains)[c].contains("timing") && (*chains)[c]["timing"].is_object())
        collect((*chains)[c]["timing"], "chain_", c);
      // The chain's default checks (run/checks.hpp: check_configurational_temperature_value, _se, …).
      if (chains && c < chains->size() && (*chains)[c].is_object() && (*chains)[c].contains("checks") && (*chains)[c]["checks"].is_object())
        collect((*chains)[c]["checks"], "check_", c);
      if (stein && c < stein->size() && (*stein)[c].is_object()) collect((*stein)[c], "stein_", c);
    }
    netCDF::NcGroup root = *nc_;
    const netCDF::NcDim chain = root.getDim("chain");
    netCDF::NcGroup stats = nc_->getGroup("sample_stats");
    for (const auto& [name, values] : columns) {
      root.addVar(name, netCDF::ncDouble, chain).putVar(values.data());
      stats.putAtt(name, netCDF::ncDouble, values.size(), values.data());
    }
    if (const json* pooled = record.contains("stein") && record["stein"].is_object() && record["stein"].contains("pooled")
                                 ? &record["stein"]["pooled"]
                                 : nullptr;
        pooled && pooled->is_object() && pooled->contains("ksd") && (*pooled)["ksd"].is_number())
      root.putAtt("stein_pooled_ksd", netCDF::ncDouble, (*pooled)["ksd"].get<double>());
  }

  /// columns[prefix + path][c] = every number in `object` (a nested object's keys joined with '_').
  static void collect_numbers(const json& object, const std::string& prefix, std::size_t c, std::size_t chains,
                              std::map<std::string, std::vector<double>>& columns) {
    for (auto it = object.begin(); it != object.end(); ++it) {
      if (it.value().is_object()) {
        collect_numbers(it.value(), prefix + it.key() + "_", c, chains, columns);
      } else if (it.value().is_number()) {
        auto& column = columns[prefix + it.key()];
        column.resize(chains, std::numeric_limits<double>::quiet_NaN());
        column[c] = it.value().get<double>();
      }
    }
  }

  /// The run's status and its sampling time (every phase's, summed: a resumed run has several).
  void put_run(const json& record) {
    netCDF::NcGroup root = *nc_;
    if (record.contains("status") && record["status"].is_string()) root.putAtt("status", record["status"].get<std::string>());
    const json* phases = record.contains("timings") && record["timings"].is_object() && record["timings"].contains("phases")
                             ? &record["timings"]["phases"]
                             : nullptr;
    if (!phases || !phases->is_array()) return;
    double seconds = 0;
    bool any = false;
    for (const json& phase : *phases)
      if (phase.is_object() && phase.contains("sampling_seconds") && phase["sampling_seconds"].is_number())
        seconds += phase["sampling_seconds"].get<double>(), any = true;
    if (any) root.putAtt("sampling_seconds", netCDF::ncDouble, seconds);
  }

  static std::string string_field(const json* object, const char* name, const char* otherwise) {
    if (object && object->is_object() && object->contains(name) && (*object)[name].is_string()) return (*object)[name].get<std::string>();
    return otherwise;
  }

  // file_ before nc_: members are destroyed in reverse, so an abandoned NcFile is closed before the
  // AtomicFile removes its temporary.
  AtomicFile file_;
  std::optional<netCDF::NcFile> nc_;
  Parameters parameters_;
  Eigen::Index dim_ = 0;
  std::size_t chains_ = 0;
  bool has_lp_ = false;
  Eigen::Index log_lik_size_ = 0;  ///< pointwise log-likelihood values per draw (0: none)
  netCDF::NcVar draws_kept_, chain_status_, chain_error_;
  Phase draws_;   ///< posterior, sample_stats, log_likelihood: the draws after the burn-in
  Phase warmup_;  ///< warmup_posterior, …: the warm-up draws (save_warmup; else none defined)
  bool save_warmup_ = false;
  MetricFacts metric_;
  bool tuned_ = false;  ///< the step size was tuned (run/tune.hpp): an adaptation, for ArviZ's adaptation_engaged
  std::vector<std::vector<double>> inverse_metric_;  ///< per chain: the inverse metric its warm-up adapted (empty: none)
  // Scratch for one block's values in netCDF's order (never the run's).
  std::vector<double> reals_;
  std::vector<signed char> flags_;
  std::vector<long long> counts_;
};

/// The format "netcdf": ArviZ InferenceData as NetCDF-4 at BASE.nc. Registered here, beside its writer,
/// so that a program built without netCDF (which never includes this header) does not offer it.
inline FormatEntry netcdf_format() {
  return {{"netcdf"}, "ArviZ InferenceData as NetCDF-4: groups posterior and sample_stats (arviz.from_netcdf, xarray)", "BASE.nc",
          [](const OutputPath& out) { return std::make_unique<NetcdfWriter>(out.base + ".nc"); },
          [](const OutputPath& out) { return std::vector<std::string>{out.base + ".nc"}; }, ".nc"};
}

/// One chain read back from a NetCDF run.
struct InferenceChain {
  Eigen::MatrixXd draws;                        ///< draws × dim, a row flattened column-major; NaN where no draw was made
  std::map<std::string, Eigen::VectorXd> stats;  ///< sample_stats by their names in the file (diverging 0/1), NaN where no draw was made
  std::uint64_t draws_kept = 0;
  std::string status, error;
};

/// A NetCDF run read back (for tests and conversion).
struct InferenceDraws {
  Parameters parameters;            ///< posterior's variables in the file's order, as blocks of the flat draw
  std::vector<Eigen::Index> shape;  ///< the one block's shape ({d} or {n, p}); with several blocks {d}
  std::vector<InferenceChain> chains;
  json config;  ///< the resolved config (null when the file has none)
  std::string sampler, library_version, created_at, status;
};

namespace netcdf_detail {

inline netCDF::NcGroup required_group(const netCDF::NcGroup& parent, const std::string& name, const std::string& path) {
  const netCDF::NcGroup group = parent.getGroup(name);
  if (group.isNull()) throw Error(fmt::format("{}: no group '{}' (not an sgmcmc NetCDF run)", path, name));
  return group;
}

inline netCDF::NcVar required_var(const netCDF::NcGroup& group, const std::string& name, const std::string& path) {
  const netCDF::NcVar var = group.getVar(name);
  if (var.isNull()) throw Error(fmt::format("{}: no variable '{}' in group '{}'", path, name, group.getName()));
  return var;
}

/// A (chain, draw) variable's row for one chain as doubles, its fill value (a count's -1) as NaN.
inline Eigen::VectorXd read_statistic(const netCDF::NcVar& var, std::size_t chain, std::size_t draws) {
  Eigen::VectorXd values(static_cast<Eigen::Index>(draws));
  if (draws > 0) var.getVar({chain, 0}, {1, draws}, values.data());
  const netCDF::NcVarAtt fill = var.getAtts().count("_FillValue") ? var.getAtt("_FillValue") : netCDF::NcVarAtt();
  if (!fill.isNull()) {
    double missing = 0;
    fill.getValues(&missing);
    if (!std::isnan(missing))
      for (double& v : values)
        if (v == missing) v = std::numeric_limits<double>::quiet_NaN();
  }
  return values;
}

/// An NC_STRING (chain) variable's entries.
inline std::vector<std::string> read_strings(const netCDF::NcVar& var, std::size_t n) {
  std::vector<char*> raw(n, nullptr);
  if (n > 0) var.getVar({0}, {n}, raw.data());
  std::vector<std::string> out;
  for (char* s : raw) out.emplace_back(s ? s : "");
  if (n > 0) nc_free_string(n, raw.data());
  return out;
}

}  // namespace netcdf_detail

/// Reads a NetCDF run written by NetcdfWriter: per chain its draws (all `draw` rows; NaN beyond the
/// chain's draws_kept) and sample_stats. Throws sgmcmc::Error naming the file when it cannot be read or
/// lacks a group or variable the writer makes.
inline InferenceDraws read_netcdf(const std::string& path) {
  using namespace netcdf_detail;
  return naming_file(path, [&] {
    netCDF::NcFile file(path, netCDF::NcFile::read);
    InferenceDraws out;
    const netCDF::NcGroup posterior = required_group(file, "posterior", path);
    const netCDF::NcGroup sample_stats = required_group(file, "sample_stats", path);
    // The parameter variables: posterior's (chain, draw, ...) variables in the order they were defined
    // (netCDF-C++'s getVars sorts by name), which is the draw's.
    int count_vars = 0;
    netCDF::ncCheck(nc_inq_varids(posterior.getId(), &count_vars, nullptr), __FILE__, __LINE__);
    std::vector<int> ids(static_cast<std::size_t>(count_vars));
    if (count_vars > 0) netCDF::ncCheck(nc_inq_varids(posterior.getId(), &count_vars, ids.data()), __FILE__, __LINE__);
    std::vector<netCDF::NcVar> vars;
    std::size_t chains = 0, draws = 0;
    for (int id : ids) {
      const netCDF::NcVar var(posterior, id);
      const std::vector<netCDF::NcDim> dims = var.getDims();
      if (dims.size() < 2 || dims[0].getName() != "chain" || dims[1].getName() != "draw") continue;
      if (dims.size() > 4)
        throw Error(fmt::format("{}: posterior/{} has {} dimensions, expected chain, draw and at most two more", path, var.getName(), dims.size()));
      std::vector<Eigen::Index> shape;
      for (std::size_t k = 2; k < dims.size(); ++k) shape.push_back(static_cast<Eigen::Index>(dims[k].getSize()));
      out.parameters.add(var.getName(), std::move(shape));
      chains = dims[0].getSize(), draws = dims[1].getSize();
      vars.push_back(var);
    }
    if (vars.empty()) throw Error(fmt::format("{}: no (chain, draw, ...) variable in group 'posterior'", path));
    out.shape = out.parameters.blocks.size() == 1 && !out.parameters.blocks[0].shape.empty() ? out.parameters.blocks[0].shape
                                                                                               : std::vector<Eigen::Index>{out.parameters.dim()};
    const auto d = static_cast<std::size_t>(out.parameters.dim());

    const netCDF::NcVar kept = required_var(file, "draws_kept", path);
    const std::vector<std::string> status = read_strings(required_var(file, "chain_status", path), chains);
    const std::vector<std::string> error = read_strings(required_var(file, "chain_error", path), chains);
    std::vector<std::string> stat_names;
    for (const auto& [name, var] : sample_stats.getVars())
      if (name != "chain" && name != "draw") stat_names.push_back(name);

    std::vector<double> c_order;
    for (std::size_t c = 0; c < chains; ++c) {
      InferenceChain chain;
      chain.draws.resize(static_cast<Eigen::Index>(draws), static_cast<Eigen::Index>(d));
      for (std::size_t v = 0; v < vars.size(); ++v) {
        const ParameterBlock& b = out.parameters.blocks[v];
        const auto size = static_cast<std::size_t>(b.size());
        std::vector<std::size_t> start{c, 0}, count{1, draws};
        for (Eigen::Index n : b.shape) start.push_back(0), count.push_back(static_cast<std::size_t>(n));
        c_order.resize(draws * size);
        if (draws > 0) vars[v].getVar(start, count, c_order.data());
        // netCDF's name[c, k, i, j] back into the flat row, the block's (i, j) at offset + i + n j.
        const std::size_t n = b.shape.size() == 2 ? static_cast<std::size_t>(b.shape[0]) : size, p = size / n;
        for (std::size_t k = 0; k < draws; ++k)
          for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < p; ++j)
              chain.draws(static_cast<Eigen::Index>(k), b.offset + static_cast<Eigen::Index>(i + n * j)) = c_order[k * size + i * p + j];
      }
      for (const std::string& name : stat_names) chain.stats[name] = read_statistic(required_var(sample_stats, name, path), c, draws);
      long long count_kept = 0;
      kept.getVar({c}, &count_kept);
      chain.draws_kept = count_kept > 0 ? static_cast<std::uint64_t>(count_kept) : 0;
      chain.status = status[c];
      chain.error = error[c];
      out.chains.push_back(std::move(chain));
    }
    const std::string config = text_attribute(file, "sgmcmc_config");
    if (!config.empty()) out.config = json::parse(config, nullptr, /*allow_exceptions=*/false);
    out.sampler = text_attribute(file, "sampler");
    out.library_version = text_attribute(file, "inference_library_version");
    out.created_at = text_attribute(file, "created_at");
    out.status = text_attribute(file, "status");
    return out;
  });
}

}  // namespace sgmcmc::run::output
