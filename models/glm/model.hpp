#pragma once
// The generalised linear model of the glm target (brms's `brm(y ~ x₁ + … + x_K, family = …)`), a
// DataModel for models::Minibatch:
//   η_i = α_c + Σ_k b_k (x_ik − x̄_k),   y_i ~ family(g⁻¹(η_i), aux),
// with the predictors centred by their column means as brms does when the model has an intercept (brms
// reference manual, brmsformula, "Parameterization of the population-level intercept"): the intercept
// α_c of the centred design is nearly uncorrelated with the slopes, so the posterior is far better
// conditioned, and the intercept of the original design, b_Intercept = α_c − Σ_k b_k x̄_k, is reported.
// As in brms, the prior of class `Intercept` is on α_c; without an intercept nothing is centred.
//
// θ = (α_c, b_1, …, b_K, u_1, …, u_A): the intercept (when there is one), the slopes, then the
// family's auxiliary parameters on the log scale u = log(aux) (models/glm/constrain.hpp; brms's order:
// sigma, then nu). The potential is
//   U(θ) = −log p(α_c) − Σ_k log p(b_k) − Σ_a log p_u(u_a) − Σ_i ℓ(y_i | η_i, e^{u}),
// every term a normalised log density (so −U is the log posterior up to the evidence only, and ℓ_i
// serves PSIS-LOO as it is). ∇U: ∂ℓ_i/∂α_c = ∂ℓ_i/∂η_i, ∂ℓ_i/∂b = (∂ℓ_i/∂η_i)(x_i − x̄), and the
// families' own ∂ℓ_i/∂u (models/glm/family.hpp).
//
// The family is a std::variant (models/glm/any_family.hpp) visited once per batch or block: the loop
// over the examples runs on the concrete (family, link) type. The batch path gathers the batch's centred
// predictors into one K × n matrix (as models/logistic.hpp does): η by one matrix–vector product, the
// slopes' gradient by another. Full-data passes (`add_likelihood_gradient`, `likelihood_value`:
// models::Minibatch's exact gradient and value; `pointwise_log_likelihood` for LOO) walk contiguous
// blocks with no gather. The per-example
// hooks (`add_example_gradient`, `example_value`) visit the variant and recompute the auxiliaries'
// constants (log Γ, ψ) for each example: they serve the empirical-Fisher variance, SAGA and LOO, not the
// step.
//
// Not a GeneralisedLinearModel in models/minibatch.hpp's sense: with auxiliary parameters an example's
// gradient is not a scalar times fixed features (the u-block is not), so SAGA keeps d numbers per
// example and the control variate its vector centre.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/models/glm/any_family.hpp>
#include <sgmcmc/models/glm/constrain.hpp>
#include <sgmcmc/models/glm/prior.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::models::glm {

/// A regression's data: the predictors K × N (one column per example, on their original scale), the
/// responses, and (binomial only) the trials per example. `predictors` names the K rows (for brms's
/// parameter names; may be empty).
struct GlmData {
  Eigen::MatrixXd x;
  Eigen::VectorXd y;
  Eigen::VectorXd trials{};  ///< N entries for binomial, else empty (1 is read)
  std::vector<std::string> predictors{};
};

/// The priors by brms's classes: `Intercept` (on the centred intercept α_c), one per slope `b` (empty:
/// all flat), one per auxiliary parameter in the family's order (empty: all flat). Flat is brms's and
/// Stan's default.
struct GlmPriors {
  Prior intercept = Flat{};
  std::vector<Prior> b{};
  std::vector<Prior> aux{};
};

/// What the model is built on, shared by the copies of a model (one per chain): the design as the
/// model reads it (centred when `centred`), the column means, the responses and trials.
struct GlmDesign {
  Eigen::MatrixXd x;       ///< K × N, centred by `means` when the model has an intercept and centres
  Eigen::VectorXd means;   ///< x̄_k (zeros when not centred)
  Eigen::VectorXd y;
  Eigen::VectorXd trials;  ///< N entries (ones unless binomial)
  std::vector<std::string> predictors;
  bool intercept = true;
  bool centred = true;
  Eigen::VectorXd start{};  ///< Glm::start on the whole data (empty until make_glm sets it)
};

struct Glm {
  AnyFamily family;
  std::shared_ptr<const GlmDesign> design;
  Prior intercept_prior = Flat{};
  std::vector<Prior> b_priors;
  std::vector<PositivePrior> aux_priors;
  /// Scratch for the batch path, reused (as LogisticRegression's: one model object per thread).
  struct BatchScratch {
    Eigen::MatrixXd x;
    Eigen::VectorXd y, trials, eta;
  };
  mutable BatchScratch batch{};

  std::size_t size() const { return static_cast<std::size_t>(design->y.size()); }
  Eigen::Index predictors() const { return design->x.rows(); }
  Eigen::Index intercept_size() const { return design->intercept ? 1 : 0; }
  Eigen::Index aux_size() const { return static_cast<Eigen::Index>(glm::aux_size(family)); }
  /// Where the auxiliary parameters start in θ.
  Eigen::Index aux_offset() const { return intercept_size() + predictors(); }
  Eigen::Index dim() const { return aux_offset() + aux_size(); }

  // ---- the prior (with the auxiliaries' Jacobians) -------------------------------------------------
  double prior_value(const Eigen::VectorXd& theta) const {
    double lp = 0;
    const Eigen::Index o = intercept_size();
    if (design->intercept) lp += log_density(intercept_prior, theta[0]);
    for (Eigen::Index k = 0; k < predictors(); ++k) lp += log_density(b_priors[static_cast<std::size_t>(k)], theta[o + k]);
    for (Eigen::Index a = 0; a < aux_size(); ++a)
      lp += log_density_unconstrained(aux_priors[static_cast<std::size_t>(a)], theta[aux_offset() + a]);
    return -lp;
  }
  void add_prior_gradient(const Eigen::VectorXd& theta, Eigen::VectorXd& g) const {
    const Eigen::Index o = intercept_size();
    if (design->intercept) g[0] -= d_log_density(intercept_prior, theta[0]);
    for (Eigen::Index k = 0; k < predictors(); ++k) g[o + k] -= d_log_density(b_priors[static_cast<std::size_t>(k)], theta[o + k]);
    for (Eigen::Index a = 0; a < aux_size(); ++a)
      g[aux_offset() + a] -= d_log_density_unconstrained(aux_priors[static_cast<std::size_t>(a)], theta[aux_offset() + a]);
  }

  // ---- one example -------------------------------------------------------------------------------------
  /// η_i = α_c + bᵀ(x_i − x̄).
  double linear_predictor(const Eigen::VectorXd& theta, std::size_t i) const {
    const auto col = design->x.col(static_cast<Eigen::Index>(i));
    return (design->intercept ? theta[0] : 0.0) + theta.segment(intercept_size(), predictors()).dot(col);
  }
  /// log p(y_i | θ), every constant included (PointwiseLikelihoodModel: PSIS-LOO, WAIC).
  double example_log_likelihood(const Eigen::VectorXd& theta, std::size_t i) const {
    const auto k = static_cast<Eigen::Index>(i);
    const double eta = linear_predictor(theta, i);
    return std::visit([&]<class F>(const F& f) { return f.log_lik(f.params(aux_of<F>(theta)), design->y[k], design->trials[k], eta); },
                      family);
  }
  double example_value(const Eigen::VectorXd& theta, std::size_t i) const { return -example_log_likelihood(theta, i); }
  /// g += scale · ∇(−ℓ_i)(θ).
  void add_example_gradient(const Eigen::VectorXd& theta, std::size_t i, Eigen::VectorXd& g, double scale) const {
    const auto k = static_cast<Eigen::Index>(i);
    const double eta = linear_predictor(theta, i);
    std::array<double, 2> d_aux{0, 0};
    const double d_eta = std::visit(
        [&]<class F>(const F& f) {
          return f.gradient(f.params(aux_of<F>(theta)), design->y[k], design->trials[k], eta, std::span<double>(d_aux.data(), aux_count<F>));
        },
        family);
    if (design->intercept) g[0] -= scale * d_eta;
    g.segment(intercept_size(), predictors()).noalias() -= (scale * d_eta) * design->x.col(k);
    for (Eigen::Index a = 0; a < aux_size(); ++a) g[aux_offset() + a] -= scale * d_aux[static_cast<std::size_t>(a)];
  }

  // ---- a batch: one gather, one visit ---------------------------------------------------------------
  /// g += scale · Σ_{i ∈ idx} ∇(−ℓ_i)(θ) (BatchDataModel), a repeated index counted once per occurrence.
  void add_batch_gradient(const Eigen::VectorXd& theta, const std::vector<std::size_t>& idx, Eigen::VectorXd& g, double scale) const {
    const auto n = static_cast<Eigen::Index>(idx.size());
    const Eigen::Index K = predictors();
    auto& [xs, ys, ts, es] = batch;
    if (xs.rows() != K || xs.cols() < n) xs.resize(K, n), ys.resize(n), ts.resize(n), es.resize(n);
    // Ask for every column's cache lines before copying any (as LogisticRegression::gather_residuals:
    // the columns lie scattered over the data set).
    for (Eigen::Index j = 0; j < n; ++j) {
      const double* col = design->x.data() + static_cast<Eigen::Index>(idx[static_cast<std::size_t>(j)]) * K;
      for (Eigen::Index k = 0; k < K; k += 8) __builtin_prefetch(col + k);
    }
    for (Eigen::Index j = 0; j < n; ++j) {
      const auto i = static_cast<Eigen::Index>(idx[static_cast<std::size_t>(j)]);
      xs.col(j) = design->x.col(i);
      ys[j] = design->y[i];
      ts[j] = design->trials[i];
    }
    pass(theta, xs.leftCols(n), ys.head(n), ts.head(n), g, scale);
  }

  // ---- the whole data set, block by block -----------------------------------------------------------
  /// g += Σ_i ∇(−ℓ_i)(θ) over every example.
  void add_likelihood_gradient(const Eigen::VectorXd& theta, Eigen::VectorXd& g) const {
    const Eigen::Index N = design->y.size();
    for (Eigen::Index b = 0; b < N; b += static_cast<Eigen::Index>(full_pass_block)) {
      const Eigen::Index m = std::min<Eigen::Index>(static_cast<Eigen::Index>(full_pass_block), N - b);
      pass(theta, design->x.middleCols(b, m), design->y.segment(b, m), design->trials.segment(b, m), g, 1.0);
    }
  }
  /// Σ_i −ℓ_i(θ) over every example.
  double likelihood_value(const Eigen::VectorXd& theta) const {
    const Eigen::Index N = design->y.size();
    double u = 0;
    for (Eigen::Index b = 0; b < N; b += static_cast<Eigen::Index>(full_pass_block)) {
      const Eigen::Index m = std::min<Eigen::Index>(static_cast<Eigen::Index>(full_pass_block), N - b);
      if (batch.eta.size() < m) batch.eta.resize(m);
      auto l = batch.eta.head(m);
      log_lik_block(theta, b, l);
      u -= l.sum();
    }
    return u;
  }
  /// out_i = log p(y_i | θ) for every example (out: size N), block by block with the auxiliaries'
  /// constants computed once per block: the pointwise log-likelihood a run writes for LOO at each
  /// kept draw, without example_log_likelihood's per-example visit.
  void pointwise_log_likelihood(const Eigen::VectorXd& theta, Eigen::Ref<Eigen::VectorXd> out) const {
    const Eigen::Index N = design->y.size();
    require(out.size() == N, "glm: pointwise log-likelihood of {} examples into {} numbers", N, out.size());
    for (Eigen::Index b = 0; b < N; b += static_cast<Eigen::Index>(full_pass_block)) {
      const Eigen::Index m = std::min<Eigen::Index>(static_cast<Eigen::Index>(full_pass_block), N - b);
      log_lik_block(theta, b, out.segment(b, m));
    }
  }

  // ---- start ----------------------------------------------------------------------------------------
  /// A start for the mode search and the chains' random starts (models::ModelWithStart): the constant
  /// model's fit — the intercept g(ȳ) (a proportion's (Σy + ½)/(Σn + 1), a count's at least 0.1, so
  /// that g is finite), the slopes 0, each auxiliary parameter its moment estimate (σ the sd of y, the
  /// gamma's shape ȳ²/s², the negative binomial's ȳ²/(s² − ȳ), ν 10, the mode of its default prior) —
  /// as R's glm.fit starts from the data rather than from 0. From θ = 0 (σ = 1 and an intercept 0
  /// against responses near 90) L-BFGS stalled on the issue's own example: ∂U/∂log σ was 10⁵ times
  /// ∂U/∂b there.
  /// Computed once from the whole data set by make_glm and kept in the design, so a shard's part
  /// (rows_of) starts where the whole model does.
  Eigen::VectorXd start() const { return design->start.size() == dim() ? design->start : constant_fit(); }
  Eigen::VectorXd constant_fit() const {
    Eigen::VectorXd theta = Eigen::VectorXd::Zero(dim());
    const Eigen::VectorXd& y = design->y;
    const std::string_view fam = family_name(family);
    const double n = static_cast<double>(y.size()), mean = y.mean();
    const double var = n > 1 ? (y.array() - mean).square().sum() / (n - 1) : 0.0;
    const bool proportion = fam == "bernoulli" || fam == "binomial", count = fam == "poisson" || fam == "negative_binomial";
    const double mu = proportion ? (y.sum() + 0.5) / (design->trials.sum() + 1) : count ? std::max(mean, 0.1) : mean;
    if (design->intercept) {
      const double eta = std::visit([mu]<class F>(const F&) { return link_type<F>::link(mu); }, family);
      if (std::isfinite(eta)) theta[0] = eta;  // else (a log link on a mean ≤ 0) 0
    }
    const auto clamp_log = [](double x) { return std::log(std::clamp(std::isfinite(x) ? x : 1.0, 1e-3, 1e6)); };
    for (Eigen::Index a = 0; a < aux_size(); ++a) {
      const std::string_view name = aux_name(family, static_cast<std::size_t>(a));
      double value = 1;
      if (name == "sigma") value = var > 0 ? std::sqrt(var) : 1.0;
      else if (name == "nu") value = 10;
      else if (name == "shape") value = fam == "gamma" ? (var > 0 ? mean * mean / var : 1e6) : (var > mean ? mean * mean / (var - mean) : 1e6);
      theta[aux_offset() + a] = clamp_log(value);
    }
    return theta;
  }

  // ---- reporting --------------------------------------------------------------------------------------
  /// The draw as brms reports it (models::ReparametrisedModel): (b_Intercept, b_1, …, b_K, aux_1, …)
  /// with b_Intercept = α_c − bᵀx̄ on the original design and the auxiliaries on their own (positive)
  /// scale.
  Eigen::VectorXd reported(const Eigen::VectorXd& theta) const {
    Eigen::VectorXd out = theta;
    if (design->intercept) out[0] = theta[0] - theta.segment(1, predictors()).dot(design->means);
    for (Eigen::Index a = aux_offset(); a < dim(); ++a) out[a] = constrain(theta[a]);
    return out;
  }
  /// The inverse of `reported`: a draw read back, or an initial point given on the reported scale. An
  /// auxiliary that is not a positive finite number has no sampled value: an Error names it.
  Eigen::VectorXd sampled(const Eigen::VectorXd& reported) const {
    require(reported.size() == dim(), "glm: a point of {} numbers, expected {}", reported.size(), dim());
    Eigen::VectorXd out = reported;
    if (design->intercept) out[0] = reported[0] + reported.segment(1, predictors()).dot(design->means);
    for (Eigen::Index a = aux_offset(); a < dim(); ++a) {
      if (!(reported[a] > 0 && std::isfinite(reported[a])))
        throw Error(fmt::format("{} (coordinate {}) is {}: expected a positive number", aux_name(family, static_cast<std::size_t>(a - aux_offset())),
                                a, reported[a]));
      out[a] = unconstrain(reported[a]);
    }
    return out;
  }
  /// brms's names of the reported parameters: b_Intercept, b_<predictor>…, then sigma, shape, nu.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    if (design->intercept) out.emplace_back("b_Intercept");
    for (Eigen::Index k = 0; k < predictors(); ++k)
      out.push_back(static_cast<std::size_t>(k) < design->predictors.size() ? "b_" + design->predictors[static_cast<std::size_t>(k)]
                                                                             : fmt::format("b_{}", k + 1));
    for (Eigen::Index a = 0; a < aux_size(); ++a) out.emplace_back(aux_name(family, static_cast<std::size_t>(a)));
    return out;
  }

 private:
  template <class F>
  std::span<const double> aux_of(const Eigen::VectorXd& theta) const {
    return {theta.data() + aux_offset(), aux_count<F>};
  }
  /// out_j = ℓ(y_{b+j} | η_{b+j}) for the examples b, …, b + out.size() − 1: one product for η, one visit.
  template <class O>
  void log_lik_block(const Eigen::VectorXd& theta, Eigen::Index b, O&& out) const {
    const Eigen::Index m = out.size();
    out.noalias() = design->x.middleCols(b, m).transpose() * theta.segment(intercept_size(), predictors());
    if (design->intercept) out.array() += theta[0];
    const auto y = design->y.segment(b, m);
    const auto t = design->trials.segment(b, m);
    std::visit(
        [&]<class F>(const F& f) {
          const auto p = f.params(aux_of<F>(theta));
          for (Eigen::Index j = 0; j < m; ++j) out[j] = f.log_lik(p, y[j], t[j], out[j]);
        },
        family);
  }
  /// Over the examples in the columns of X (their responses y, trials t): adds scale · Σ ∇(−ℓ_i) to grad.
  /// One visit; the loop runs on the concrete family.
  template <class X, class Y, class T>
  void pass(const Eigen::VectorXd& theta, const X& x, const Y& y, const T& t, Eigen::VectorXd& grad, double scale) const {
    const Eigen::Index n = x.cols();
    if (batch.eta.size() < n) batch.eta.resize(n);
    auto e = batch.eta.head(n);
    e.noalias() = x.transpose() * theta.segment(intercept_size(), predictors());
    if (design->intercept) e.array() += theta[0];
    std::visit(
        [&]<class F>(const F& f) {
          constexpr std::size_t A = aux_count<F>;
          const auto p = f.params(aux_of<F>(theta));
          std::array<double, 2> d_aux{0, 0};
          if constexpr (BatchGlmFamily<F>) f.gradient_batch(p, y, t, e, std::span<double>(d_aux.data(), A));
          else for (Eigen::Index j = 0; j < n; ++j) e[j] = f.gradient(p, y[j], t[j], e[j], std::span<double>(d_aux.data(), A));
          // e now holds ∂ℓ_j/∂η_j.
          if (design->intercept) grad[0] -= scale * e.sum();
          grad.segment(intercept_size(), predictors()).noalias() -= scale * (x * e);
          for (std::size_t a = 0; a < A; ++a) grad[aux_offset() + static_cast<Eigen::Index>(a)] -= scale * d_aux[a];
        },
        family);
  }
};
static_assert(BatchDataModel<Glm> && PointwiseLikelihoodModel<Glm> && FullDataModel<Glm> && ReparametrisedModel<Glm> &&
              ModelWithStart<Glm> && !GeneralisedLinearModel<Glm>);

/// The model of `family` on `data` with `priors`, an intercept when `intercept`, the predictors centred
/// by their means when it has one and `centre` (brms's parametrisation; `centre = false` keeps the
/// original design, for comparison). Throws sgmcmc::Error when the sizes disagree, a response is outside
/// the family's support, or a prior with positive support (exponential, gamma) is given to an
/// unbounded class (Intercept, b).
inline Glm make_glm(GlmData data, AnyFamily family, GlmPriors priors = {}, bool intercept = true, bool centre = true) {
  const Eigen::Index K = data.x.rows(), N = data.x.cols();
  const std::string_view fam = family_name(family);
  require(data.y.size() == N, "glm: {} responses for {} examples", data.y.size(), N);
  require(N >= 1, "glm: no examples");
  if (fam == "binomial") require(data.trials.size() == N, "glm: binomial needs trials for each of the {} examples, got {}", N, data.trials.size());
  else require(data.trials.size() == 0, "glm: trials are for the binomial family only (family is {})", fam);
  if (data.trials.size() == 0) data.trials = Eigen::VectorXd::Ones(N);
  for (Eigen::Index i = 0; i < N; ++i)
    if (!valid_response(fam, data.y[i], data.trials[i]))
      fail("glm: example {}: response {} (trials {}) is not {}", i + 1, data.y[i], data.trials[i], response_words(fam));
  require(data.predictors.empty() || static_cast<Eigen::Index>(data.predictors.size()) == K, "glm: {} predictor names for {} predictors",
          data.predictors.size(), K);
  if (priors.b.empty()) priors.b.assign(static_cast<std::size_t>(K), Flat{});
  const std::size_t A = glm::aux_size(family);
  if (priors.aux.empty()) priors.aux.assign(A, Flat{});
  require(static_cast<Eigen::Index>(priors.b.size()) == K, "glm: {} priors of class b for {} predictors", priors.b.size(), K);
  require(priors.aux.size() == A, "glm: {} priors for the {} auxiliary parameters of family {}", priors.aux.size(), A, fam);
  if (positive_support(priors.intercept))
    fail("glm: prior {} on Intercept: its support is (0, inf) and the intercept is unbounded", to_string(priors.intercept));
  for (std::size_t k = 0; k < priors.b.size(); ++k)
    if (positive_support(priors.b[k]))
      fail("glm: prior {} on b_{}: its support is (0, inf) and a coefficient is unbounded", to_string(priors.b[k]),
           k < data.predictors.size() ? data.predictors[k] : std::to_string(k + 1));
  auto design = std::make_shared<GlmDesign>();
  design->intercept = intercept;
  design->centred = intercept && centre;
  design->means = design->centred ? Eigen::VectorXd(data.x.rowwise().mean()) : Eigen::VectorXd::Zero(K);
  design->x = std::move(data.x);
  if (design->centred) design->x.colwise() -= design->means;
  design->y = std::move(data.y);
  design->trials = std::move(data.trials);
  design->predictors = std::move(data.predictors);
  Glm m{std::move(family), design, std::move(priors.intercept), std::move(priors.b), {}};
  for (auto& p : priors.aux) m.aux_priors.push_back(positive_prior(std::move(p)));
  design->start = m.constant_fit();
  return m;
}

/// The model on examples [first, first + count) of `m`'s data, with `m`'s column means and priors: one
/// shard's part (models::Shard), its sums the whole model's over its rows, so the chain group's sum of
/// the parts is the whole model's (docs/distributed.md). The centring stays the whole data's.
inline Glm rows_of(const Glm& m, std::size_t first, std::size_t count) {
  const auto f = static_cast<Eigen::Index>(first), n = static_cast<Eigen::Index>(count);
  require(f + n <= m.design->y.size(), "glm: rows {} to {} of {} examples", first, first + count, m.design->y.size());
  auto design = std::make_shared<GlmDesign>(*m.design);  // the means, names and flags; the columns cut below
  design->x = m.design->x.middleCols(f, n);
  design->y = m.design->y.segment(f, n);
  design->trials = m.design->trials.segment(f, n);
  Glm part = m;
  part.design = std::move(design);
  part.batch = {};
  return part;
}

}  // namespace sgmcmc::models::glm
