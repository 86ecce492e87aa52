// Unit tests of the vMF normaliser (models/text/vmf_normalizer.hpp) and of the SAM potential's exact
// parts (compositions/sam.hpp): log I_ν against std::cyl_bessel_i and against 40-digit reference values,
// the recurrence, monotonicity, closed forms; gradients against finite differences; errors; threads.
#include <doctest/doctest.h>

#include <cmath>

#include <sgmcmc/compositions/sam.hpp>

#include "synthetic.hpp"

using namespace sgmcmc;
using namespace sgmcmc::text;

TEST_CASE("log_bessel_i agrees with std::cyl_bessel_i where that is finite (1e-12 relative)") {
  // Catches: a wrong Debye polynomial or truncation, a wrong regime switch, a broken recurrence.
  // Each path is checked on its own: Debye (ν ≥ 25), the downward recurrence (ν < 25, forced), and the
  // public function. Tolerance: |Δ log I| ≤ 1e-12·max(1, |log I|), i.e. 1e-12 relative on I or log I.
  double worst = 0;
  for (double nu = 0; nu <= 160; nu += 2.5)
    for (double k : {1e-6, 1e-3, 0.1, 1.0, 5.0, 20.0, 50.0, 100.0, 200.0, 400.0, 650.0}) {
      const long double ref = std::cyl_bessel_il(static_cast<long double>(nu), static_cast<long double>(k));
      if (!std::isnormal(static_cast<double>(ref))) continue;
      const double b = static_cast<double>(std::log(ref));
      const double tol = 1e-12 * std::max(1.0, std::abs(b));
      const double got = log_bessel_i(nu, k);
      CHECK_MESSAGE(std::abs(got - b) <= tol, "nu=" << nu << " kappa=" << k << " got " << got << " want " << b);
      if (nu >= text::detail::bessel::debye_min_order) CHECK(std::abs(text::detail::bessel::log_i_debye(nu, k) - b) <= tol);
      worst = std::max(worst, std::abs(got - b) / std::max(1.0, std::abs(b)));
    }
  MESSAGE("worst relative error " << worst);
}

TEST_CASE("log_bessel_i at large order and argument matches 40-digit references (mpmath)") {
  // Catches: overflow (std::cyl_bessel_i(2499, 3e4) is inf), cancellation in νη, a recurrence drift.
  // References: mpmath.log(mpmath.besseli(ν, κ)) at 40 digits.
  struct Case { double nu, kappa, ref; };
  for (const Case c : {Case{2499, 3e4, 29889.90157085350789}, Case{2499, 1e3, -1428.716331312592824},
                       Case{24.5, 1e5, 99993.321598719325063}, Case{0, 1e5, 99993.324599984316463},
                       Case{9999, 5e4, 48997.154084103619242}, Case{49.5, 1e4, 9994.3533854053720235},
                       Case{3.5, 1e-8, -69.352134306635529877}}) {
    CHECK_MESSAGE(std::abs(log_bessel_i(c.nu, c.kappa) - c.ref) <= 1e-14 * std::abs(c.ref), "nu=" << c.nu << " kappa=" << c.kappa);
  }
}

TEST_CASE("log_bessel_i satisfies I_{ν−1} − I_{ν+1} = (2ν/κ) I_ν in log form, and is monotone") {
  // Catches: orders off by one, a jump where the regimes switch (ν = 25, κ = 600).
  for (double nu : {1.5, 24.0, 24.5, 25.0, 25.5, 30.0, 100.0, 2499.0, 9999.0})
    for (double k : {0.5, 10.0, 599.0, 601.0, 1e3, 3e4, 1e5}) {
      const double lm = log_bessel_i(nu - 1, k), l0 = log_bessel_i(nu, k), lp = log_bessel_i(nu + 1, k);
      const double lhs = lm + std::log1p(-std::exp(lp - lm));
      const double rhs = std::log(2 * nu / k) + l0;
      CHECK_MESSAGE(std::abs(lhs - rhs) <= 1e-10 * std::max(1.0, std::abs(rhs)), "nu=" << nu << " kappa=" << k);
      CHECK(lp < l0);  // decreasing in the order
      CHECK(log_bessel_i(nu, k * 1.01) > l0);  // increasing in the argument
    }
}

TEST_CASE("vMF normaliser and mean resultant: closed forms and the docs/math.md#von-mises-fisher values") {
  // Catches: a wrong order (V/2 − 1), a wrong constant, a wrong sign of d log C/dκ.
  for (double k : {0.1, 1.0, 5.0, 50.0, 500.0}) {  // S²: C_3(κ) = κ/(4π sinh κ), A_3 = coth κ − 1/κ
    const double logc = std::log(k) - std::log(4 * std::numbers::pi) - (k + std::log1p(-std::exp(-2 * k)) - std::log(2.0));
    CHECK(log_vmf_normalizer(3, k) == doctest::Approx(logc).epsilon(1e-13));
    CHECK(vmf_mean_resultant(3, k) == doctest::Approx(1 / std::tanh(k) - 1 / k).epsilon(1e-12));
  }
  CHECK(vmf_mean_resultant(2, 5) == doctest::Approx(0.893383).epsilon(1e-6));
  CHECK(vmf_mean_resultant(10, 5) == doctest::Approx(0.422450).epsilon(1e-5));
  CHECK(vmf_mean_resultant(50, 100) == doctest::Approx(0.783661).epsilon(1e-6));
  // −d log C_V/dκ = A_V at V = 5000 by central differences.
  for (double k : {1e3, 3e4}) {
    const double e = 1e-3 * k;
    const double fd = -(log_vmf_normalizer(5000, k + e) - log_vmf_normalizer(5000, k - e)) / (2 * e);
    CHECK(fd == doctest::Approx(vmf_mean_resultant(5000, k)).epsilon(1e-6));
  }
  CHECK_THROWS_WITH_AS(log_vmf_normalizer(10, 0), doctest::Contains("kappa"), Error);
  CHECK_THROWS_WITH_AS(log_bessel_i(-1, 1), doctest::Contains("order"), Error);
}

namespace {
Sam small_model(const sam_test::Synthetic& c, std::size_t batch, unsigned threads) {
  SamHyper h;
  h.kappa0 = 10, h.sigma = 10, h.kappa1 = 50, h.alpha = 2;
  ThetaGmc t;
  t.burn_in = 5, t.draws = 3, t.leapfrog_steps = 5, t.step_size = 0.05;
  return Sam(c.train, 3, h, t, batch, threads);
}
}  // namespace

TEST_CASE("SAM exact gradients match finite differences of their values") {
  // Catches: a wrong collapsed-prior gradient (SGGMC Eq. 9), a wrong likelihood gradient given θ
  // (Eq. 10: the βP term), a wrong θ-potential gradient. Central differences, step 1e-6, rel. 1e-5.
  const auto c = sam_test::make_corpus(12, 3, 30, 5, 10, 50, 2, 3);
  const Sam sam = small_model(c, 0, 1);
  random::Stream rng(1, 0);
  const Eigen::VectorXd beta = sam.initial_topics(rng);
  SamConditional cond{&sam, {}};
  cond.redraw(beta, rng);
  Eigen::VectorXd g;
  cond.exact_gradient(beta, g);
  for (Eigen::Index i = 0; i < beta.size(); i += 5) {
    Eigen::VectorXd p = beta, m = beta;
    p[i] += 1e-6, m[i] -= 1e-6;
    const double fd = (cond.value(p) - cond.value(m)) / 2e-6;
    CHECK_MESSAGE(g[i] == doctest::Approx(fd).epsilon(1e-5).scale(1.0), "coordinate " << i);
  }
  // The θ potential of one document.
  Eigen::MatrixXd B = sam.topic_matrix(beta);
  Eigen::MatrixXd G = B.transpose() * B;
  Eigen::VectorXd b(3);
  c.train->project(B, 0, b);
  DocumentTheta pot{b.data(), &G, 50, 2, Eigen::VectorXd(3)};
  Eigen::VectorXd t(3), gt(3);
  t << 0.2, 0.3, 0.5;
  pot.exact_gradient(t, gt);
  for (Eigen::Index i = 0; i < 3; ++i) {
    Eigen::VectorXd p = t, m = t;
    p[i] += 1e-7, m[i] -= 1e-7;
    CHECK(gt[i] == doctest::Approx((pot.value(p) - pot.value(m)) / 2e-7).epsilon(1e-6));
  }
}

TEST_CASE("SAM stochastic gradient does not depend on the thread count, and draws from the driver's rng") {
  // Catches: a data race, a summation order that follows thread timing, a potential with its own RNG.
  const auto c = sam_test::make_corpus(12, 3, 40, 5, 10, 50, 2, 4);
  const Sam one = small_model(c, 10, 1), two = small_model(c, 10, 2);
  random::Stream r0(9, 0);
  const Eigen::VectorXd beta = one.initial_topics(r0);
  random::Stream r1(3, 1), r2(3, 1);
  Eigen::VectorXd g1, g2, g3;
  one.gradient(beta, g1, r1);
  two.gradient(beta, g2, r2);
  CHECK((g1.array() == g2.array()).all());
  one.gradient(beta, g3, r1);  // the next call draws a new batch and key
  CHECK((g3 - g1).norm() > 0);
  CHECK(r1.state().batches_used == 2);
}

TEST_CASE("SAM configuration errors name the field") {
  const auto c = sam_test::make_corpus(8, 2, 10, 2, 10, 50, 2, 5);
  SamHyper h;
  h.alpha = 0.5;
  CHECK_THROWS_WITH_AS(Sam(c.train, 2, h), doctest::Contains("alpha"), Error);
  h.alpha = 2, h.kappa1 = -1;
  CHECK_THROWS_WITH_AS(Sam(c.train, 2, h), doctest::Contains("kappa1"), Error);
  h.kappa1 = 10;
  CHECK_THROWS_WITH_AS(Sam(c.train, 2, h, {}, 11), doctest::Contains("batch_size"), Error);
  CHECK_THROWS_WITH_AS(Sam(c.train, 1, h), doctest::Contains("topics"), Error);
  ThetaGmc t;
  t.step_size = 0;
  CHECK_THROWS_WITH_AS(Sam(c.train, 2, h, t), doctest::Contains("theta.step_size"), Error);
}

TEST_CASE("SAM's persistent worker pool: repeated gradients agree to the bit on 1, 2 and 3 threads; copies own their pool") {
  // Catches: a pool that skips or repeats a document, a stale per-worker θ state leaking between calls,
  // a worker reading the previous call's inputs, copies sharing (and racing on) one pool.
  const auto c = sam_test::make_corpus(12, 3, 40, 5, 10, 50, 2, 6);
  const Sam one = small_model(c, 10, 1), two = small_model(c, 10, 2), three = small_model(c, 0, 3);
  const Sam full_one = small_model(c, 0, 1);
  const Sam copy = two;  // its own pool on first use
  random::Stream r0(9, 0);
  const Eigen::VectorXd beta = one.initial_topics(r0);
  random::Stream r1(4, 2), r2(4, 2), r3(4, 2), r4(4, 2), r5(4, 2);
  Eigen::VectorXd g1, g2, g3, g4, g5;
  for (int call = 0; call < 5; ++call) {
    one.gradient(beta, g1, r1);
    two.gradient(beta, g2, r2);
    copy.gradient(beta, g3, r3);
    full_one.gradient(beta, g4, r4);
    three.gradient(beta, g5, r5);
    CHECK((g1.array() == g2.array()).all());
    CHECK((g1.array() == g3.array()).all());
    CHECK((g4.array() == g5.array()).all());
  }
  CHECK(two.last.proposals == one.last.proposals);
  CHECK(two.last.accepted == one.last.accepted);
}
