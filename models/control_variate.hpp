#pragma once
// The control-variate stochastic gradient (Baker, Fearnhead, Fox & Nemeth 2019, "Control variates for
// stochastic gradient MCMC", Eq. 4): with a centre θ̂ (a posterior mode) and the full-data likelihood
// gradient there computed once,
//   ∇Ũ(θ) = ∇(-log p(θ)) + Σ_{i=1}^N ∇u_i(θ̂) + (N/n) Σ_{i ∈ batch} [∇u_i(θ) − ∇u_i(θ̂)],
// u_i = -log p(x_i | θ). Unbiased for ∇U(θ) under any batch order (each example's expected weight in a
// batch is n/N); its noise shrinks like ‖θ − θ̂‖², so near the mode it is far below the plain
// minibatch gradient's, which does not shrink at all (Baker et al., §3). The prior is exact at θ.
// Batches come from the minibatch base (the same (seed, chain, b) → examples map), so a resumed run
// draws the same batches and the estimator holds no state beyond its centre.
#include <algorithm>
#include <utility>

#include <Eigen/Core>

#include <sgmcmc/models/minibatch.hpp>

namespace sgmcmc::models {

template <DataModel M>
struct ControlVariate {
  Minibatch<M> base;                 ///< the model, the batch size and the batch order
  Eigen::VectorXd centre;            ///< θ̂
  Eigen::VectorXd centre_likelihood; ///< Σ_{i=1}^N ∇u_i(θ̂): one full pass, made by `at`
  /// A generalised linear model with a batched path (BatchGeneralisedLinearModel) keeps ψ_i(θ̂) per
  /// example (N numbers): ∇u_i(θ) − ∇u_i(θ̂) = (ψ_i(θ) − ψ_i(θ̂))·x_i, so a step gathers its batch once
  /// instead of twice (half the step's cost: docs/benchmarks.md). Empty for any other model.
  Eigen::VectorXd centre_coefficients{};
  mutable Eigen::VectorXd batch_reference{};  ///< scratch: the batch's ψ_i(θ̂)

  static constexpr bool scalar_centre = BatchGeneralisedLinearModel<M>;

  /// The estimator centred at θ̂: computes the full-data likelihood gradient there (N example
  /// gradients, the estimator's one-off cost).
  static ControlVariate at(Minibatch<M> base, Eigen::VectorXd centre) {
    ControlVariate cv{std::move(base), {}, {}};
    cv.recentre(std::move(centre));
    return cv;
  }
  /// Moves the centre to θ̂ (SVRG's refresh, models/svrg.hpp): one full pass.
  void recentre(Eigen::VectorXd c) {
    centre = std::move(c);
    centre_likelihood.setZero(centre.size());
    const std::size_t N = base.model.size();
    if constexpr (scalar_centre) {
      centre_coefficients.resize(static_cast<Eigen::Index>(N));
      if constexpr (RangeGeneralisedLinearModel<M>) {
        for (std::size_t b = 0; b < N; b += full_pass_block) {
          auto block = centre_coefficients.segment(static_cast<Eigen::Index>(b), static_cast<Eigen::Index>(std::min(full_pass_block, N - b)));
          base.model.range_coefficients(centre, b, block);
          base.model.add_range_features(b, block, centre_likelihood, 1.0);
        }
      } else {
        for (std::size_t i = 0; i < N; ++i) {
          centre_coefficients[static_cast<Eigen::Index>(i)] = base.model.example_coefficient(centre, i);
          base.model.add_example_features(i, centre_likelihood, centre_coefficients[static_cast<Eigen::Index>(i)]);
        }
      }
    } else {
      for (std::size_t i = 0; i < N; ++i) base.model.add_example_gradient(centre, i, centre_likelihood, 1.0);
    }
  }

  std::size_t size() const { return base.size(); }

  /// The control-variate gradient on the next batch of the engine's stream.
  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& rng) const {
    const auto& idx = base.draw_batch(rng);
    const double scale = base.batch_scale();
    g = centre_likelihood;
    base.model.add_prior_gradient(x, g);
    if constexpr (scalar_centre) {
      batch_reference.resize(static_cast<Eigen::Index>(idx.size()));
      for (std::size_t k = 0; k < idx.size(); ++k) batch_reference[static_cast<Eigen::Index>(k)] = centre_coefficients[static_cast<Eigen::Index>(idx[k])];
      base.model.add_batch_gradient_relative(x, idx, batch_reference, g, scale);
    } else {
      base.add_batch(x, idx, g, scale);
      base.add_batch(centre, idx, g, -scale);
    }
  }
  double value(const Eigen::VectorXd& x) const
    requires requires { base.value(x); }
  {
    return base.value(x);
  }
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const { base.exact_gradient(x, g); }
};

}  // namespace sgmcmc::models
