#pragma once
// Layer: data I/O (data/), beside modules/: it reads and holds data sets and knows no potential.
// The data side of a data model: a Dataset of N examples stored once (features d × N, one example a
// column, so an example is a contiguous column and a batch is a set of column indices), shared by
// every chain through a shared_ptr<const Dataset>, never copied per step. The minibatch contract
// itself — the N/n likelihood scaling, with/without replacement and time-ordered batches, seeded and
// resumable — is models::Minibatch (models/minibatch.hpp); this header adds what real data need:
// checked construction, seeded train/test splits, class selection, and a synthetic generator.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/printable.hpp>
#include <sgmcmc/modules/random/permutation.hpp>
#include <sgmcmc/modules/random/stream.hpp>

namespace sgmcmc::data {

namespace detail {
/// Advises the kernel to back a large matrix's storage with transparent huge pages (madvise
/// MADV_HUGEPAGE on its 2 MiB-aligned interior, as NumPy does for large arrays). Call it after
/// allocating and before writing: the advice applies to pages not yet touched. A minibatch step reads
/// ~100 random columns, and with 4 KiB pages nearly every read of a large data set also misses the
/// TLB; on 2 MiB pages SGHMC on logistic regression at N = 10⁶, d = 50 (400 MB) took 15–40 % less
/// time per step, at N = 10⁵ (40 MB) 0–20 %, more on a loaded machine (docs/benchmarks.md). Only advice: the values are the
/// same, and it does nothing below 32 MiB (glibc's largest mmap threshold: smaller blocks may come from
/// the heap, whose pages are already touched and shared with other allocations), off Linux, or where
/// THP is disabled (then madvise fails, harmlessly).
template <class Derived>
void advise_huge_pages(Eigen::PlainObjectBase<Derived>& m) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
  const std::uintptr_t bytes = sizeof(typename Derived::Scalar) * static_cast<std::uintptr_t>(m.size());
  if (bytes < 16 * huge) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(m.data());
  const std::uintptr_t lo = (begin + huge - 1) & ~(huge - 1), hi = (begin + bytes) & ~(huge - 1);
  if (hi > lo) (void)madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
#else
  (void)m;
#endif
}
}  // namespace detail

/// N labelled examples: `x` is d × N (example i is column i), `y` holds N integer labels (a class
/// index, or 0/1 for binary tasks). S is float for images (half the memory), double otherwise.
template <class S = double>
struct Dataset {
  using Scalar = S;
  using Matrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  Matrix x;
  Eigen::VectorXi y;
  std::string source;  ///< where it came from (a path, or "synthetic ..."), for messages and run records

  std::size_t size() const { return static_cast<std::size_t>(x.cols()); }
  Eigen::Index dim() const { return x.rows(); }
  int classes() const { return y.size() == 0 ? 0 : y.maxCoeff() + 1; }

  /// Throws unless x and y agree and every feature is finite.
  void validate() const {
    if (x.cols() != y.size())
      throw Error(fmt::format("{}: {} feature columns but {} labels", source, x.cols(), y.size()));
    if (x.cols() == 0) throw Error(fmt::format("{}: no examples", source));
    if (!x.allFinite()) throw Error(fmt::format("{}: non-finite feature values", source));
    if (y.size() > 0 && y.minCoeff() < 0) throw Error(fmt::format("{}: negative labels", source));
  }

  /// The examples at `idx`, in that order (a copy, made once at set-up).
  Dataset subset(const std::vector<std::size_t>& idx) const {
    Dataset out;
    out.x.resize(x.rows(), static_cast<Eigen::Index>(idx.size()));
    detail::advise_huge_pages(out.x);
    out.y.resize(static_cast<Eigen::Index>(idx.size()));
    for (std::size_t k = 0; k < idx.size(); ++k) {
      out.x.col(static_cast<Eigen::Index>(k)) = x.col(static_cast<Eigen::Index>(idx[k]));
      out.y[static_cast<Eigen::Index>(k)] = y[static_cast<Eigen::Index>(idx[k])];
    }
    out.source = source;
    return out;
  }
  template <class T>
  Dataset<T> cast() const {
    Dataset<T> out;
    out.x.resize(x.rows(), x.cols());
    detail::advise_huge_pages(out.x);
    out.x = x.template cast<T>();
    out.y = y;
    out.source = source;
    return out;
  }
};

/// A data path as every message here names it: it comes from a config or command line, so it is echoed
/// as any input string is (modules/printable.hpp: at most 200 characters, control characters as \xNN).
inline std::string shown(const std::filesystem::path& path) { return printable(path.string(), 200); }

/// Throws a clear error naming the file unless it exists and is a regular file.
inline void require_file(const std::filesystem::path& path, const std::string& what, const std::string& hint = "") {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error(fmt::format("{}: missing file (expected {}){}", shown(path), what,
                            hint.empty() ? "" : "; " + hint));
}

/// A seeded split into a training and a test part: the test part is the first `round(N·test_fraction)`
/// positions of the keyed permutation (seed, stream 0, epoch 0). The same seed gives the same split.
template <class S>
std::pair<Dataset<S>, Dataset<S>> split(const Dataset<S>& d, double test_fraction, std::uint64_t seed) {
  require(test_fraction > 0 && test_fraction < 1, "test_fraction: expected a number in (0, 1), got {}", test_fraction);
  const std::size_t N = d.size();
  const auto n_test = static_cast<std::size_t>(std::llround(test_fraction * static_cast<double>(N)));
  random::Permutation perm(N, seed, 0, 0);
  std::vector<std::size_t> test, train;
  for (std::size_t k = 0; k < N; ++k) (k < n_test ? test : train).push_back(static_cast<std::size_t>(perm(k)));
  return {d.subset(train), d.subset(test)};
}

/// The examples of two classes as a binary task: label `negative` -> 0, `positive` -> 1.
template <class S>
Dataset<S> binary_task(const Dataset<S>& d, int negative, int positive) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < d.size(); ++i) {
    const int c = d.y[static_cast<Eigen::Index>(i)];
    if (c == negative || c == positive) idx.push_back(i);
  }
  if (idx.empty()) throw Error(fmt::format("{}: no examples of classes {} and {}", d.source, negative, positive));
  Dataset<S> out = d.subset(idx);
  for (Eigen::Index i = 0; i < out.y.size(); ++i) out.y[i] = out.y[i] == positive ? 1 : 0;
  out.source = fmt::format("{} (classes {} vs {})", d.source, negative, positive);
  return out;
}

/// Synthetic logistic-regression data: x_i ~ N(0, I_d / d)·scale with a leading intercept feature 1
/// when `intercept`, θ* ~ N(0, I_d), y_i ~ Bernoulli(σ(θ*ᵀx_i)). Returns the data and θ*. Drawn from
/// stream (seed, 0), so any N and d are reproducible.
struct Synthetic {
  Dataset<double> data;
  Eigen::VectorXd theta;
};
inline Synthetic synthetic_logistic(std::size_t n, Eigen::Index d, std::uint64_t seed, double scale = 2.0,
                                    bool intercept = true) {
  require(n >= 1 && d >= 1, "synthetic_logistic: expected n >= 1 and d >= 1");
  random::Stream rng(seed, 0);
  Synthetic s;
  s.theta.resize(d);
  rng.normals(s.theta);
  s.data.x.resize(d, static_cast<Eigen::Index>(n));
  detail::advise_huge_pages(s.data.x);
  s.data.y.resize(static_cast<Eigen::Index>(n));
  const double sd = scale / std::sqrt(static_cast<double>(d));
  Eigen::VectorXd col(d);
  for (Eigen::Index i = 0; i < static_cast<Eigen::Index>(n); ++i) {
    rng.normals(col);
    col *= sd;
    if (intercept) col[0] = 1.0;
    s.data.x.col(i) = col;
    const double p = 1.0 / (1.0 + std::exp(-s.theta.dot(col)));
    s.data.y[i] = rng.uniform() < p ? 1 : 0;
  }
  s.data.source = fmt::format("synthetic logistic (N = {}, d = {}, seed = {})", n, d, seed);
  return s;
}


/// Where part k of `parts` equal parts of `size` things starts, ⌊size·k/parts⌋ (k = parts: the end),
/// without overflow: the byte ranges of a file's parts and the rows of generated data's shards.
inline std::uint64_t part_start(std::uint64_t size, std::uint64_t k, std::uint64_t parts) {
  return static_cast<std::uint64_t>(static_cast<random::u128>(size) * k / parts);
}

/// Rows [first, first + count) of a synthetic logistic-regression data set of any size, drawn as
/// synthetic_logistic's model (x_i ~ N(0, I_d/d)·scale with an intercept 1, θ* ~ N(0, I_d) from stream
/// (seed, 0), y_i ~ Bernoulli(σ(θ*ᵀx_i))) but row i from its own stream (seed, i + 1): any part of the
/// set is generated without the rest, so the ranks of a chain group each make only their shard and
/// together hold exactly the rows one process makes (run/targets/logistic.hpp's generated data).
inline Synthetic synthetic_logistic_rows(std::uint64_t first, std::uint64_t count, std::uint64_t total, Eigen::Index d,
                                         std::uint64_t seed, double scale = 2.0) {
  require(d >= 1 && count >= 1 && first + count <= total && total < 0xffffffffull,
          "synthetic_logistic_rows: expected d >= 1 and 1 <= rows <= N < 2^32 - 1");
  Synthetic s;
  s.theta.resize(d);
  random::Stream(seed, 0).normals(s.theta);
  s.data.x.resize(d, static_cast<Eigen::Index>(count));
  detail::advise_huge_pages(s.data.x);
  s.data.y.resize(static_cast<Eigen::Index>(count));
  const double sd = scale / std::sqrt(static_cast<double>(d));
  for (Eigen::Index k = 0; k < static_cast<Eigen::Index>(count); ++k) {
    random::Stream rng(seed, static_cast<std::uint32_t>(first + static_cast<std::uint64_t>(k) + 1));
    auto col = s.data.x.col(k);
    rng.normals(col);
    col *= sd;
    col[0] = 1.0;
    const double p = 1.0 / (1.0 + std::exp(-s.theta.dot(col)));
    s.data.y[k] = rng.uniform() < p ? 1 : 0;
  }
  s.data.source = fmt::format("synthetic logistic (N = {}, d = {}, seed = {}; rows {}–{})", total, d, seed, first, first + count - 1);
  return s;
}

}  // namespace sgmcmc::data
