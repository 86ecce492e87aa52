#pragma once
// The minibatch base for data models (Welling & Teh 2011, Eq. 3): with N examples and batch size n,
//   ∇Ũ(θ) = ∇(-log p(θ)) + (N/n) Σ_{i ∈ batch} ∇(-log p(x_i | θ)),
// an unbiased estimate of ∇U. Batch b (the stream's next_batch() counter) holds examples that are a pure
// function of (seed, chain, b): drawn with replacement, or without replacement by walking a keyed
// permutation of each epoch (positions b·n ... b·n + n - 1 of the concatenated epochs). Nothing is
// copied per step; a resumed run draws the same batches. A third order, `time_ordered`, walks the
// examples in their stored order (batch b = positions b·n ... b·n + n - 1, wrapping at N): the online
// stream of a data set sorted by time (models/data/).
#include <concepts>
#include <cstdint>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/random/permutation.hpp>
#include <sgmcmc/modules/simd/reproducibility.hpp>  // every data model runs dense products

namespace sgmcmc::models {

/// A data model: `size()` examples; `add_prior_gradient(θ, g)` adds ∇(-log prior);
/// `add_example_gradient(θ, i, g, scale)` adds scale·∇(-log p(x_i | θ)).
/// Optional: `prior_value(θ)` and `example_value(θ, i)` for the exact U (MH references, tests).
template <class M>
concept DataModel = requires(const M m, const Eigen::VectorXd& x, Eigen::VectorXd& g, std::size_t i, double s) {
  { m.size() } -> std::convertible_to<std::size_t>;
  m.add_prior_gradient(x, g);
  m.add_example_gradient(x, i, g, s);
};

enum class Sampling { with_replacement, without_replacement, time_ordered };

/// Optional, for models whose batch gradient is one matrix product rather than a loop over examples
/// (the neural net): `add_batch_gradient(θ, indices, g, scale)` adds scale·Σ_{i ∈ indices} ∇(-log p(x_i | θ)).
template <class M>
concept BatchDataModel = DataModel<M> && requires(const M m, const Eigen::VectorXd& x, const std::vector<std::size_t>& idx,
                                                  Eigen::VectorXd& g, double s) {
  m.add_batch_gradient(x, idx, g, s);
};

/// Optional, for a generalised linear model, whose per-example gradient is a scalar times fixed
/// features: ∇(-log p(x_i | θ)) = ψ_i(θ)·x_i. `example_coefficient(θ, i)` returns ψ_i(θ) and
/// `add_example_features(i, g, scale)` adds scale·x_i. Lets SAGA (models/saga.hpp) keep one number per
/// example instead of a d-vector.
template <class M>
concept GeneralisedLinearModel = DataModel<M> && requires(const M m, const Eigen::VectorXd& x, Eigen::VectorXd& g, std::size_t i,
                                                          double s) {
  { m.example_coefficient(x, i) } -> std::convertible_to<double>;
  m.add_example_features(i, g, s);
};

/// Writes the example indices of minibatch b into `out` (size n).
inline void batch_indices(std::uint64_t b, std::size_t n, std::size_t N, Sampling sampling, std::uint64_t seed,
                          std::uint32_t stream, std::vector<std::size_t>& out) {
  out.resize(n);
  if (sampling == Sampling::time_ordered) {
    for (std::size_t j = 0; j < n; ++j) out[j] = static_cast<std::size_t>((b * n + j) % N);
    return;
  }
  if (sampling == Sampling::with_replacement) {
    for (std::size_t j = 0; j < n; ++j) {
      const auto w = random::philox_block(seed, stream, random::Kind::batch, b * n + j);
      const std::uint64_t bits = std::uint64_t{w[1]} << 32 | w[0];
      out[j] = static_cast<std::size_t>((static_cast<random::u128>(bits) * N) >> 64);  // bias < N/2^64
    }
    return;
  }
  std::uint64_t epoch = ~std::uint64_t{0};
  random::Permutation perm(1, seed, stream, 0);
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint64_t p = b * n + j;
    if (p / N != epoch) {
      epoch = p / N;
      perm = random::Permutation(N, seed, stream, epoch);
    }
    out[j] = static_cast<std::size_t>(perm(p % N));
  }
}

template <DataModel M>
struct Minibatch {
  M model;
  std::size_t batch_size = 1;
  Sampling sampling = Sampling::without_replacement;
  /// Scratch, reused: no allocation after the first batch. Derived data, not state: copying a
  /// potential copies it harmlessly, but one potential object must not be shared across threads.
  struct Scratch {
    std::vector<std::size_t> indices;
    Eigen::VectorXd example, mean, m2;
  };
  mutable Scratch scratch;

  std::size_t size() const { return model.size(); }

  /// The examples of the engine's next batch (in scratch: valid until the next call).
  template <class R>
  const std::vector<std::size_t>& draw_batch(R& rng) const {
    const std::size_t N = model.size();
    if (batch_size < 1 || batch_size > N)  // not require(): its message would be formatted on every step
      throw Error(fmt::format("batch_size: expected an integer in [1, {}] (the number of examples), got {}", N, batch_size));
    batch_indices(rng.next_batch(), batch_size, N, sampling, rng.seed(), rng.stream_id(), scratch.indices);
    return scratch.indices;
  }
  /// g += scale · Σ_{i ∈ idx} ∇(-log p(x_i | θ)): one matrix product where the model offers it.
  void add_batch(const Eigen::VectorXd& x, const std::vector<std::size_t>& idx, Eigen::VectorXd& g, double scale) const {
    if constexpr (BatchDataModel<M>) model.add_batch_gradient(x, idx, g, scale);
    else for (std::size_t i : idx) model.add_example_gradient(x, i, g, scale);
  }
  /// N/n, the likelihood's scale on a batch.
  double batch_scale() const { return static_cast<double>(model.size()) / static_cast<double>(batch_size); }

  /// The stochastic gradient on the next batch of the engine's stream.
  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& rng) const {
    const auto& idx = draw_batch(rng);
    g.setZero(x.size());
    model.add_prior_gradient(x, g);
    add_batch(x, idx, g, batch_scale());
  }
  /// The stochastic gradient and, per coordinate, the empirical-Fisher estimate of its variance:
  /// V̂ = (N²/n)·s², s² the sample variance of the batch's per-example gradients (Welford's one pass).
  /// Samplers subtract V̂ from their injected noise (SGHMC paper §3.2), which assumes the batches are
  /// independent from step to step: only batches drawn with replacement are. Without replacement (or
  /// time-ordered) the batch errors of an epoch sum to zero, the chain feels much less noise than V̂,
  /// and the correction would leave the posterior 10–20 % too narrow (docs/samplers.md); refused.
  template <class R>
  void gradient_and_variance(const Eigen::VectorXd& x, Eigen::VectorXd& g, Eigen::VectorXd& var, R& rng) const {
    const std::size_t N = model.size(), n = batch_size;
    require(sampling == Sampling::with_replacement,
            "empirical_fisher: the noise correction assumes independent batches, which only sampling with replacement "
            "gives; draw batches with replacement, or give no noise estimate (docs/samplers.md)");
    require(n >= 2 && n <= N, fmt::format("batch_size: empirical_fisher needs at least 2 examples per batch, got {}", n));
    batch_indices(rng.next_batch(), n, N, sampling, rng.seed(), rng.stream_id(), scratch.indices);
    const auto d = x.size();
    auto& example = scratch.example;
    auto& mean = scratch.mean;
    auto& m2 = scratch.m2;
    example.resize(d), mean.setZero(d), m2.setZero(d);
    double k = 0;
    for (std::size_t i : scratch.indices) {
      example.setZero();
      model.add_example_gradient(x, i, example, 1.0);
      k += 1;
      // Welford: m2 += (e - mean_old)(e - mean_new), written without a temporary vector.
      m2.array() += (example - mean).array() * (example - mean).array() * ((k - 1.0) / k);
      mean += (example - mean) / k;
    }
    g.setZero(d);
    model.add_prior_gradient(x, g);
    const double Nd = static_cast<double>(N), nd = static_cast<double>(n);
    g += Nd * mean;  // = (N/n) Σ_batch ∇(-log lik)
    var = (Nd * Nd / nd / (nd - 1.0)) * m2;
  }

  /// The full-data gradient.
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
    g.setZero(x.size());
    model.add_prior_gradient(x, g);
    for (std::size_t i = 0; i < model.size(); ++i) model.add_example_gradient(x, i, g, 1.0);
  }
  double value(const Eigen::VectorXd& x) const
    requires requires(const M m, std::size_t i) { m.prior_value(x); m.example_value(x, i); }
  {
    double u = model.prior_value(x);
    for (std::size_t i = 0; i < model.size(); ++i) u += model.example_value(x, i);
    return u;
  }
};

/// The minibatch base of a gradient estimator (models/control_variate.hpp, svrg.hpp, saga.hpp): the
/// data model, batch size and order, which the run layer reaches through any estimator.
template <DataModel M>
Minibatch<M>& minibatch_of(Minibatch<M>& m) { return m; }
template <DataModel M>
const Minibatch<M>& minibatch_of(const Minibatch<M>& m) { return m; }
/// An estimator built on a minibatch base it holds as `base` (ControlVariate, Saga).
template <class E>
  requires requires(E& e) { minibatch_of(e.base); }
auto& minibatch_of(E& e) { return minibatch_of(e.base); }

}  // namespace sgmcmc::models
