#pragma once
// A model whose likelihood depends on the regression coefficients β only through a linear predictor
// η_i = x_iᵀβ, written once by the user over a generic scalar (the GLM-like models: a logistic or a
// Poisson regression, a zero-inflated or hurdle count model, a censored or robust regression):
//   θ = (β, φ),  β ∈ R^K (K = the rows of the feature matrix X), φ ∈ R^P a few global parameters
//   (a dispersion, a zero-inflation logit; P = `L::globals`, 0 when absent),
//   U(θ) = −log p(θ) − Σ_i ℓ_i(η_i, φ),   ℓ_i = the user's `log_likelihood(i, η, φ)`.
// By the chain rule ∇_β(−ℓ_i) = ψ_i x_i with ψ_i = −∂ℓ_i/∂η_i, and ∇_φ(−ℓ_i) = −∂ℓ_i/∂φ: the only
// derivatives needed are those of ℓ_i in its P + 1 scalar arguments, which one Dual<P + 1>
// (models/autodiff/dual.hpp) gives at the cost of one evaluation of ℓ_i. A batch then costs what a
// hand-written GLM costs: the batch's columns gathered into X_b (K × n), η = X_bᵀβ by one
// matrix–vector product, one dual evaluation per example, and ∇_β = X_b ψ by a second product (as
// models/logistic.hpp's add_batch_gradient; docs/benchmarks.md measures the two side by side).
//
// It is a models::DataModel with every optional hook the structure allows: the batch path
// (BatchDataModel), full-data passes in blocks (FullDataModel), the exact U (prior_value,
// example_value) and the pointwise log-likelihood (PointwiseLikelihoodModel); with no global parameters
// (P = 0) an example's gradient is the scalar ψ_i times fixed features, so it is also a
// GeneralisedLinearModel with the batched relative and range hooks: the control variate keeps one ψ_i
// per example and SAGA a table of N numbers (models/control_variate.hpp, models/saga.hpp). With P > 0
// the φ-block of a gradient is not a scalar times x_i, so SAGA keeps d-vectors (as models/glm/model.hpp).
#include <array>
#include <concepts>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <sgmcmc/models/autodiff/dual.hpp>
#include <sgmcmc/models/autodiff/prior.hpp>
#include <sgmcmc/models/minibatch.hpp>

namespace sgmcmc::models::autodiff {

/// P, the number of global parameters a likelihood declares as `static constexpr int globals`; 0 if none.
template <class L>
consteval int globals_of() {
  if constexpr (requires { { L::globals } -> std::convertible_to<int>; }) return L::globals;
  else return 0;
}

/// `log_likelihood(i, η)` (no globals) or `log_likelihood(i, η, φ)` with φ a std::array<T, P>
/// (`static constexpr int globals = P`): log p(y_i | η_i, φ) of example i, for T = double and
/// T = Dual<P + 1>, every constant included (it is also the pointwise log-likelihood LOO reads). The
/// example's own data (its response, exposure, group) the type holds itself.
/// @code
/// struct Logistic {  // y_i ∈ {0, 1}, P(y_i = 1) = σ(η_i)
///   std::shared_ptr<const Eigen::VectorXd> y;
///   template <class T> T log_likelihood(std::size_t i, const T& eta) const {
///     return (*y)[i] * eta - autodiff::softplus(eta); }
/// };
/// @endcode
template <class L>
concept LikelihoodOfLinearPredictor =
    (globals_of<L>() == 0 && requires(const L l, std::size_t i, double e, Dual<1> ed) {
      { l.log_likelihood(i, e) } -> std::convertible_to<double>;
      { l.log_likelihood(i, ed) } -> std::same_as<Dual<1>>;
    }) ||
    (globals_of<L>() > 0 &&
     requires(const L l, std::size_t i, double e, Dual<globals_of<L>() + 1> ed, const std::array<double, globals_of<L>()>& phi,
              const std::array<Dual<globals_of<L>() + 1>, globals_of<L>()>& phid) {
       { l.log_likelihood(i, e, phi) } -> std::convertible_to<double>;
       { l.log_likelihood(i, ed, phid) } -> std::same_as<Dual<globals_of<L>() + 1>>;
     });

/// What a linear-predictor model is written from: the likelihood of η and the log-prior of θ = (β, φ).
template <class L>
concept LinearPredictorSpec = LikelihoodOfLinearPredictor<L> && LogPrior<L>;

template <LinearPredictorSpec L>
struct LinearPredictorModel {
  static constexpr int P = globals_of<L>();
  using D = Dual<P + 1>;  ///< direction 0: η; directions 1..P: φ

  L spec;                                    ///< the user's likelihood and prior
  std::shared_ptr<const Eigen::MatrixXd> x;  ///< the features X, K × N (example i is column i), shared by copies
  /// Scratch, reused (no allocation after the first batch); one model object per thread, as
  /// models/logistic.hpp's. The `{}` keeps `LinearPredictorModel<L>{spec, x}` warning-free.
  struct Scratch {
    Eigen::MatrixXd x;        ///< the batch's columns X_b
    Eigen::VectorXd eta;      ///< η, then ψ, over a batch or a block
    Vector<Dual<chunk>> seeded;  ///< a VectorPrior's forward-mode θ
  };
  mutable Scratch scratch{};

  std::size_t size() const { return static_cast<std::size_t>(x->cols()); }
  Eigen::Index predictors() const { return x->rows(); }
  Eigen::Index dim() const { return predictors() + P; }

  // ---- the prior ---------------------------------------------------------------------------------
  double prior_value(const Eigen::VectorXd& theta) const { return -log_prior_value(spec, theta); }
  void add_prior_gradient(const Eigen::VectorXd& theta, Eigen::VectorXd& g) const {
    add_negative_log_prior_gradient(spec, theta, g, scratch.seeded);
  }

  // ---- one example -------------------------------------------------------------------------------
  double linear_predictor(const Eigen::VectorXd& theta, std::size_t i) const {
    return theta.head(predictors()).dot(x->col(static_cast<Eigen::Index>(i)));
  }
  /// log p(y_i | θ) (PointwiseLikelihoodModel).
  double example_log_likelihood(const Eigen::VectorXd& theta, std::size_t i) const {
    return call(i, linear_predictor(theta, i), globals<double>(theta));
  }
  double example_value(const Eigen::VectorXd& theta, std::size_t i) const { return -example_log_likelihood(theta, i); }
  /// g += scale · ∇(−ℓ_i)(θ).
  void add_example_gradient(const Eigen::VectorXd& theta, std::size_t i, Eigen::VectorXd& g, double scale) const {
    std::array<double, P> dphi{};
    const double psi = coefficient(i, linear_predictor(theta, i), globals<D>(theta), dphi);
    g.head(predictors()).noalias() += (scale * psi) * x->col(static_cast<Eigen::Index>(i));
    for (int j = 0; j < P; ++j) g[predictors() + j] += scale * dphi[static_cast<std::size_t>(j)];
  }

  // ---- a batch: gather, η by one product, one dual per example, ∇_β by a second product -----------
  /// g += scale · Σ_{i ∈ idx} ∇(−ℓ_i)(θ) (BatchDataModel); a repeated index counts once per occurrence.
  void add_batch_gradient(const Eigen::VectorXd& theta, const std::vector<std::size_t>& idx, Eigen::VectorXd& g, double scale) const {
    const auto n = static_cast<Eigen::Index>(idx.size());
    gather(theta, idx);
    std::array<double, P> dphi{};
    auto psi = scratch.eta.head(n);
    coefficients(theta, psi, [&](Eigen::Index k) { return idx[static_cast<std::size_t>(k)]; }, dphi);
    add_features(scratch.x.leftCols(n), psi, g, scale, dphi);
  }

  // ---- every example, block by block (FullDataModel) -----------------------------------------------
  void add_likelihood_gradient(const Eigen::VectorXd& theta, Eigen::VectorXd& g) const {
    for_blocks([&](std::size_t b, Eigen::Ref<Eigen::VectorXd> e) {
      std::array<double, P> dphi{};
      const auto cols = x->middleCols(static_cast<Eigen::Index>(b), e.size());
      e.noalias() = cols.transpose() * theta.head(predictors());
      coefficients(theta, e, [b](Eigen::Index k) { return b + static_cast<std::size_t>(k); }, dphi);
      add_features(cols, e, g, 1.0, dphi);
    });
  }
  double likelihood_value(const Eigen::VectorXd& theta) const {
    double u = 0;
    const auto phi = globals<double>(theta);
    for_blocks([&](std::size_t b, Eigen::Ref<Eigen::VectorXd> e) {
      e.noalias() = x->middleCols(static_cast<Eigen::Index>(b), e.size()).transpose() * theta.head(predictors());
      for (Eigen::Index k = 0; k < e.size(); ++k) u -= call(b + static_cast<std::size_t>(k), e[k], phi);
    });
    return u;
  }

  // ---- the GeneralisedLinearModel hooks (no global parameters) ------------------------------------
  /// ψ_i(θ) = −∂ℓ_i/∂η_i: example i's gradient is ψ_i·x_i.
  double example_coefficient(const Eigen::VectorXd& theta, std::size_t i) const
    requires(P == 0)
  {
    std::array<double, P> none{};
    return coefficient(i, linear_predictor(theta, i), globals<D>(theta), none);
  }
  void add_example_features(std::size_t i, Eigen::VectorXd& g, double scale) const
    requires(P == 0)
  {
    g.noalias() += scale * x->col(static_cast<Eigen::Index>(i));
  }
  /// g += scale · Σ_k (ψ_{idx_k}(θ) − c_k) x_{idx_k}, then c_k ← ψ_{idx_k}(θ) (BatchGeneralisedLinearModel).
  void add_batch_gradient_relative(const Eigen::VectorXd& theta, const std::vector<std::size_t>& idx, Eigen::VectorXd& c,
                                   Eigen::VectorXd& g, double scale) const
    requires(P == 0)
  {
    const auto n = static_cast<Eigen::Index>(idx.size());
    gather(theta, idx);
    std::array<double, P> none{};
    auto r = scratch.eta.head(n);
    coefficients(theta, r, [&](Eigen::Index k) { return idx[static_cast<std::size_t>(k)]; }, none);
    for (Eigen::Index k = 0; k < n; ++k) std::swap(r[k], c[k]), r[k] = c[k] - r[k];
    g.noalias() += scale * (scratch.x.leftCols(n) * r);
  }
  /// ψ_i(θ) for the examples begin, begin + 1, … (RangeGeneralisedLinearModel).
  void range_coefficients(const Eigen::VectorXd& theta, std::size_t begin, Eigen::Ref<Eigen::VectorXd> psi) const
    requires(P == 0)
  {
    std::array<double, P> none{};
    psi.noalias() = x->middleCols(static_cast<Eigen::Index>(begin), psi.size()).transpose() * theta.head(predictors());
    coefficients(theta, psi, [begin](Eigen::Index k) { return begin + static_cast<std::size_t>(k); }, none);
  }
  void add_range_features(std::size_t begin, const Eigen::Ref<const Eigen::VectorXd>& c, Eigen::VectorXd& g, double scale) const
    requires(P == 0)
  {
    g.noalias() += scale * (x->middleCols(static_cast<Eigen::Index>(begin), c.size()) * c);
  }
  /// Σ_k −ℓ_{begin+k}(θ), leaving ψ_{begin+k}(θ) in z.
  double range_value(const Eigen::VectorXd& theta, std::size_t begin, Eigen::Ref<Eigen::VectorXd> z) const
    requires(P == 0)
  {
    std::array<double, P> none{};
    z.noalias() = x->middleCols(static_cast<Eigen::Index>(begin), z.size()).transpose() * theta.head(predictors());
    return coefficients(theta, z, [begin](Eigen::Index k) { return begin + static_cast<std::size_t>(k); }, none);
  }

 private:
  /// φ as T: plain values (double), or seeded along directions 1..P (D).
  template <class T>
  std::array<T, P> globals(const Eigen::VectorXd& theta) const {
    std::array<T, P> phi{};
    for (int j = 0; j < P; ++j) {
      if constexpr (std::same_as<T, double>) phi[static_cast<std::size_t>(j)] = theta[predictors() + j];
      else phi[static_cast<std::size_t>(j)] = D::variable(theta[predictors() + j], j + 1);
    }
    return phi;
  }
  template <class T>
  T call(std::size_t i, const T& eta, const std::array<T, P>& phi) const {
    if constexpr (P == 0) return spec.log_likelihood(i, eta);
    else return spec.log_likelihood(i, eta, phi);
  }
  /// ψ_i = −∂ℓ_i/∂η at η, and dphi += −∂ℓ_i/∂φ; returns −ℓ_i.
  double coefficient(std::size_t i, double eta, const std::array<D, P>& phi, std::array<double, P>& dphi, double* value = nullptr) const {
    const D r = call(i, D::variable(eta, 0), phi);
    for (int j = 0; j < P; ++j) dphi[static_cast<std::size_t>(j)] -= r.d[j + 1];
    if (value) *value -= r.v;
    return -r.d[0];
  }
  /// e_k ← ψ_{example(k)} for e_k = η_{example(k)}, dphi += Σ_k −∂ℓ/∂φ; returns Σ_k −ℓ.
  template <class Example>
  double coefficients(const Eigen::VectorXd& theta, Eigen::Ref<Eigen::VectorXd> e, const Example& example, std::array<double, P>& dphi) const {
    const auto phi = globals<D>(theta);
    double u = 0;
    for (Eigen::Index k = 0; k < e.size(); ++k) e[k] = coefficient(example(k), e[k], phi, dphi, &u);
    return u;
  }
  /// g_β += scale · X ψ, g_φ += scale · dphi.
  template <class X>
  void add_features(const X& cols, const Eigen::Ref<const Eigen::VectorXd>& psi, Eigen::VectorXd& g, double scale,
                    const std::array<double, P>& dphi) const {
    g.head(predictors()).noalias() += scale * (cols * psi);
    for (int j = 0; j < P; ++j) g[predictors() + j] += scale * dphi[static_cast<std::size_t>(j)];
  }
  /// Gathers the batch's columns into scratch.x and sets scratch.eta's head to η = X_bᵀβ.
  void gather(const Eigen::VectorXd& theta, const std::vector<std::size_t>& idx) const {
    const auto n = static_cast<Eigen::Index>(idx.size());
    // The scratch only grows (a shard's part of a batch changes size every step; models/logistic.hpp).
    if (scratch.x.rows() != predictors() || scratch.x.cols() < n) scratch.x.resize(predictors(), n);
    if (scratch.eta.size() < n) scratch.eta.resize(n);
    auto xb = scratch.x.leftCols(n);
    // Every column's cache lines asked for before any is copied (models/logistic.hpp's gather).
    const double* base = x->data();
    const Eigen::Index K = predictors();
    for (Eigen::Index k = 0; k < n; ++k) {
      const double* col = base + static_cast<Eigen::Index>(idx[static_cast<std::size_t>(k)]) * K;
      for (Eigen::Index j = 0; j < K; j += 8) __builtin_prefetch(col + j);
    }
    for (Eigen::Index k = 0; k < n; ++k) xb.col(k) = x->col(static_cast<Eigen::Index>(idx[static_cast<std::size_t>(k)]));
    scratch.eta.head(n).noalias() = xb.transpose() * theta.head(predictors());
  }
  /// f(b, e) for each block [b, b + e.size()) of full_pass_block examples, e scratch of that size.
  template <class F>
  void for_blocks(const F& f) const {
    const std::size_t N = size();
    if (scratch.eta.size() < static_cast<Eigen::Index>(std::min(full_pass_block, N)))
      scratch.eta.resize(static_cast<Eigen::Index>(std::min(full_pass_block, N)));
    for (std::size_t b = 0; b < N; b += full_pass_block) f(b, scratch.eta.head(static_cast<Eigen::Index>(std::min(full_pass_block, N - b))));
  }
};

/// The model of `spec` on the features X (K × N, example i in column i).
template <LinearPredictorSpec L>
LinearPredictorModel<L> linear_predictor_model(L spec, Eigen::MatrixXd x) {
  return {std::move(spec), std::make_shared<const Eigen::MatrixXd>(std::move(x))};
}

}  // namespace sgmcmc::models::autodiff
