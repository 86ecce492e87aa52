// Held-out scores of predictive class probabilities (data/classification_scores.hpp): error,
// negative log-likelihood and expected calibration error.
#include <doctest/doctest.h>

#include <cmath>

#include <Eigen/Core>

#include <sgmcmc/data/classification_scores.hpp>
#include <sgmcmc/modules/random/stream.hpp>

using namespace sgmcmc;

TEST_CASE("score_classifier on four examples worked by hand") {
  // Catches: the NLL taken at the top class instead of the label (e1 would give −log 0.6), a sign
  // error, ECE bins not weighted by their share of examples, the boundary b/M in the wrong bin (0.5
  // with M = 2 belongs to the first), a tie not going to the lowest class (e3).
  Eigen::MatrixXd p(3, 4);
  p.col(0) << 0.7, 0.2, 0.1;    // label 0: right, confidence 0.7
  p.col(1) << 0.1, 0.6, 0.3;    // label 2: wrong, confidence 0.6
  p.col(2) << 0.05, 0.05, 0.9;  // label 2: right, confidence 0.9
  p.col(3) << 0.5, 0.5, 0.0;    // label 0: a tie, class 0 chosen: right, confidence 0.5
  Eigen::VectorXi y(4);
  y << 0, 2, 2, 0;
  const auto two = data::score_classifier(p, y, 2);
  CHECK(two.error == doctest::Approx(0.25));
  CHECK(two.nll == doctest::Approx(-(std::log(0.7) + std::log(0.3) + std::log(0.9) + std::log(0.5)) / 4));
  // Bin (0, 0.5]: e3, accuracy 1, confidence 0.5. Bin (0.5, 1]: e0, e1, e2, accuracy 2/3, confidence 2.2/3.
  CHECK(two.ece == doctest::Approx(0.25 * 0.5 + 0.75 * std::abs(2.0 / 3 - 2.2 / 3)));
  // One bin: |overall accuracy − mean confidence| = |0.75 − 0.675|.
  CHECK(data::score_classifier(p, y, 1).ece == doctest::Approx(0.075));
}

TEST_CASE("score_classifier: a calibrated forecaster has ECE near 0, an overconfident one its excess") {
  // Two classes; confidence c ~ U(0.55, 0.95), the top class right with probability c (calibrated) or
  // c − 0.1 (10 points overconfident). With 20,000 examples in 15 bins each bin's accuracy has a
  // standard error of at most √(0.25/800) ≈ 0.018, so ECE ≤ about 0.018·√(2/π) ≈ 0.014 on average when
  // calibrated; overconfident it is 0.1 plus or minus that. Catches an ECE that ignores accuracy, or
  // one that averages signed gaps (it would still pass the first) — the second needs the excess.
  random::Stream rng(2026, 0);
  const int n = 20000;
  Eigen::MatrixXd p(2, n);
  Eigen::VectorXi calibrated(n), over(n);
  for (int i = 0; i < n; ++i) {
    const double c = 0.55 + 0.4 * rng.uniform();
    p.col(i) << c, 1 - c;
    const double u = rng.uniform();
    calibrated[i] = u < c ? 0 : 1;
    over[i] = u < c - 0.1 ? 0 : 1;
  }
  const auto good = data::score_classifier(p, calibrated), bad = data::score_classifier(p, over);
  CHECK(good.ece < 0.03);
  CHECK(std::abs(bad.ece - 0.1) < 0.03);
  CHECK(bad.error > good.error + 0.08);
}

TEST_CASE("score_classifier refuses what it cannot score") {
  Eigen::MatrixXd p = Eigen::MatrixXd::Constant(2, 3, 0.5);
  Eigen::VectorXi y(3);
  y << 0, 1, 2;  // class 2 of 2
  CHECK_THROWS_WITH(data::score_classifier(p, y), doctest::Contains("example 2 has label 2"));
  CHECK_THROWS_WITH(data::score_classifier(p, y.head(2)), doctest::Contains("3 probability columns but 2 labels"));
  y[2] = 1;
  CHECK_THROWS_WITH(data::score_classifier(p, y, 0), doctest::Contains("bins must be at least 1"));
}
