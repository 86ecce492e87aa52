#pragma once
// The complete recipe's and the SGHMC paper's synthetic experiments, as functions returning JSON, so
// the reproduction program (reproduce_recipe.cpp) and the tests that assert each conclusion at a
// smaller size (tests/recipe/recipe_stat.cpp) run the same code.
//   fig2_left   complete recipe Fig. 2 (left) / S.5: KL(histogram ‖ truth) for SGLD, SGHMC, naive SGRHMC,
//               gSGRHMC on U = θ²/2 and U = θ⁴ - 2θ²
//   fig2_right  complete recipe Fig. 2 (right): the first samples of SGLD, SGHMC, gSGRHMC on the banana
//   sghmc_fig1  SGHMC paper Fig. 1: the double well with N(0, 4) gradient noise
//   sghmc_fig2  SGHMC paper Fig. 2: noisy Hamiltonian dynamics without friction diverge; SGHMC does not
//   sghmc_fig3  SGHMC paper Fig. 3: autocorrelation time vs covariance error, SGHMC and SGLD, 5 step sizes
// Every run goes through the library's driver loop (driver/chain.hpp); what an experiment records after
// a step (a trace, a thinned sample, an energy every k steps) is an observer of that loop.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/models/banana.hpp>
#include <sgmcmc/models/double_well.hpp>
#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/models/gradient_noise.hpp>
#include <sgmcmc/modules/diagnostics/ess.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/driver/evaluation.hpp>
#include <sgmcmc/samplers/hmc.hpp>
#include <sgmcmc/samplers/recipe.hpp>
#include <sgmcmc/samplers/sghmc.hpp>
#include <sgmcmc/samplers/sgld.hpp>
#include <sgmcmc/samplers/sgrhmc.hpp>

#include <sgmcmc/modules/diagnostics/testing.hpp>

namespace sgmcmc::experiments {

using json = nlohmann::json;
using Eigen::MatrixXd;
using Eigen::VectorXd;

/// U = θ²/2, normalised (value includes log sqrt(2π)), as the level-set metric needs (docs/math.md#gsgrhmc).
struct Quadratic1 {
  static constexpr double log_z = 0.91893853320467274;
  Eigen::Index dim() const { return 1; }
  void exact_gradient(const VectorXd& x, VectorXd& g) const { g = x; }
  template <class R> void gradient(const VectorXd& x, VectorXd& g, R&) const { exact_gradient(x, g); }
  double value(const VectorXd& x) const { return 0.5 * x[0] * x[0] + log_z; }
};

/// KL(P̂ ‖ P) = Σ P̂_k log(P̂_k / P_k) over bins with overflow (docs/math.md#histogram-tests).
inline double kl_divergence(const std::vector<double>& freq, const std::vector<double>& p) {
  double kl = 0;
  for (std::size_t k = 0; k < p.size(); ++k)
    if (freq[k] > 0) kl += freq[k] * std::log(freq[k] / p[k]);
  return kl;
}

/// Runs `chain` `steps` more steps through the driver loop, every step seen by `observers`. A chain
/// that stops early (a non-finite state) would leave a figure's numbers silently short: an error.
template <class C, Observer... O>
void run_steps(C& chain, long steps, const Retention& keep, O&&... observers) {
  const ChainStatus status = chain.run(keep, StopAfter{steps > 0 ? static_cast<std::uint64_t>(steps) : 0}, std::forward<O>(observers)...);
  if (!status.ok()) throw Error(status.error);
}

/// Runs `steps` steps from x0 and returns θ (first coordinate) after every step.
template <class S, class P>
std::vector<double> trace(const S& sampler, const P& potential, const VectorXd& x0, long steps, std::uint64_t seed,
                          std::uint32_t stream = 0) {
  Chain chain(sampler, potential, x0, random::Stream(seed, stream));
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(std::max(0L, steps)));
  run_steps(chain, steps, Retention{}, [&](const StepEvent& e) {
    out.push_back(e.position[0]);
    return Control::proceed;
  });
  return out;
}

inline double ess_of(const std::vector<double>& x) {
  const VectorXd v = Eigen::Map<const VectorXd>(x.data(), static_cast<Eigen::Index>(x.size()));
  return diagnostics::ess_basic({v});
}

// ---------------------------------------------------------------------------------------------------
// Complete recipe Fig. 2 (left). Gradient noise N(0, σ² = 4) for every method (as the SGHMC paper's
// Fig. 1; the complete recipe's own noise level is not in our sources), each method told V̂ = 4.
// Step size h for all; SGHMC: C = 3 (SGHMC paper), Euler ordering; (g)SGRHMC: explicit Euler with the
// level-set metric G⁻¹ = 1.5·sqrt(|U + 0.5|), U normalised.
struct Fig2LeftConfig {
  long steps = 1'000'000;
  double h = 0.02;
  double grad_sd = 2.0;
  std::uint64_t seed = 2015;
  int checkpoints = 25;
};

template <class Target>
json fig2_left_target(const std::string& name, const Target& base, double lo, double hi, int bins, double support,
                      const Fig2LeftConfig& c) {
  const models::WithGradientNoise<Target> U{base, c.grad_sd};
  const double V = c.grad_sd * c.grad_sd;
  const auto P = testing::bin_probabilities([&](double t) { return base.value(VectorXd::Constant(1, t)); }, lo, hi, bins,
                                            support);
  const auto sched = schedule::StepSize::constant(c.h);
  json out = {{"target", name}, {"h", c.h}, {"steps", c.steps}, {"grad_sd", c.grad_sd}, {"bins", {lo, hi, bins}}};
  auto record = [&](const std::string& method, const std::vector<double>& x) {
    json m = {{"method", method}};
    std::vector<double> when, kl;
    for (int i = 1; i <= c.checkpoints; ++i) {
      const long n = static_cast<long>(std::round(std::pow(static_cast<double>(c.steps), static_cast<double>(i) / c.checkpoints)));
      if (n < 100 || (!when.empty() && n == when.back())) continue;
      const std::vector<double> head(x.begin(), x.begin() + n);
      when.push_back(static_cast<double>(n));
      kl.push_back(kl_divergence(testing::bin_frequencies(head, lo, hi, bins), P));
    }
    const double ess = ess_of(x);
    int b_eff = 0;
    for (double pk : P) b_eff += pk * ess >= 5 ? 1 : 0;
    m["steps"] = when;
    m["kl"] = kl;
    m["final_kl"] = kl.back();
    m["ess"] = ess;
    m["null_kl"] = (b_eff - 1) / (2.0 * ess);  // E[KL] of ess i.i.d. draws (G-test, docs/math.md)
    m["null_kl_sd"] = std::sqrt(2.0 * (b_eff - 1)) / (2.0 * ess);
    VectorXd sq(static_cast<Eigen::Index>(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i) sq[static_cast<Eigen::Index>(i)] = x[i] * x[i];
    const auto e = testing::estimate(sq);
    m["mean_sq"] = e.mean;
    m["mean_sq_se"] = e.se;
    const auto f = testing::bin_frequencies(x, lo, hi, bins);
    m["histogram"] = f;
    out["methods"].push_back(m);
  };
  const VectorXd x0 = VectorXd::Zero(1);
  record("SGLD", trace(sgld::Sampler<Euclidean>{Euclidean(1), sched, V}, U, x0, c.steps, c.seed, 0));
  record("SGHMC", trace(sghmc::Sampler<Euclidean>{{Euclidean(1), sghmc::Friction(3.0), V}, splitting::euler, sched}, U, x0,
                        c.steps, c.seed, 1));
  sgrhmc::Sampler<recipe::metric::LevelSet> g{{1.5, 0.5}, sched, sgrhmc::Variant::generalized, V};
  auto naive = g;
  naive.variant = sgrhmc::Variant::naive;
  record("naive SGRHMC", trace(naive, U, x0, c.steps, c.seed, 2));
  record("gSGRHMC", trace(g, U, x0, c.steps, c.seed, 3));
  out["truth"] = P;
  return out;
}

inline json fig2_left(const Fig2LeftConfig& c) {
  return {fig2_left_target("theta^2/2", Quadratic1{}, -5, 5, 100, 8.0, c),
          fig2_left_target("theta^4-2theta^2", models::DoubleWell{}, -2.5, 2.5, 50, 4.0, c)};
}

// ---------------------------------------------------------------------------------------------------
// Complete recipe Fig. 2 (right): the first samples on the banana U = θ₁⁴/10 + (4(θ₂+1.2) - θ₁²)²/2
// (exact gradients), from the same start, with the same step size. gSGRHMC uses the level-set metric
// G⁻¹ = 1.5·sqrt(U + 0.5)·I (U normalised: U ≥ log Z = 0.70 > 0).
inline json fig2_right(long steps, long keep_every, double h, std::uint64_t seed) {
  const models::Banana U;
  const VectorXd x0{{0.0, -1.2}};
  const auto sched = schedule::StepSize::constant(h);
  json out = {{"h", h}, {"steps", steps}, {"keep_every", keep_every}};
  auto run = [&](const std::string& name, auto sampler, std::uint32_t stream) {
    Chain chain(std::move(sampler), U, x0, random::Stream(seed, stream));
    std::vector<double> a, b, all0;
    // Every step enters E θ₁² and its ESS; every keep_every-th step is a plotted sample.
    run_steps(chain, steps, Retention{0, static_cast<std::uint64_t>(keep_every)}, [&](const StepEvent& e) {
      const VectorXd& x = e.position;
      all0.push_back(x[0] * x[0]);
      if (e.kept) a.push_back(x[0]), b.push_back(x[1]);
      return Control::proceed;
    });
    double m = 0;
    for (double v : all0) m += v;
    out["methods"].push_back({{"method", name}, {"theta1", a}, {"theta2", b},
                              {"mean_theta1_sq", m / static_cast<double>(steps)},
                              {"ess_theta1_sq", ess_of(all0)}});
  };
  run("SGLD", sgld::Sampler<Euclidean>{Euclidean(2), sched, 0.0}, 0);
  run("SGHMC", sghmc::Sampler<Euclidean>{{Euclidean(2), sghmc::Friction(3.0), 0.0}, splitting::euler, sched}, 1);
  run("gSGRHMC", sgrhmc::Sampler<recipe::metric::LevelSet>{{1.5, 0.5}, sched}, 2);
  out["exact_mean_theta1_sq"] = 1.068815;  // docs/math.md#banana
  return out;
}

// ---------------------------------------------------------------------------------------------------
// SGHMC paper Fig. 1: U = -2θ² + θ⁴, ∇Ũ = ∇U + N(0, 4), h = 0.1, 50 steps per sample
// (docs/math.md#double-well).
inline json sghmc_fig1(long samples, std::uint64_t seed) {
  const models::WithGradientNoise<models::DoubleWell> U{{}, 2.0};
  const auto P = testing::bin_probabilities([](double t) { return t * t * t * t - 2 * t * t; }, -2.5, 2.5, 50, 4.0);
  const auto sched = schedule::StepSize::constant(0.1);
  json out = {{"samples", samples}, {"truth", P}, {"bins", {-2.5, 2.5, 50}}};
  auto record = [&](const std::string& name, auto sampler, long thin, std::uint32_t stream) {
    Chain chain(std::move(sampler), U, VectorXd::Zero(1), random::Stream(seed, stream));
    std::vector<double> x;
    run_steps(chain, samples * thin, Retention{0, static_cast<std::uint64_t>(thin)}, [&](const StepEvent& e) {
      if (e.kept) x.push_back(e.position[0]);
      return Control::proceed;
    });
    const auto f = testing::bin_frequencies(x, -2.5, 2.5, 50);
    const double ess = std::min(ess_of(x), static_cast<double>(x.size()));
    out["methods"].push_back({{"method", name}, {"histogram", f}, {"tv", testing::total_variation(f, P)},
                              {"kl", kl_divergence(f, P)}, {"ess", ess},
                              {"null_tv", testing::null_total_variation(P, ess)}});
  };
  record("SGHMC", sghmc::Sampler<Euclidean>{{Euclidean(1), sghmc::Friction(3.0), 4.0}, splitting::euler, sched}, 50, 0);
  record("HMC (MH, exact gradient)", hmc::Sampler<Euclidean>{Euclidean(1), sched, 50, hmc::Gradient::exact, true}, 1, 1);
  record("naive SGHMC (no MH)", hmc::Sampler<Euclidean>{Euclidean(1), sched, 50, hmc::Gradient::stochastic, false}, 1, 2);
  record("naive SGHMC (MH)", hmc::Sampler<Euclidean>{Euclidean(1), sched, 50, hmc::Gradient::stochastic, true}, 1, 3);
  return out;
}

// ---------------------------------------------------------------------------------------------------
// SGHMC paper Fig. 2: U = θ²/2, ∇Ũ = θ + N(0, 4), h = 0.1. Frictionless dynamics are the recipe with
// D = 0, Q = [[0,-1],[1,0]] (semi-implicit: the symplectic Euler of the paper's Eq. 15); SGHMC adds
// friction C with the V̂ = 4 correction. The frictionless energy grows without bound: each step adds
// variance h²σ² to r while the symplectic map M = [[1, h], [-h, 1 - h²]] (det 1) cannot dissipate it.
struct Fig2Energy {
  std::vector<double> mean_h;  ///< E[H_t] over chains, at each recorded step
  std::vector<double> se_h;
  std::vector<double> exact_h;  ///< exact E[H_t] (frictionless: linear recursion of the covariance)
  std::vector<long> at;
};

inline recipe::Sampler<recipe::Constant> frictionless(double h) {
  recipe::Sampler<recipe::Constant> s{{MatrixXd::Zero(2, 2), MatrixXd{{0, -1}, {1, 0}}}, recipe::Augment::momentum};
  s.step_size = schedule::StepSize::constant(h);
  s.scheme = recipe::Scheme::semi_implicit;
  return s;
}

/// A recipe sampler on a 1-D θ with a momentum (z = (θ, r)) whose r is redrawn from N(0, 1) before the
/// steps t = 0, every, 2·every, ... (global index; 0: never): the "r resampled" dynamics of Fig. 2 is a
/// sampler of its own, so the driver runs it like any other.
template <class S>
struct MomentumRefresh {
  using State = typename S::State;
  static constexpr Statistics statistics = S::statistics;
  S inner;
  std::uint64_t every = 0;

  template <class R>
  State init(VectorXd x0, R& rng) const {
    require(x0.size() == 1, "MomentumRefresh: a 1-D θ (the momentum is z[1])");
    return inner.init(std::move(x0), rng);
  }
  template <class P, class R>
  StepInfo step(State& s, const P& potential, R& rng, std::uint64_t t) const {
    if (every > 0 && t % every == 0) s.z[1] = rng.normal();
    return inner.step(s, potential, rng, t);
  }
  const VectorXd& position(const State& s) const { return inner.position(s); }
  void describe(const State& s, StepInfo& info) const { inner.describe(s, info); }
};

/// E[H_t] with H = (θ² + r²)/2 over `chains` chains of the frictionless dynamics or SGHMC (friction C).
inline Fig2Energy sghmc_fig2_energy(bool with_friction, double friction, int chains, long steps, long every,
                                    std::uint64_t seed) {
  const double h = 0.1, sigma = 2.0;
  const models::WithGradientNoise<Quadratic1> U{{}, sigma};
  Fig2Energy e;
  std::vector<std::vector<double>> hs;
  const VectorXd x0 = VectorXd::Constant(1, 1.0);
  for (int c = 0; c < chains; ++c) {
    std::vector<double> row;
    auto energy_run = [&](const auto& smp, auto energy) {
      Chain chain(smp, U, x0, random::Stream(seed, static_cast<std::uint32_t>(c)));
      // H needs the momentum, which is the chain's state, not its position: read it from the chain.
      run_steps(chain, steps, Retention{},
                Every{static_cast<std::uint64_t>(every), [&](const StepEvent&) { row.push_back(energy(chain.state)); }});
    };
    if (with_friction) {
      const sghmc::Sampler<Euclidean> smp{{Euclidean(1), sghmc::Friction(friction), sigma * sigma}, splitting::euler,
                                          schedule::StepSize::constant(h)};
      energy_run(smp, [](const auto& s) { return 0.5 * (s.x[0] * s.x[0] + s.v[0] * s.v[0]); });
    } else {
      energy_run(frictionless(h), [](const recipe::State& s) { return 0.5 * s.z.squaredNorm(); });
    }
    hs.push_back(row);
  }
  const std::size_t k = hs[0].size();
  // Exact frictionless moments: m_{t+1} = M m_t, Σ_{t+1} = M Σ_t Mᵀ + diag(0, h²σ²); start θ = 1, r ~ N(0, 1).
  MatrixXd M{{1, h}, {-h, 1 - h * h}};
  VectorXd m{{1.0, 0.0}};
  MatrixXd S{{0.0, 0.0}, {0.0, 1.0}};
  long t = 0;
  for (std::size_t i = 0; i < k; ++i) {
    double sum = 0, sq = 0;
    for (const auto& r : hs) sum += r[i], sq += r[i] * r[i];
    const double n = static_cast<double>(hs.size());
    const double mean = sum / n;
    e.mean_h.push_back(mean);
    e.se_h.push_back(std::sqrt(std::max(0.0, sq / n - mean * mean) / (n - 1)));
    const long target = static_cast<long>(i + 1) * every;
    for (; t < target; ++t) {
      m = M * m;
      S = M * S * M.transpose();
      S(1, 1) += h * h * sigma * sigma;
    }
    e.exact_h.push_back(0.5 * (S.trace() + m.squaredNorm()));
    e.at.push_back(target);
  }
  return e;
}

inline json sghmc_fig2(long steps, int chains, std::uint64_t seed) {
  json out = {{"h", 0.1}, {"grad_sd", 2.0}, {"steps", steps}, {"chains", chains}};
  // Trajectories (θ, r) of one chain for the phase-space picture: exact Hamiltonian (no noise),
  // noisy frictionless, noisy frictionless with r resampled every 50 steps, SGHMC (C = 1).
  const double h = 0.1;
  const VectorXd x0 = VectorXd::Constant(1, 1.0);
  auto traj = [&](const std::string& name, auto sampler, double grad_sd, auto momentum) {
    const models::WithGradientNoise<Quadratic1> U{{}, grad_sd};
    Chain chain(std::move(sampler), U, x0, random::Stream(seed, 100));
    std::vector<double> th, r;
    run_steps(chain, steps, Retention{}, [&](const StepEvent& e) {
      th.push_back(e.position[0]), r.push_back(momentum(chain.state));
      return Control::proceed;
    });
    out["trajectories"].push_back({{"method", name}, {"theta", th}, {"r", r}});
  };
  const auto recipe_r = [](const recipe::State& s) { return s.z[1]; };
  traj("Hamiltonian (exact gradient)", frictionless(h), 0.0, recipe_r);
  traj("noisy Hamiltonian", frictionless(h), 2.0, recipe_r);
  traj("noisy Hamiltonian, r resampled every 50 steps", MomentumRefresh<recipe::Sampler<recipe::Constant>>{frictionless(h), 50},
       2.0, recipe_r);
  traj("noisy Hamiltonian with friction (SGHMC)",
       sghmc::Sampler<Euclidean>{{Euclidean(1), sghmc::Friction(1.0), 4.0}, splitting::euler, schedule::StepSize::constant(h)},
       2.0, [](const auto& s) { return s.v[0]; });
  const long every = std::max(1L, steps / 50);
  for (bool f : {false, true}) {
    const Fig2Energy e = sghmc_fig2_energy(f, 1.0, chains, steps, every, seed + 1);
    json j = {{"method", f ? "SGHMC (C = 1)" : "noisy Hamiltonian"}, {"at", e.at}, {"mean_energy", e.mean_h}, {"se", e.se_h}};
    if (!f) j["exact_mean_energy"] = e.exact_h;
    out["energy"].push_back(j);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// SGHMC paper Fig. 3: N(0, Σ), ρ = 0.9, ∇Ũ = Σ⁻¹θ + N(0, I). SGHMC (η, α) = (0.05·0.6^{2i}, 0.05·0.6^i),
// i.e. h = sqrt(0.05)·0.6^i with constant friction C = α/h = sqrt(0.05), β̂ = η/2 (V̂ = 1), in the
// paper's ordering (Euler: θ, then r); SGLD η = 0.18·0.8^i with the variance correction 2η(1 - η/2).
// Statistic: autocorrelation time τ = N/ESS (mean over the 2 coordinates) against the mean absolute
// error of the sample covariance over its 4 entries. Both have exact values for these linear schemes
// (Lyapunov equation; τ = 1 + 2Σ_k ρ_k with Σ_k M^k = M(I - M)⁻¹), given beside the simulation.
struct Fig3Point {
  std::string method;
  double step = 0;
  double tau = 0, error = 0;             ///< simulated
  double exact_tau = 0, exact_bias = 0;  ///< exact: τ of the chain, |Σ_h - Σ| averaged over entries
};

inline void exact_linear(const MatrixXd& M, const MatrixXd& S, Eigen::Index d, const MatrixXd& cov, double& tau,
                         double& bias) {
  const MatrixXd sig = testing::discrete_lyapunov(M, S);
  const auto n = M.rows();
  const MatrixXd sum = M * (MatrixXd::Identity(n, n) - M).inverse();  // Σ_{k≥1} M^k
  const MatrixXd lag = sum * sig;                                    // Σ_k Cov(z_{t+k}, z_t)
  tau = 0;
  for (Eigen::Index i = 0; i < d; ++i) tau += (1 + 2 * lag(i, i) / sig(i, i)) / static_cast<double>(d);
  bias = (sig.topLeftCorner(d, d) - cov).cwiseAbs().mean();
}

inline std::vector<Fig3Point> sghmc_fig3_points(long steps, std::uint64_t seed, int runs = 5) {
  const MatrixXd cov{{1.0, 0.9}, {0.9, 1.0}};
  const MatrixXd P = cov.inverse();
  const models::WithGradientNoise<models::Gaussian> U{models::Gaussian::dense(VectorXd::Zero(2), cov), 1.0};
  std::vector<Fig3Point> pts;
  auto simulate = [&](auto sampler, std::uint32_t stream, Fig3Point& p) {
    Chain chain(std::move(sampler), U, VectorXd::Zero(2), random::Stream(seed, stream));
    std::vector<VectorXd> xs(2, VectorXd(steps));
    MatrixXd acc = MatrixXd::Zero(2, 2);
    run_steps(chain, steps, Retention{}, [&](const StepEvent& e) {
      const auto t = static_cast<Eigen::Index>(e.step - 1);
      const VectorXd& x = e.position;
      xs[0][t] = x[0], xs[1][t] = x[1];
      acc += x * x.transpose();  // mean known to be 0, as in the paper's code
      return Control::proceed;
    });
    acc /= static_cast<double>(steps);
    p.error = (acc - cov).cwiseAbs().mean();
    p.tau = 0.5 * (static_cast<double>(steps) / diagnostics::ess_basic({xs[0]}) +
                   static_cast<double>(steps) / diagnostics::ess_basic({xs[1]}));
  };
  const MatrixXd I2 = MatrixXd::Identity(2, 2);
  for (int i = 0; i < runs; ++i) {
    Fig3Point p{"SGHMC", std::sqrt(0.05) * std::pow(0.6, i)};
    const double h = p.step, C = std::sqrt(0.05), V = 1.0;
    simulate(sghmc::Sampler<Euclidean>{{Euclidean(2), sghmc::Friction(C), V}, splitting::euler, schedule::StepSize::constant(h)},
             static_cast<std::uint32_t>(i), p);
    // Euler (θ first, then r at the new θ) on z = (θ, r): z <- M z + ε.
    MatrixXd A = MatrixXd::Identity(4, 4);
    A.topRightCorner(2, 2) = h * I2;
    MatrixXd B = MatrixXd::Identity(4, 4);
    B.bottomLeftCorner(2, 2) = -h * P;
    B.bottomRightCorner(2, 2) = (1 - C * h) * I2;
    MatrixXd S = MatrixXd::Zero(4, 4);
    S.bottomRightCorner(2, 2) = (2 * C * h - V * h * h + h * h) * I2;  // injected + gradient noise
    exact_linear(B * A, S, 2, cov, p.exact_tau, p.exact_bias);
    pts.push_back(p);
  }
  for (int i = 0; i < runs; ++i) {
    Fig3Point p{"SGLD", 0.18 * std::pow(0.8, i)};
    const double h = p.step;
    simulate(sgld::Sampler<Euclidean>{Euclidean(2), schedule::StepSize::constant(h), 1.0}, static_cast<std::uint32_t>(10 + i), p);
    exact_linear(I2 - h * P, (2 * h - h * h + h * h) * I2, 2, cov, p.exact_tau, p.exact_bias);
    pts.push_back(p);
  }
  return pts;
}

inline json sghmc_fig3(long steps, std::uint64_t seed) {
  json out = {{"steps", steps}};
  for (const auto& p : sghmc_fig3_points(steps, seed))
    out["points"].push_back({{"method", p.method}, {"step", p.step}, {"autocorrelation_time", p.tau},
                             {"cov_abs_error", p.error}, {"exact_autocorrelation_time", p.exact_tau},
                             {"exact_cov_bias", p.exact_bias}});
  return out;
}

}  // namespace sgmcmc::experiments
