// The glm model's posterior where it is known in closed form: the Jacobian of the log-σ
// parametrisation (a Gaussian scale posterior), and the centring (the intercept reported on the
// original design equals the uncentred model's). Deterministic: quadrature and L-BFGS modes
// (modules/optimize/mode.hpp), no sampling.
#include <cmath>
#include <random>
#include <vector>

#include <Eigen/Eigenvalues>
#include <doctest/doctest.h>

#include <sgmcmc/models/glm/model.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/modules/optimize/mode.hpp>

namespace sgmcmc::test_glm {
namespace {

using namespace sgmcmc::models::glm;

/// y_i ~ N(0, σ), i = 1..n, no intercept and no predictors: θ = (u), u = log σ. With S = Σ y_i² and
/// a flat prior on σ (brms's default on a positive parameter), the posterior of σ² is
/// Inv-Gamma(a, b), a = (n − 1)/2, b = S/2:
///   p(σ | y) ∝ σ⁻ⁿ exp(−S/(2σ²))  ⇒  p(σ² | y) ∝ (σ²)^{−(n−1)/2 − 1} exp(−S/(2σ²)).
/// On u the density is p_u(u) = p_IG(e^{2u}) · 2e^{2u}, log p_u(u) = a log b − log Γ(a) + log 2 − 2a u − b e^{−2u},
/// and −U(u) = log p(y | e^u) + u (the Jacobian) = log p_u(u) + log Z, with the evidence
///   Z = ∫₀^∞ (2π)^{−n/2} σ⁻ⁿ e^{−S/(2σ²)} dσ = (2π)^{−n/2} · ½ Γ(a) b^{−a}.
/// Without the Jacobian (a flat prior on log σ instead) the posterior would be Inv-Gamma(n/2, S/2): its
/// log density differs from the above by u, and its mode in u is ½ log(S/n), not ½ log(S/(n − 1)).
struct ScaleCase {
  std::vector<double> y = {0.8, -1.9, 0.3, 2.6, -0.4, 1.1, -1.3};
  double n() const { return static_cast<double>(y.size()); }
  double S() const {
    double s = 0;
    for (double v : y) s += v * v;
    return s;
  }
  double a() const { return 0.5 * (n() - 1); }
  double b() const { return 0.5 * S(); }
  double log_pu(double u) const { return a() * std::log(b()) - std::lgamma(a()) + std::log(2.0) - 2 * a() * u - b() * std::exp(-2 * u); }
  double log_evidence() const { return -0.5 * n() * std::log(2 * std::numbers::pi) + std::log(0.5) + std::lgamma(a()) - a() * std::log(b()); }
  auto potential() const {
    GlmData d;
    d.x.resize(0, static_cast<Eigen::Index>(y.size()));
    d.y = Eigen::Map<const Eigen::VectorXd>(y.data(), static_cast<Eigen::Index>(y.size()));
    return models::minibatch(make_glm(std::move(d), make_family("gaussian"), {}, false), 1, models::Sampling::with_replacement);
  }
};

}  // namespace

// Would catch: the Jacobian left out or doubled (−U would then differ from log p_u by a multiple of u,
// which is not constant over the grid), a dropped likelihood constant (log Z off), the wrong sign of u.
// Tolerance: U is a sum of n + 2 terms of size ≤ 40 on this grid, each within a few ulps: 1e-12.
TEST_CASE("glm posterior: a Gaussian scale's posterior, with the Jacobian, is Inv-Gamma((n-1)/2, S/2) exactly") {
  const ScaleCase c;
  const auto p = c.potential();
  REQUIRE(p.model.dim() == 1);
  for (double u : {-1.5, -0.6, 0.0, 0.4, 1.1, 2.5}) {
    CAPTURE(u);
    const Eigen::VectorXd t = Eigen::VectorXd::Constant(1, u);
    CHECK(std::abs(-p.value(t) - (c.log_pu(u) + c.log_evidence())) < 1e-12);
  }
}

// Would catch: the same slips, seen in the posterior's moments rather than its density: the posterior
// mean of σ is E[√s] = √b Γ(a − ½)/Γ(a) for s ~ Inv-Gamma(a, b), and the normalising integral is Z.
// Quadrature: the trapezoid rule on u ∈ [−8, 8] with 20 000 panels, on a smooth integrand whose
// tails beyond hold below 1e-30 of the mass; the rule's error is far below the 1e-9 asked.
TEST_CASE("glm posterior: the scale posterior's evidence and mean of sigma by quadrature") {
  const ScaleCase c;
  const auto p = c.potential();
  const double lo = -8, hi = 8;
  const int panels = 20000;
  double mass = 0, first = 0;
  for (int k = 0; k <= panels; ++k) {
    const double u = lo + (hi - lo) * k / panels, w = (k == 0 || k == panels) ? 0.5 : 1.0;
    const double density = std::exp(-p.value(Eigen::VectorXd::Constant(1, u)) - c.log_evidence());
    mass += w * density;
    first += w * density * std::exp(u);
  }
  mass *= (hi - lo) / panels;
  first *= (hi - lo) / panels;
  CHECK(std::abs(mass - 1) < 1e-9);
  const double mean_sigma = std::sqrt(c.b()) * std::exp(std::lgamma(c.a() - 0.5) - std::lgamma(c.a()));
  CHECK(std::abs(first / mass - mean_sigma) < 1e-9 * mean_sigma);
}

// Would catch: the Jacobian left out, seen where a mode search sees it: the mode of u is ½ log(S/(n−1))
// with it and ½ log(S/n) without, 0.077 apart for n = 7. L-BFGS stops at ‖U′‖ = g, U″ = 2(n − 1) at the
// mode, so |u − u*| ≤ g/(2(n − 1)) to first order; twice that is allowed.
TEST_CASE("glm posterior: the scale posterior's mode is the Jacobian-corrected one") {
  const ScaleCase c;
  const auto p = c.potential();
  const optimize::Mode m = optimize::find_mode(p, Eigen::VectorXd::Zero(1));
  const double with = 0.5 * std::log(c.S() / (c.n() - 1)), without = 0.5 * std::log(c.S() / c.n());
  const double tolerance = 2 * m.gradient_norm / (2 * (c.n() - 1));
  CHECK(tolerance < 1e-6);
  CHECK(std::abs(m.x[0] - with) <= tolerance);
  CHECK(std::abs(m.x[0] - without) > 100 * tolerance);
}

namespace {

/// N examples of two predictors with means 3 and −5 (sd 1): far from centred, so the uncentred
/// intercept is strongly correlated with the slopes.
GlmData offset_data(std::string_view family, unsigned seed) {
  const Eigen::Index N = 200;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z;
  GlmData d;
  d.x.resize(2, N);
  d.y.resize(N);
  for (Eigen::Index i = 0; i < N; ++i) {
    d.x(0, i) = 3 + z(rng);
    d.x(1, i) = -5 + z(rng);
    const double eta = 0.5 + 0.8 * (d.x(0, i) - 3) - 0.6 * (d.x(1, i) + 5);
    if (family == "bernoulli") d.y[i] = std::uniform_real_distribution<double>(0, 1)(rng) < 1 / (1 + std::exp(-eta)) ? 1 : 0;
    else d.y[i] = eta + 0.7 * z(rng);
  }
  d.predictors = {"a", "b"};
  return d;
}

/// The smallest eigenvalue of U's Hessian at t, by central differences of the exact gradient (step
/// 1e-5: an O(1e-10) error on entries of size ≥ 1, immaterial to the bound it serves).
template <class P>
double smallest_curvature(const P& p, const Eigen::VectorXd& t) {
  const Eigen::Index d = t.size();
  Eigen::MatrixXd h(d, d);
  Eigen::VectorXd gp, gm;
  for (Eigen::Index k = 0; k < d; ++k) {
    Eigen::VectorXd s = t;
    s[k] += 1e-5;
    p.exact_gradient(s, gp);
    s[k] -= 2e-5;
    p.exact_gradient(s, gm);
    h.col(k) = (gp - gm) / 2e-5;
  }
  const Eigen::MatrixXd sym = 0.5 * (h + h.transpose());
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(sym).eigenvalues().minCoeff();
}

}  // namespace

// Would catch: b_Intercept reported on the centred design, the means subtracted with the wrong sign,
// centring applied to the data but not to the reported intercept (or twice). With a flat prior on the
// intercept the two parametrisations are the same model (a shear of θ with unit Jacobian), so their
// modes map onto each other exactly. (brms's Intercept prior is on the centred intercept: with a proper
// one the two models differ, which is why the prior here is flat.) Tolerance: each mode is within
// ‖∇U‖/λ_min of the true one (to first order); the reported intercept α_c − bᵀx̄ moves by at most
// (1 + ‖x̄‖) times that; twice the sum of both modes' bounds is allowed, and must itself be small.
TEST_CASE("glm posterior: the intercept reported from the centred fit equals the uncentred fit's") {
  for (const char* fam : {"bernoulli", "gaussian"}) {
    CAPTURE(fam);
    const AnyFamily f = make_family(fam);
    GlmPriors priors;
    priors.b = {parse_prior("normal(0, 5)"), parse_prior("student_t(3, 0, 2)")};
    if (aux_size(f) == 1) priors.aux = {parse_prior("normal(0, 3)")};
    const auto centred = models::minibatch(make_glm(offset_data(fam, 5), f, priors, true, true), 10, models::Sampling::with_replacement);
    const auto raw = models::minibatch(make_glm(offset_data(fam, 5), f, priors, true, false), 10, models::Sampling::with_replacement);
    CHECK(centred.model.design->centred);
    CHECK(!raw.model.design->centred);
    optimize::ModeOptions options;
    options.tolerance = 1e-11;
    const optimize::Mode mc = optimize::find_mode(centred, Eigen::VectorXd::Zero(centred.model.dim()), options);
    const optimize::Mode mr = optimize::find_mode(raw, Eigen::VectorXd::Zero(raw.model.dim()), options);
    const double shift = 1 + centred.model.design->means.norm();
    const double tolerance = 2 * shift * (mc.gradient_norm / smallest_curvature(centred, mc.x) + mr.gradient_norm / smallest_curvature(raw, mr.x));
    CAPTURE(tolerance);
    CHECK(tolerance < 1e-5);
    const Eigen::VectorXd rc = centred.model.reported(mc.x), rr = raw.model.reported(mr.x);
    CHECK((rc - rr).cwiseAbs().maxCoeff() <= tolerance);
    // The fit is not trivial: the centred intercept differs from the reported one by bᵀx̄ (about 4.4).
    CHECK(std::abs(mc.x[0] - rc[0]) > 1);
  }
}

}  // namespace sgmcmc::test_glm
