// BPMF (models/bpmf.hpp): gradient against the value, the Gibbs step's conjugate law.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>

#include <sgmcmc/models/bpmf.hpp>
#include <sgmcmc/data/dataset.hpp>

using namespace sgmcmc;
using Eigen::VectorXd;

namespace {
std::shared_ptr<const data::Ratings> tiny_ratings() {
  data::Ratings r;
  r.n_users = 4, r.n_items = 3;
  for (std::uint32_t k = 0; k < 9; ++k) r.user.push_back(k % 4), r.item.push_back((k * 2) % 3), r.rating.push_back(1 + 0.5 * k);
  return std::make_shared<const data::Ratings>(r);
}
}  // namespace

TEST_CASE("BPMF: the gradient is the derivative of the value") {
  // Catches: U and V swapped in the per-rating gradient, a bias index off by the users, a prior slip.
  models::Bpmf m{tiny_ratings(), 2, 3.0, 2.5, std::make_shared<models::BpmfPrecisions>(models::BpmfPrecisions{1.5, 0.7, 2.0, 0.3})};
  const auto pot = models::minibatch(m, 3, models::Sampling::without_replacement);
  random::Stream rng(1, 0);
  VectorXd x = m.initial_point(rng, 0.5);
  for (Eigen::Index k = m.a_offset(); k < m.dim(); ++k) x[k] = 0.1 * static_cast<double>(k % 5) - 0.2;
  VectorXd g(m.dim());
  pot.exact_gradient(x, g);
  for (Eigen::Index k = 0; k < m.dim(); ++k) {
    VectorXd a = x, b = x;
    a[k] += 1e-6, b[k] -= 1e-6;
    CHECK(g[k] == doctest::Approx((pot.value(a) - pot.value(b)) / 2e-6).epsilon(1e-6));
  }
}

TEST_CASE("BPMF: the Gibbs step draws precisions from Gamma(1 + n/2, 1 + ‖block‖²/2)") {
  // Catches: shape and rate swapped (mean (1 + ‖·‖²/2)/(1 + n/2) instead), a scale used as a rate.
  models::Bpmf m{tiny_ratings(), 2, 3.0, 2.5, std::make_shared<models::BpmfPrecisions>()};
  VectorXd x = VectorXd::Constant(m.dim(), 0.5);  // U block: n = 8 coordinates, ‖U‖² = 2
  random::Stream rng(2, 0);
  double sum = 0;
  const int draws = 20000;
  for (int i = 0; i < draws; ++i) m.gibbs(x, rng), sum += m.precisions->user;
  const double shape = 1 + 4.0, rate = 1 + 1.0;  // mean shape/rate = 2.5, sd sqrt(shape)/rate ≈ 1.118
  CHECK(std::abs(sum / draws - shape / rate) < 4.5 * std::sqrt(shape) / rate / std::sqrt(draws));
}
