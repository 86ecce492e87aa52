#pragma once
// The minibatch base for data models (Welling & Teh 2011, Eq. 3): with N examples and batch size n,
//   ∇Ũ(θ) = ∇(-log p(θ)) + (N/n) Σ_{i ∈ batch} ∇(-log p(x_i | θ)),
// an unbiased estimate of ∇U. Batch b (the stream's next_batch() counter) holds examples that are a pure
// function of (seed, chain, b): drawn with replacement, or without replacement by walking a keyed
// permutation of each epoch (positions b·n ... b·n + n - 1 of the concatenated epochs). Nothing is
// copied per step; a resumed run draws the same batches. A third order, `time_ordered`, walks the
// examples in their stored order (batch b = positions b·n ... b·n + n - 1, wrapping at N): the online
// stream of a data set sorted by time (data/).
#include <algorithm>
#include <concepts>
#include <cstdint>
#include <span>
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

/// Optional: `example_log_likelihood(θ, i)` = log p(y_i | θ) of example i with every constant included,
/// for the pointwise log-likelihood an output writes on request (PSIS-LOO, WAIC; docs/run-format.md).
template <class M>
concept PointwiseLikelihoodModel = DataModel<M> && requires(const M m, const Eigen::VectorXd& x, std::size_t i) {
  { m.example_log_likelihood(x, i) } -> std::convertible_to<double>;
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

/// Optional, for a generalised linear model with a batched path: `add_batch_gradient_relative(θ, idx, c,
/// g, scale)` adds scale·Σ_k (ψ_{idx_k}(θ) − c_k)·x_{idx_k}, c one reference coefficient per batch
/// position, and leaves c_k = ψ_{idx_k}(θ). Lets the control variate (models/control_variate.hpp) keep
/// ψ_i(θ̂) per example and SAGA (models/saga.hpp) its table of ψ_i, each making its correction in one
/// gathered pass over the batch (the control variate's was two).
template <class M>
concept BatchGeneralisedLinearModel =
    GeneralisedLinearModel<M> && BatchDataModel<M> &&
    requires(const M m, const Eigen::VectorXd& x, const std::vector<std::size_t>& idx, Eigen::VectorXd& c, Eigen::VectorXd& g,
             double s) { m.add_batch_gradient_relative(x, idx, c, g, s); };

/// Optional, for a generalised linear model whose examples lie in one contiguous block: over examples
/// begin, begin + 1, …, `range_coefficients(θ, begin, ψ)` writes their ψ_i(θ) into ψ,
/// `add_range_features(begin, c, g, scale)` adds scale·Σ_k c_k x_{begin+k}, and `range_value(θ, begin,
/// z)` returns Σ_k −log p(x_{begin+k} | θ) and leaves ψ_{begin+k}(θ) in z (z: the range's length). The
/// full-data passes (the exact U and ∇U for the mode search, HMC and the estimators' centres) then run
/// as matrix–vector products over blocks instead of a dot product and an axpy per example, and U with
/// ∇U (the mode search's evaluation) as one pass.
template <class M>
concept RangeGeneralisedLinearModel =
    GeneralisedLinearModel<M> && requires(const M m, const Eigen::VectorXd& x, std::size_t i, Eigen::Ref<Eigen::VectorXd> psi,
                                          const Eigen::Ref<const Eigen::VectorXd>& c, Eigen::VectorXd& g, double s) {
      m.range_coefficients(x, i, psi);
      m.add_range_features(i, c, g, s);
      { m.range_value(x, i, psi) } -> std::convertible_to<double>;
    };

/// Optional, for a model with full-data passes of its own (models/glm/model.hpp, whose per-example
/// hooks would recompute per-batch constants for each example): `add_likelihood_gradient(θ, g)` adds
/// Σ_i ∇(−log p(x_i | θ)) over every example and `likelihood_value(θ)` returns Σ_i −log p(x_i | θ). The
/// exact U and ∇U (the mode search, HMC, the estimators' centres) then run on them.
template <class M>
concept FullDataModel = DataModel<M> && requires(const M m, const Eigen::VectorXd& x, Eigen::VectorXd& g) {
  m.add_likelihood_gradient(x, g);
  { m.likelihood_value(x) } -> std::convertible_to<double>;
};

/// Optional, for a model sampled on one scale and reported on another (models/glm/model.hpp: log σ
/// sampled, σ reported): `reported(θ)` and its inverse `sampled(y)`, which the data target offers as a
/// ReparametrisedPotential (concepts/potential.hpp).
template <class M>
concept ReparametrisedModel = DataModel<M> && requires(const M m, const Eigen::VectorXd& x) {
  { m.reported(x) } -> std::same_as<Eigen::VectorXd>;
  { m.sampled(x) } -> std::same_as<Eigen::VectorXd>;
};

/// Optional: a point in the posterior's bulk the model suggests from its data (the glm model: the
/// constant model's fit), where a mode search and the chains' random starts begin instead of 0.
template <class M>
concept ModelWithStart = DataModel<M> && requires(const M m) {
  { m.start() } -> std::same_as<Eigen::VectorXd>;
};

/// The examples a full-data pass takes at once (RangeGeneralisedLinearModel): 1024 columns of d = 50
/// doubles are 400 KB, in L2 between the two products over them.
inline constexpr std::size_t full_pass_block = 1024;

/// g += scale · Σ_{i ∈ [begin, end)} ψ_i(θ)·x_i, block by block in a fixed order (the same bits on any
/// machine of the same ISA); `psi` is scratch.
template <RangeGeneralisedLinearModel M>
void add_range_gradient(const M& model, const Eigen::VectorXd& x, std::size_t begin, std::size_t end, Eigen::VectorXd& g, double scale,
                        Eigen::VectorXd& psi) {
  psi.resize(static_cast<Eigen::Index>(std::min(full_pass_block, end - begin)));
  for (std::size_t b = begin; b < end; b += full_pass_block) {
    auto block = psi.head(static_cast<Eigen::Index>(std::min(full_pass_block, end - b)));
    model.range_coefficients(x, b, block);
    model.add_range_features(b, block, g, scale);
  }
}

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
  // Positions b·n ... b·n + n − 1 of the concatenated epochs: a batch spans at most two epochs (n ≤ N),
  // each part walked through its epoch's permutation at once (Permutation::apply: the same indices as
  // one operator() call per position, 2.4-3.3x faster).
  for (std::size_t j = 0; j < n;) {
    const std::uint64_t p = b * n + j, epoch = p / N;
    const std::size_t part = static_cast<std::size_t>(std::min<std::uint64_t>(n - j, (epoch + 1) * N - p));
    for (std::size_t k = 0; k < part; ++k) out[j + k] = static_cast<std::size_t>((p + k) % N);
    random::Permutation(N, seed, stream, epoch).apply(std::span<std::size_t>(out.data() + j, part));
    j += part;
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
    require(n >= 2 && n <= N, "batch_size: empirical_fisher needs at least 2 examples per batch, got {}", n);
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
    if constexpr (FullDataModel<M>) model.add_likelihood_gradient(x, g);
    else if constexpr (RangeGeneralisedLinearModel<M>) add_range_gradient(model, x, 0, model.size(), g, 1.0, scratch.example);
    else for (std::size_t i = 0; i < model.size(); ++i) model.add_example_gradient(x, i, g, 1.0);
  }
  double value(const Eigen::VectorXd& x) const
    requires requires(const M m, std::size_t i) { m.prior_value(x); m.example_value(x, i); }
  {
    double u = model.prior_value(x);
    if constexpr (FullDataModel<M>) {
      u += model.likelihood_value(x);
    } else if constexpr (RangeGeneralisedLinearModel<M>) {
      const std::size_t N = model.size();
      scratch.example.resize(static_cast<Eigen::Index>(std::min(full_pass_block, N)));
      for (std::size_t b = 0; b < N; b += full_pass_block)
        u += model.range_value(x, b, scratch.example.head(static_cast<Eigen::Index>(std::min(full_pass_block, N - b))));
    } else {
      for (std::size_t i = 0; i < model.size(); ++i) u += model.example_value(x, i);
    }
    return u;
  }
  /// U and ∇U from one pass over the data (PotentialWithValueAndGradient): the same blocks as `value`,
  /// each then adding its ψ-weighted features to g.
  double value_and_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const
    requires RangeGeneralisedLinearModel<M> && requires { model.prior_value(x); }
  {
    const std::size_t N = model.size();
    g.setZero(x.size());
    model.add_prior_gradient(x, g);
    double u = model.prior_value(x);
    scratch.example.resize(static_cast<Eigen::Index>(std::min(full_pass_block, N)));
    for (std::size_t b = 0; b < N; b += full_pass_block) {
      auto psi = scratch.example.head(static_cast<Eigen::Index>(std::min(full_pass_block, N - b)));
      u += model.range_value(x, b, psi);
      model.add_range_features(b, psi, g, 1.0);
    }
    return u;
  }
};

/// Minibatch over `model` with batches of n drawn in `sampling` order (member-wise, so the scratch
/// buffers need no initialiser at the call site).
template <DataModel M>
Minibatch<M> minibatch(M model, std::size_t n, Sampling sampling) {
  Minibatch<M> p;
  p.model = std::move(model);
  p.batch_size = n;
  p.sampling = sampling;
  return p;
}

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
