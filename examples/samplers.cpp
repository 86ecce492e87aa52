// Every sampler of the library, constructed in C++ and run on a target whose moments are known exactly:
// a correlated 2-D Gaussian with noisy gradients (flat samplers), a von Mises–Fisher law on the sphere
// S² (the samplers on a manifold: SGGMC, gSGNHT, geodesic SGLD, GMC) and a Dirichlet law on the
// simplex (SCIR, expanded-mean SGRLD). Prints each estimate beside the exact value; exits 1 if a chain
// stops with an error or an estimate is absurd. docs/api.md walks through it.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <type_traits>

#include <Eigen/Core>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/manifolds/sphere.hpp>
#include <sgmcmc/models/dirichlet.hpp>
#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/models/gradient_noise.hpp>
#include <sgmcmc/models/linear.hpp>
#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/samplers/hmc.hpp>
#include <sgmcmc/samplers/psgld.hpp>
#include <sgmcmc/samplers/recipe.hpp>
#include <sgmcmc/samplers/scir.hpp>
#include <sgmcmc/samplers/sghmc.hpp>
#include <sgmcmc/samplers/sgld.hpp>
#include <sgmcmc/samplers/sgnht.hpp>
#include <sgmcmc/samplers/sgrhmc.hpp>
#include <sgmcmc/samplers/sgrld.hpp>

using namespace sgmcmc;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

struct Exact {
  VectorXd mean, variance;
};

void print_vector(const char* label, const VectorXd& v) {
  std::printf(" %s", label);
  for (double x : v) std::printf(" %7.3f", x);
}

// Runs one chain, prints its mean and variance beside the exact ones, and says whether it is sane: the
// chain ran to the end, every mean is within 0.15 sd + 0.02 and every variance within 30% of the exact
// value (loose on purpose: this is a demonstration; tests/ holds the statistical tests).
template <class S, class P>
bool run_and_report(const char* name, const S& sampler, const P& potential, VectorXd x0, std::uint64_t steps,
                    const Exact& exact) {
  Chain chain(sampler, potential, std::move(x0), random::Stream(/*seed=*/2024, /*stream=*/0));
  Draws draws;
  const ChainStatus status = chain.advance(steps, Retention{/*burn_in=*/steps / 10, /*thin=*/1}, draws);
  if (!status.ok()) {
    std::printf("%-28s stopped: %s\n", name, status.error.c_str());
    return false;
  }
  const MatrixXd x = draws.matrix();
  const VectorXd mean = x.colwise().mean();
  const VectorXd variance = (x.rowwise() - mean.transpose()).colwise().squaredNorm() / double(x.rows() - 1);
  std::printf("%-28s", name);
  print_vector("mean", mean);
  print_vector(" var", variance);
  if constexpr (S::statistics.has(stats::acceptance))
    std::printf("  accept %.2f", chain.totals.accept_sum / double(chain.steps_done));
  std::printf("\n");
  const VectorXd sd = exact.variance.cwiseSqrt();
  const bool mean_ok = ((mean - exact.mean).array().abs() < 0.15 * sd.array() + 0.02).all();
  const bool variance_ok = ((variance.array() / exact.variance.array() - 1.0).abs() < 0.3).all();
  return mean_ok && variance_ok;
}

void print_exact(const Exact& exact) {
  std::printf("%-28s", "  exact");
  print_vector("mean", exact.mean);
  print_vector(" var", exact.variance);
  std::printf("\n");
}

// gSGRHMC/SGRLD with a metric of your own: the diagonal of G(θ)⁻¹, written over any scalar type so the
// correction Γ = ∇·G⁻¹ comes by forward-mode autodiff (modules/recipe/metric.hpp, metric::Diagonal).
struct LogisticInverseMetric {
  template <class V>
  V operator()(const V& theta) const {
    using std::exp;
    V g(theta.size());
    for (Eigen::Index i = 0; i < theta.size(); ++i) g[i] = 0.5 + 1.0 / (1.0 + exp(-theta[i]));
    return g;
  }
};

}  // namespace

int main() {
  bool ok = true;
  const auto h = [](double step) { return schedule::StepSize::constant(step); };

  // --- Flat space: N(μ, Σ), ρ = 0.9, gradient noise N(0, I) (the SGHMC paper's Fig. 3 target). ---
  const VectorXd mu{{1.0, -1.0}};
  const MatrixXd sigma{{1.0, 0.9}, {0.9, 1.0}};
  const models::WithGradientNoise<models::Gaussian> gaussian{models::Gaussian::dense(mu, sigma), /*sd=*/1.0};
  const Exact gaussian_exact{mu, sigma.diagonal()};
  const VectorXd start = VectorXd::Zero(2);
  const double gradient_noise_variance = 1.0;  // V̂: the samplers subtract it from the noise they inject
  std::printf("N(mu, Sigma) with rho = 0.9 and noisy gradients:\n");
  print_exact(gaussian_exact);

  const sgld::Sampler<Euclidean> sgld{Euclidean(2), h(0.01), gradient_noise_variance};
  ok &= run_and_report("sgld", sgld, gaussian, start, 400'000, gaussian_exact);

  // aboba, baoab and obabo are in the seed papers' letters (B friction, O noisy kick): baoab is NOT
  // Leimkuhler & Matthews's BAOAB, which is lm_baoab (gradient-only kick, exact OU step; docs/math.md).
  for (const splitting::StageList& scheme : {splitting::aboba, splitting::baoab, splitting::obabo, splitting::lm_baoab}) {
    const sghmc::Dynamics<Euclidean> dynamics{Euclidean(2), sghmc::Friction(1.0), gradient_noise_variance};
    const sghmc::Sampler<Euclidean> sghmc{dynamics, scheme, h(0.05)};
    const std::string name = "sghmc " + std::string(scheme.name);
    ok &= run_and_report(name.c_str(), sghmc, gaussian, start, 200'000, gaussian_exact);
  }

  // SGD with momentum (SGHMC paper Eq. 15): learning rate η, momentum decay α, β̂ -> (h, C, V̂). The
  // paper's update is the Euler ordering (its Algorithm 2), hence splitting::euler.
  const sghmc::MomentumParams momentum = sghmc::from_momentum(/*learning_rate=*/0.0025, /*momentum_decay=*/0.05,
                                                              /*beta_hat=*/0.00125);
  const sghmc::Sampler<Euclidean> sgd_momentum{
      {Euclidean(2), sghmc::Friction(momentum.friction), momentum.noise_estimate}, splitting::euler, h(momentum.step_size)};
  ok &= run_and_report("sghmc from_momentum (euler)", sgd_momentum, gaussian, start, 200'000, gaussian_exact);

  // SGNHT is given no noise estimate: its thermostat ξ absorbs the unknown gradient noise.
  const sgnht::Sampler<Euclidean> sgnht{{Euclidean(2), /*diffusion=*/1.0, /*noise_estimate=*/0.0}, splitting::aboba, h(0.05)};
  ok &= run_and_report("sgnht", sgnht, gaussian, start, 200'000, gaussian_exact);

  // The exact reference: HMC with the Metropolis–Hastings test on the exact value and gradient.
  const hmc::Sampler<Euclidean> hmc{Euclidean(2), h(0.15), /*leapfrog_steps=*/10, hmc::Gradient::exact, /*metropolis=*/true};
  ok &= run_and_report("hmc (exact, MH)", hmc, gaussian, start, 20'000, gaussian_exact);

  const psgld::Sampler psgld{/*dim=*/2, h(0.005), /*decay=*/0.9999, /*damping=*/1e-5};
  ok &= run_and_report("psgld", psgld, gaussian, start, 400'000, gaussian_exact);

  const sgrld::Sampler<recipe::metric::Diagonal<LogisticInverseMetric>> sgrld{{LogisticInverseMetric{}}, h(0.01),
                                                                              gradient_noise_variance};
  ok &= run_and_report("sgrld (user metric)", sgrld, gaussian, start, 400'000, gaussian_exact);

  // gSGRHMC with the complete recipe's level-set metric G⁻¹ = 1.5·sqrt(U + 0.5) (Ma, Chen & Fox 2015, §4).
  const sgrhmc::Sampler<recipe::metric::LevelSet> gsgrhmc{{/*scale=*/1.5, /*offset=*/0.5}, h(0.01),
                                                          sgrhmc::Variant::generalized, gradient_noise_variance};
  ok &= run_and_report("gsgrhmc (level set)", gsgrhmc, gaussian, start, 400'000, gaussian_exact);

  // The complete recipe with SGHMC's row: z = (θ, r), D = diag(0, C·I), Q = [[0, -I], [I, 0]], and B̂ =
  // diag(0, V̂·I) (Ma, Chen & Fox 2015, Eq. 9). State-dependent D, Q: docs/recipe.md.
  const MatrixXd I = MatrixXd::Identity(2, 2), O = MatrixXd::Zero(2, 2);
  MatrixXd D(4, 4), Q(4, 4), noise(4, 4);
  D << O, O, O, 1.0 * I;
  Q << O, -I, I, O;
  noise << O, O, O, gradient_noise_variance * I;
  recipe::Sampler<recipe::Constant> generic{{D, Q}, recipe::Augment::momentum};
  generic.step_size = h(0.05);
  generic.noise_estimate = noise;
  ok &= run_and_report("recipe (SGHMC's D, Q)", generic, gaussian, start, 200'000, gaussian_exact);

  // --- The sphere S²: vMF(μ, κ) with noisy gradients. E[x] = A(κ)μ, A(κ) = coth κ - 1/κ. ---
  const double kappa = 5.0;
  const VectorXd pole{{0.0, 0.0, 1.0}};
  const models::WithGradientNoise<models::Linear> vmf{models::von_mises_fisher(pole, kappa), /*sd=*/1.0};
  const double a = 1.0 / std::tanh(kappa) - 1.0 / kappa;
  const Exact vmf_exact{a * pole, VectorXd{{a / kappa, a / kappa, 1.0 - 2.0 * a / kappa - a * a}}};
  const VectorXd on_equator{{1.0, 0.0, 0.0}};
  std::printf("vMF on the sphere S^2, kappa = %.0f, noisy gradients:\n", kappa);
  print_exact(vmf_exact);

  const sghmc::Sampler<Sphere> sggmc{{Sphere(3), sghmc::Friction(1.0), gradient_noise_variance}, splitting::aboba, h(0.05)};
  ok &= run_and_report("sggmc (sghmc on Sphere)", sggmc, vmf, on_equator, 200'000, vmf_exact);
  // The seed papers' baoab (friction, flow, noisy kick): SGNHT has no exact OU step for lm_baoab.
  const sgnht::Sampler<Sphere> gsgnht{{Sphere(3), 1.0, 0.0}, splitting::baoab, h(0.05)};
  ok &= run_and_report("gsgnht (sgnht on Sphere)", gsgnht, vmf, on_equator, 200'000, vmf_exact);
  const sgld::Sampler<Sphere> geodesic_sgld{Sphere(3), h(0.01), gradient_noise_variance};
  ok &= run_and_report("geodesic sgld", geodesic_sgld, vmf, on_equator, 200'000, vmf_exact);
  const hmc::Sampler<Sphere> gmc{Sphere(3), h(0.1), 10, hmc::Gradient::exact, true};
  ok &= run_and_report("gmc (hmc on Sphere, MH)", gmc, vmf, on_equator, 20'000, vmf_exact);

  // --- The simplex: Dirichlet(α). E π = α/α₀, Var π_i = α_i(α₀ - α_i)/(α₀²(α₀ + 1)). ---
  const VectorXd alpha{{2.0, 3.0, 5.0}};
  const double a0 = alpha.sum();
  const models::Dirichlet dirichlet{alpha};
  const Exact dirichlet_exact{alpha / a0, (alpha.array() * (a0 - alpha.array()) / (a0 * a0 * (a0 + 1.0))).matrix()};
  const VectorXd barycentre = VectorXd::Constant(3, 1.0 / 3.0);
  std::printf("Dirichlet(2, 3, 5) on the simplex:\n");
  print_exact(dirichlet_exact);

  // SCIR's CIR transition is exact: no discretisation error at any step size (Baker et al. 2018).
  const scir::Sampler scir{/*n=*/3, h(0.5)};
  ok &= run_and_report("scir", scir, dirichlet, barycentre, 50'000, dirichlet_exact);
  const sgrld::ExpandedMean expanded_mean{h(0.01)};
  ok &= run_and_report("sgrld (expanded mean)", expanded_mean, dirichlet, barycentre, 200'000, dirichlet_exact);

  std::printf(ok ? "all samplers agree with the exact moments\n" : "SOME SAMPLER IS OFF\n");
  return ok ? 0 : 1;
}
