// Tests for sgmcmc::diagnostics (Stan / Vehtari et al. 2021 definitions).
// Each test case says in a comment which mistake it would catch.

#include <doctest/doctest.h>

#include <sgmcmc/modules/diagnostics.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>
#include <vector>

namespace {

namespace diag = sgmcmc::diagnostics;
using Chains = std::vector<Eigen::VectorXd>;

double rel_err(double got, double want) {
  if (got == want) return 0.0;  // also covers want == 0
  return std::abs(got - want) / std::abs(want);
}

// Standard normal draws: std::mt19937_64 + Box-Muller (the standard library's
// normal_distribution is not reproducible across implementations).
struct NormalRng {
  std::mt19937_64 engine;
  explicit NormalRng(std::uint64_t seed) : engine(seed) {}
  double uniform() {  // (0, 1], 53 random bits
    return static_cast<double>((engine() >> 11) + 1) * 0x1.0p-53;
  }
  double next() {
    const double radius = std::sqrt(-2.0 * std::log(uniform()));
    return radius * std::cos(2.0 * std::numbers::pi * uniform());
  }
};

Chains iid_chains(NormalRng& rng, int num_chains, int num_draws) {
  Chains chains(static_cast<std::size_t>(num_chains), Eigen::VectorXd(num_draws));
  for (auto& chain : chains) {
    for (int i = 0; i < num_draws; ++i) chain(i) = rng.next();
  }
  return chains;
}

// Stationary AR(1) with unit marginal variance.
Chains ar1_chains(NormalRng& rng, int num_chains, int num_draws, double phi) {
  Chains chains(static_cast<std::size_t>(num_chains), Eigen::VectorXd(num_draws));
  const double innovation_sd = std::sqrt(1.0 - phi * phi);
  for (auto& chain : chains) {
    double x = rng.next();
    for (int i = 0; i < num_draws; ++i) {
      x = phi * x + innovation_sd * rng.next();
      chain(i) = x;
    }
  }
  return chains;
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }
double normal_upper_tail(double x) { return 0.5 * std::erfc(x / std::numbers::sqrt2); }

// Deterministic input of the reference-value tests.
double wave(int t) {
  return std::sin(0.3 * t) + 0.1 * static_cast<double>((t * 7919) % 101) / 101.0;
}

}  // namespace

TEST_CASE("normal_quantile matches known values of the inverse normal CDF") {
  // Catches a mistyped AS241 coefficient in each of the three branches
  // (central, tail r <= 5, far tail r > 5). Reference values: Newton-refined
  // with erfc, independently of this code.
  CHECK(rel_err(diag::normal_quantile(0.975), 1.959963984540054) < 1e-15);
  CHECK(rel_err(diag::normal_quantile(0.3), -0.5244005127080407) < 1e-15);
  CHECK(rel_err(diag::normal_quantile(1e-5), -4.264890793922825) < 1e-15);
  CHECK(rel_err(diag::normal_quantile(1e-10), -6.361340902404056) < 1e-15);
  CHECK(rel_err(diag::normal_quantile(1e-300), -37.0470962993612) < 1e-15);
  CHECK(diag::normal_quantile(0.5) == 0.0);
}

TEST_CASE("normal_quantile is antisymmetric and handles the domain edges") {
  // Catches a sign error in the upper tail and undefined behaviour at 0, 1
  // and outside the unit interval.
  for (int k = 1; k < 512; ++k) {
    const double p = k / 1024.0;  // dyadic, so 1 - p is exact
    CHECK(diag::normal_quantile(1.0 - p) == -diag::normal_quantile(p));
  }
  CHECK(diag::normal_quantile(0.0) == -std::numeric_limits<double>::infinity());
  CHECK(diag::normal_quantile(1.0) == std::numeric_limits<double>::infinity());
  CHECK(std::isnan(diag::normal_quantile(-0.1)));
  CHECK(std::isnan(diag::normal_quantile(1.1)));
  CHECK(std::isnan(diag::normal_quantile(std::nan(""))));
}

TEST_CASE("normal_quantile round-trips through the erfc-based normal CDF to 1e-14") {
  // Catches lost precision (e.g. Acklam's or Beasley-Springer's ~1e-9
  // approximations) anywhere in (0, 1), including the far tails. The
  // round-trip residual is mapped back to x, dx = (Phi(x) - p) / phi(x):
  // comparing Phi(x) with p directly would demand more than double precision
  // in the tails, where Phi's relative condition number is ~x^2 (~1400 at
  // p = 1e-300).
  auto implied_error = [](double p) {
    const double x = diag::normal_quantile(p);
    const double density = std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi);
    // For p > 1/2 compare upper tails: 1 - p is exact there (Sterbenz).
    const double residual = p <= 0.5 ? normal_cdf(x) - p : (1.0 - p) - normal_upper_tail(x);
    return std::abs(residual / density) / std::max(1.0, std::abs(x));
  };
  double worst = 0.0;
  for (double p = 1e-300; p < 0.5; p *= 3.7) worst = std::max(worst, implied_error(p));
  for (int k = 1; k < 1000; ++k) worst = std::max(worst, implied_error(k / 1000.0));
  CHECK(worst < 1e-14);
}

TEST_CASE("quantile is R type 7 on hand-computed vectors") {
  // Catches a different quantile definition (nearest rank, type 6/8 as in
  // some libraries) and off-by-one interpolation indices.
  const Eigen::VectorXd x = (Eigen::VectorXd(4) << 4.0, 1.0, 3.0, 2.0).finished();
  CHECK(diag::quantile(x, 0.0) == 1.0);
  CHECK(diag::quantile(x, 1.0) == 4.0);
  CHECK(diag::quantile(x, 0.5) == doctest::Approx(2.5).epsilon(1e-15));   // h = 1.5
  CHECK(diag::quantile(x, 0.25) == doctest::Approx(1.75).epsilon(1e-15)); // h = 0.75
  CHECK(diag::quantile(x, 0.1) == doctest::Approx(1.3).epsilon(1e-15));   // h = 0.3
  const Eigen::VectorXd y = (Eigen::VectorXd(2) << 20.0, 10.0).finished();
  CHECK(diag::quantile(y, 0.05) == doctest::Approx(10.5).epsilon(1e-15));
  CHECK(diag::quantile(y, 0.95) == doctest::Approx(19.5).epsilon(1e-15));
  const Eigen::VectorXd z = (Eigen::VectorXd(5) << 0.0, 10.0, 20.0, 30.0, 100.0).finished();
  CHECK(diag::quantile(z, 0.95) == doctest::Approx(86.0).epsilon(1e-15));  // h = 3.8
  CHECK(diag::quantile(Eigen::VectorXd::Constant(1, 7.0), 0.3) == 7.0);
  CHECK(std::isnan(diag::quantile(Eigen::VectorXd(), 0.5)));
  CHECK(std::isnan(diag::quantile(x, 1.5)));
  // Pooled over chains, truncated to the shortest chain (the 99 is dropped).
  const Chains chains{(Eigen::VectorXd(2) << 1.0, 2.0).finished(),
                      (Eigen::VectorXd(3) << 3.0, 4.0, 99.0).finished()};
  CHECK(diag::pooled_quantile(chains, 1.0) == 4.0);
  CHECK(diag::pooled_quantile(chains, 0.5) == doctest::Approx(2.5).epsilon(1e-15));
}

TEST_CASE("FFT autocovariance equals the direct biased sum") {
  // Catches too little zero padding (circular wrap-around), dividing lag k by
  // n - k instead of n, and a missing centring.
  const Eigen::VectorXd y = (Eigen::VectorXd(7) << 1.0, 3.0, -2.0, 5.0, 0.5, 4.0, -1.0).finished();
  const Eigen::VectorXd acov = diag::autocovariance(y);
  REQUIRE(acov.size() == 7);
  const double mean = y.mean();
  for (Eigen::Index k = 0; k < 7; ++k) {
    double sum = 0.0;
    for (Eigen::Index t = 0; t + k < 7; ++t) sum += (y(t) - mean) * (y(t + k) - mean);
    CHECK(acov(k) == doctest::Approx(sum / 7.0).epsilon(1e-12).scale(1.0));
  }
  // Constant chain: zeros, not 0/0.
  CHECK(diag::autocovariance(Eigen::VectorXd::Constant(5, 2.0)).isZero());
}

TEST_CASE("ranks average ties and split_chains drops the middle draw") {
  // Catches unaveraged ties (which bias rank-normalised R-hat for discrete
  // quantities) and splitting odd chains at the wrong place.
  const Eigen::VectorXd x = (Eigen::VectorXd(5) << 10.0, 20.0, 10.0, 30.0, 10.0).finished();
  const Eigen::VectorXd r = diag::average_ranks(x);
  CHECK(r(0) == 2.0);
  CHECK(r(2) == 2.0);
  CHECK(r(4) == 2.0);
  CHECK(r(1) == 4.0);
  CHECK(r(3) == 5.0);
  // z = Phi^{-1}((r - 3/8) / (S + 1/4)) over the pooled draws of all chains.
  const Chains chains{(Eigen::VectorXd(2) << 10.0, 20.0).finished(),
                      (Eigen::VectorXd(2) << 30.0, 10.0).finished()};
  const Chains z = diag::rank_normalize(chains);
  CHECK(z[0](0) == diag::normal_quantile((1.5 - 0.375) / 4.25));
  CHECK(z[1](0) == diag::normal_quantile((4.0 - 0.375) / 4.25));

  Eigen::MatrixXd draws(5, 1);
  draws << 1.0, 2.0, 3.0, 4.0, 5.0;
  const Eigen::MatrixXd split = diag::split_chains(draws);
  REQUIRE(split.rows() == 2);
  REQUIRE(split.cols() == 2);
  CHECK(split(0, 0) == 1.0);
  CHECK(split(1, 0) == 2.0);
  CHECK(split(0, 1) == 4.0);
  CHECK(split(1, 1) == 5.0);
}

TEST_CASE("ESS of iid draws is close to the number of draws") {
  // Catches a wrong ESS scale (e.g. a factor 2 in tau, per-chain instead of
  // total draws, or W in place of var+). Tolerance: over 100 seeds with
  // S = 4 x 10^4 the ratio ESS/S had mean 0.994 and sd 0.015 (bulk, basic and
  // tail alike), so 10% is more than 6 sd.
  NormalRng rng(2024);
  const Chains chains = iid_chains(rng, 4, 10000);
  const double total = 40000.0;
  CHECK(std::abs(diag::ess_basic(chains) / total - 1.0) < 0.10);
  CHECK(std::abs(diag::ess_bulk(chains) / total - 1.0) < 0.10);
  CHECK(std::abs(diag::ess_tail(chains) / total - 1.0) < 0.10);
}

TEST_CASE("ESS of an AR(1) chain matches S (1 - phi) / (1 + phi)") {
  // Catches errors in Geyer's initial positive/monotone sequence (truncating
  // too early or too late, dropping odd lags), which for phi = 0.9 move the
  // ESS by far more than the tolerance. Tolerance: over 40 seeds with
  // S = 10^5 (4 x 25000) the ratio ESS / exact had mean 0.998 and sd 0.044,
  // so 15% per data set is ~3.4 sd; the mean of 4 independent data sets has
  // sd ~0.022, so 7% is ~3.2 sd.
  const double phi = 0.9;
  const double exact = 1e5 * (1.0 - phi) / (1.0 + phi);
  double sum_basic = 0.0;
  double sum_bulk = 0.0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    NormalRng rng(seed);
    const Chains chains = ar1_chains(rng, 4, 25000, phi);
    const double basic = diag::ess_basic(chains) / exact;
    const double bulk = diag::ess_bulk(chains) / exact;
    CHECK(std::abs(basic - 1.0) < 0.15);
    CHECK(std::abs(bulk - 1.0) < 0.15);
    sum_basic += basic;
    sum_bulk += bulk;
  }
  CHECK(std::abs(sum_basic / 4.0 - 1.0) < 0.07);
  CHECK(std::abs(sum_bulk / 4.0 - 1.0) < 0.07);
}

TEST_CASE("antithetic chains: ESS exceeds S but is capped at S log10(S)") {
  // Catches a missing tau >= 1/log10(S) safeguard (ESS would blow up or go
  // negative) as in Stan's ess().
  NormalRng rng(3);
  Chains chains(4, Eigen::VectorXd(1000));
  for (auto& chain : chains) {
    for (int i = 0; i < 1000; ++i) chain(i) = (i % 2 == 0 ? -1.0 : 1.0) + 0.01 * rng.next();
  }
  const double total = 4000.0;
  const double ess = diag::ess_basic(chains);
  CHECK(ess > total);
  CHECK(ess == doctest::Approx(total * std::log10(total)).epsilon(1e-12));
}

TEST_CASE("R-hat is about 1 for well-mixed iid chains") {
  // Catches a biased R-hat (e.g. W computed with divisor n, or B without the
  // factor n). Over 200 seeds the largest value was 1.003.
  NormalRng rng(11);
  const Chains chains = iid_chains(rng, 4, 1000);
  CHECK(diag::rhat(chains) < 1.01);
  CHECK(diag::rhat_basic(chains) < 1.01);
  CHECK(diag::rhat(chains) > 0.99);
}

TEST_CASE("R-hat flags a chain shifted by one standard deviation") {
  // Catches an R-hat blind to between-chain differences of location.
  // With 4 chains, one shifted by 1 sd, the 8 split-chain means are
  // 0,0,0,0,0,0,1,1 with sample variance 3/14, so the population split-R-hat
  // is ~sqrt(1 + 3/14) ~ 1.10 (measured 1.1006 with 4 x 2e5 draws), and a
  // "> 1.1" check would fail for about half of all seeds; over 200 seeds of
  // 4 x 1000 draws the minimum was 1.078, hence 1.05. With 2 chains, one
  // shifted, the population value is ~1.155 (minimum over 200 seeds 1.121),
  // and there "> 1.1" is safe.
  NormalRng rng(12);
  Chains four = iid_chains(rng, 4, 1000);
  four[3].array() += 1.0;
  CHECK(diag::rhat(four) > 1.05);
  CHECK(diag::rhat_basic(four) > 1.05);
  Chains two = iid_chains(rng, 2, 1000);
  two[1].array() += 1.0;
  CHECK(diag::rhat(two) > 1.1);
}

TEST_CASE("folded R-hat catches chains with equal means but different scales") {
  // Catches a missing folded (|x - median|) part: the location-only split
  // R-hat stays ~1 when one chain has sd 3 and the others sd 1. Population
  // value of rhat here ~1.145; minimum over 200 seeds 1.116.
  NormalRng rng(13);
  Chains chains = iid_chains(rng, 4, 1000);
  chains[3] *= 3.0;
  CHECK(diag::rhat_basic(chains) < 1.01);
  CHECK(diag::rhat(chains) > 1.1);
}

TEST_CASE("diagnostics match an independent reference implementation") {
  // Catches any deviation from the Stan/posterior algorithm (split, ranks,
  // Geyer sequences, antithetic term, folding, tail indicators, MCSE).
  // Reference values were computed by a throwaway pure-Python script (not in
  // the repo) implementing posterior's R code (.ess, .rhat, z_scale,
  // .split_chains) with a direct O(n^2) autocovariance instead of an FFT and
  // CPython's statistics.NormalDist.inv_cdf; tail quantiles and the folding
  // median taken over the pooled split draws and I(x >= q95), as in Stan.
  // None of these inputs runs Geyer's loop to the end of the chain, the one
  // case where Stan's and posterior's index conventions differ.
  struct Expected {
    double mean, sd, q5, q50, q95, ess_basic, ess_bulk, ess_tail, mcse_mean, rhat_basic, rhat;
  };
  auto check_all = [](const Chains& chains, const Expected& e) {
    const diag::Summary s = diag::summarize(chains);
    CHECK(rel_err(s.mean, e.mean) < 1e-8);
    CHECK(rel_err(s.sd, e.sd) < 1e-8);
    CHECK(rel_err(s.q5, e.q5) < 1e-8);
    CHECK(rel_err(s.q50, e.q50) < 1e-8);
    CHECK(rel_err(s.q95, e.q95) < 1e-8);
    CHECK(rel_err(diag::ess_basic(chains), e.ess_basic) < 1e-8);
    CHECK(rel_err(s.ess_bulk, e.ess_bulk) < 1e-8);
    CHECK(rel_err(s.ess_tail, e.ess_tail) < 1e-8);
    CHECK(rel_err(s.mcse_mean, e.mcse_mean) < 1e-8);
    CHECK(rel_err(diag::rhat_basic(chains), e.rhat_basic) < 1e-8);
    CHECK(rel_err(s.rhat, e.rhat) < 1e-8);
  };

  SUBCASE("4 chains of 200: x_t = sin(0.3 t) + 0.1 ((7919 t) mod 101) / 101, t = 200 c + i") {
    Chains chains(4, Eigen::VectorXd(200));
    for (int c = 0; c < 4; ++c) {
      for (int i = 0; i < 200; ++i) chains[c](i) = wave(200 * c + i);
    }
    check_all(chains, {0.05164897300563286, 0.707344046316059, -0.9384686542250457,
                       0.04850827012760156, 1.026568497543443, 121.0705225902785,
                       140.46163496282352, 570.8242647452246, 0.06339075561998,
                       0.9961409482398982, 0.9964035070928124});
  }
  SUBCASE("unequal lengths 201/205/210/203 (truncated to 201, odd), t = 300 c + i") {
    const int lengths[4] = {201, 205, 210, 203};
    Chains chains;
    for (int c = 0; c < 4; ++c) {
      Eigen::VectorXd chain(lengths[c]);
      for (int i = 0; i < lengths[c]; ++i) chain(i) = wave(300 * c + i);
      chains.push_back(chain);
    }
    check_all(chains, {0.056952449385584095, 0.7071988549366233, -0.9424121707815547,
                       0.06476763538230666, 1.0277030199143453, 122.23917345917755,
                       140.424531757064, 550.2722241814172, 0.06334262487958581,
                       0.9960924095860184, 0.9966080929441505});
  }
  SUBCASE("positively autocorrelated: y_t = 0.8 y_{t-1} + ((7919 t) mod 101)/101 - 1/2") {
    // Long positive autocorrelation: exercises many Geyer pairs and the
    // initial-monotone correction (used 3 times in the reference).
    Chains chains(4, Eigen::VectorXd(200));
    for (int c = 0; c < 4; ++c) {
      double y = 0.0;
      for (int i = 0; i < 200; ++i) {
        const int t = 200 * c + i;
        y = 0.8 * y + static_cast<double>((t * 7919) % 101) / 101.0 - 0.5;
        chains[c](i) = y;
      }
    }
    check_all(chains, {-0.03247701956180759, 0.28613637330237807, -0.46264453367042335,
                       -0.018127699911617223, 0.47849803752343273, 179.07965382197565,
                       183.06183840386248, 500.44892833785786, 0.021083187065660036,
                       0.9956978934432409, 0.9966419953061126});
  }
  SUBCASE("discrete with many ties: ((7919 t) mod 101) mod 7, t = 200 c + i") {
    // Ties exercise averaged ranks, and q05 = 0 and q95 = 6 are attained, so
    // the indicators I(x <= q05) and I(x >= q95) depend on <= / >= exactly.
    Chains chains(4, Eigen::VectorXd(200));
    for (int c = 0; c < 4; ++c) {
      for (int i = 0; i < 200; ++i) chains[c](i) = static_cast<double>(((200 * c + i) * 7919 % 101) % 7);
    }
    check_all(chains, {2.94125, 2.006322531430365, 0.0, 3.0, 6.0, 942.4932178154589,
                       1024.5388760930462, 1217.0458559935162, 0.06483897267371293,
                       0.995038485386521, 0.9950402339339928});
  }
  SUBCASE("antithetic: y_t = -0.5 y_{t-1} + u_t, u_t uniform(-1/2, 1/2) from a 64-bit LCG") {
    // ESS > S here, and Geyer's loop stops with a positive even lag, so
    // Stan's antithetic bias term (paper p. 8) enters ess_basic, ess_bulk
    // and mcse_mean. LCG: s <- 6364136223846793005 s + 1442695040888963407
    // mod 2^64, u = (s >> 11) 2^-53 - 1/2, seed 20 + c for chain c.
    Chains chains(4, Eigen::VectorXd(200));
    for (int c = 0; c < 4; ++c) {
      std::uint64_t state = 20 + static_cast<std::uint64_t>(c);
      double y = 0.0;
      for (int i = 0; i < 200; ++i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const double u = static_cast<double>(state >> 11) * 0x1.0p-53 - 0.5;
        y = -0.5 * y + u;
        chains[c](i) = y;
      }
    }
    check_all(chains, {0.0047518313465172825, 0.33159261045350963, -0.5416933281968036,
                       0.00504363329046905, 0.5354901083174964, 2211.760452448551,
                       2322.471989593555, 754.3089556636562, 0.006880652127407027,
                       0.9962752186523612, 1.002915735522285});
  }
}

TEST_CASE("short chains give NaN diagnostics without crashing") {
  // Catches out-of-bounds reads in the Geyer loop / splitting for tiny
  // chains, and division by n - 1 = 0.
  for (int n = 0; n < 4; ++n) {
    Chains chains(3, Eigen::VectorXd::LinSpaced(n, 0.0, 1.0));
    chains[1].array() += 0.3;
    const diag::Summary s = diag::summarize(chains);
    CHECK(std::isnan(s.ess_bulk));
    CHECK(std::isnan(s.ess_tail));
    CHECK(std::isnan(s.rhat));
    CHECK(std::isnan(s.mcse_mean));
    CHECK(std::isnan(diag::ess_basic(chains)));
    CHECK(std::isnan(diag::rhat_basic(chains)));
    if (n > 0) CHECK(std::isfinite(s.mean));
    if (n == 0) CHECK(std::isnan(s.mean));
  }
  // Between 4 and 7 draws: R-hat is defined, split ESS needs 4 per half.
  Chains five(2, Eigen::VectorXd::LinSpaced(5, 0.0, 1.0));
  five[1] = five[1].reverse().eval();
  CHECK(std::isfinite(diag::rhat(five)));
  CHECK(std::isnan(diag::ess_bulk(five)));
  CHECK(std::isfinite(diag::ess_basic(five)));
  CHECK(std::isnan(diag::summarize({}).mean));
  CHECK(diag::summarize_columns({}).empty());
}

TEST_CASE("constant and non-finite chains give NaN ESS and R-hat") {
  // Catches 0/0 (var+ = 0, W = 0) leaking out as garbage or UB instead of the
  // NaN that Stan reports.
  const Chains constant(4, Eigen::VectorXd::Constant(100, 1.5));
  const diag::Summary s = diag::summarize(constant);
  CHECK(std::isnan(s.ess_bulk));
  CHECK(std::isnan(s.ess_tail));
  CHECK(std::isnan(s.rhat));
  CHECK(std::isnan(s.mcse_mean));
  CHECK(std::isnan(diag::ess_basic(constant)));
  CHECK(std::isnan(diag::rhat_basic(constant)));
  CHECK(s.mean == 1.5);
  CHECK(s.sd == 0.0);
  CHECK(s.q50 == 1.5);

  NormalRng rng(5);
  Chains with_inf = iid_chains(rng, 4, 100);
  with_inf[2](7) = std::numeric_limits<double>::infinity();
  CHECK(std::isnan(diag::ess_bulk(with_inf)));
  CHECK(std::isnan(diag::rhat(with_inf)));
  Chains with_nan = iid_chains(rng, 4, 100);
  with_nan[0](3) = std::nan("");
  const diag::Summary n = diag::summarize(with_nan);
  CHECK(std::isnan(n.rhat));
  CHECK(std::isnan(n.q50));

  // Every chain constant but at different values: chains plainly disagree,
  // so R-hat is +inf rather than NaN (W = 0, B > 0).
  Chains stuck(4, Eigen::VectorXd::Constant(100, 0.0));
  stuck[1].setConstant(1.0);
  CHECK(diag::rhat_basic(stuck) == std::numeric_limits<double>::infinity());
}

TEST_CASE("summarize truncates to the shortest chain and summarize_columns matches it") {
  // Catches reading past the end of shorter chains and mixing up rows and
  // columns in the (draws x coordinates) layout.
  NormalRng rng(21);
  Chains chains = iid_chains(rng, 3, 300);
  Chains longer = chains;
  longer[0].conservativeResize(340);
  longer[0].tail(40).setConstant(1e6);  // would wreck every statistic if used
  const diag::Summary a = diag::summarize(chains);
  const diag::Summary b = diag::summarize(longer);
  CHECK(a.mean == b.mean);
  CHECK(a.ess_bulk == b.ess_bulk);
  CHECK(a.rhat == b.rhat);

  std::vector<Eigen::MatrixXd> matrices;
  for (std::size_t c = 0; c < chains.size(); ++c) {
    Eigen::MatrixXd m(300, 2);
    m.col(0) = chains[c];
    m.col(1) = 2.0 * chains[c].array() + 1.0;
    matrices.push_back(m);
  }
  const std::vector<diag::Summary> cols = diag::summarize_columns(matrices);
  REQUIRE(cols.size() == 2);
  CHECK(cols[0].mean == a.mean);
  CHECK(cols[0].ess_tail == a.ess_tail);
  CHECK(cols[0].rhat == a.rhat);
  CHECK(cols[1].mean == doctest::Approx(2.0 * a.mean + 1.0));
  CHECK(cols[1].sd == doctest::Approx(2.0 * a.sd));
  // Rank-based quantities are invariant under increasing affine maps.
  CHECK(cols[1].ess_bulk == doctest::Approx(a.ess_bulk).epsilon(1e-12));

  matrices[1] = Eigen::MatrixXd::Zero(300, 3);
  CHECK_THROWS_AS(diag::summarize_columns(matrices), sgmcmc::Error);
}

TEST_CASE("convergence warnings: Stan's thresholds, the worst coordinate named, none for a good run") {
  // Catches: a threshold off (1.1 instead of 1.01; ESS not scaled by the number of chains), the best
  // coordinate named instead of the worst, a warning for NaN R-hat (a constant coordinate).
  using diag::Summary;
  auto with = [](double ess_bulk, double ess_tail, double rhat) { return Summary{0, 1, -1, 0, 1, 0.01, ess_bulk, ess_tail, rhat}; };
  CHECK(diag::convergence_warnings({with(900, 900, 1.001), with(401, 401, 1.009)}, 4).empty());
  CHECK(diag::convergence_warnings({with(900, 900, std::nan(""))}, 4).empty());
  const auto w = diag::convergence_warnings({with(900, 900, 1.02), with(300, 900, 1.05), with(350, 380, 1.0)}, 4);
  REQUIRE(w.size() == 3);
  CHECK(w[0].find("R-hat > 1.01 for 2 of 3 coordinates (largest 1.050, coordinate 1)") != std::string::npos);
  CHECK(w[1].find("bulk ESS < 400 (100 per chain) for 2 of 3 coordinates (smallest 300, coordinate 1)") != std::string::npos);
  CHECK(w[2].find("tail ESS < 400 (100 per chain) for 1 of 3 coordinates (smallest 380, coordinate 2)") != std::string::npos);
  CHECK(diag::convergence_warnings({with(150, 150, 1.0)}, 1).empty());  // 100 per chain: one chain needs 100
}
