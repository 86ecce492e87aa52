#pragma once
// Bayesian probabilistic matrix factorisation with biases (Salakhutdinov & Mnih 2008; the SGHMC paper
// §4.3 and App. H.2), a DataModel over ratings for models::Minibatch:
//   r_uj ~ N(μ + U_uᵀV_j + a_u + b_j, 1/τ),  U_u ~ N(0, I/λ_U), V_j ~ N(0, I/λ_V), a_u ~ N(0, 1/λ_a),
//   b_j ~ N(0, 1/λ_b),  λ_· ~ Gamma(1, 1) resampled by a Gibbs step (`gibbs`) every so many SG steps.
// μ is the training mean (fixed). θ = [vec(U) (D×users, column per user), vec(V) (D×items), a, b].
// The precisions live behind a shared_ptr: the sampler loop's Gibbs step updates them between steps,
// and every copy of the potential sees the update. U(θ) = Σ ½τ(pred − r)² + Σ_blocks ½λ‖block‖².
#include <cmath>
#include <cstdint>
#include <memory>
#include <numbers>

#include <Eigen/Core>

#include <sgmcmc/data/ratings.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/modules/random/distributions.hpp>

namespace sgmcmc::models {

struct BpmfPrecisions {
  double user = 1, item = 1, user_bias = 1, item_bias = 1;
};

struct Bpmf {
  std::shared_ptr<const data::Ratings> ratings;
  Eigen::Index latent = 20;   ///< D (the paper: 20)
  double tau = 3.0;           ///< observation precision τ
  double mean = 0.0;          ///< μ, the training mean
  std::shared_ptr<BpmfPrecisions> precisions = std::make_shared<BpmfPrecisions>();

  Eigen::Index users() const { return ratings->n_users; }
  Eigen::Index items() const { return ratings->n_items; }
  Eigen::Index dim() const { return (latent + 1) * (users() + items()); }
  Eigen::Index v_offset() const { return latent * users(); }
  Eigen::Index a_offset() const { return latent * (users() + items()); }
  Eigen::Index b_offset() const { return a_offset() + users(); }
  std::size_t size() const { return ratings->size(); }

  /// The prediction for user u and item j at θ.
  double predict(const Eigen::VectorXd& th, std::uint32_t u, std::uint32_t j) const {
    const auto D = latent;
    double p = mean + th[a_offset() + u] + th[b_offset() + j];
    if (u < users() && j < items()) p += th.segment(D * u, D).dot(th.segment(v_offset() + D * j, D));
    return p;
  }

  void add_prior_gradient(const Eigen::VectorXd& th, Eigen::VectorXd& g) const {
    const auto& l = *precisions;
    g.segment(0, v_offset()).noalias() += l.user * th.segment(0, v_offset());
    g.segment(v_offset(), latent * items()).noalias() += l.item * th.segment(v_offset(), latent * items());
    g.segment(a_offset(), users()).noalias() += l.user_bias * th.segment(a_offset(), users());
    g.segment(b_offset(), items()).noalias() += l.item_bias * th.segment(b_offset(), items());
  }
  double prior_value(const Eigen::VectorXd& th) const {
    const auto& l = *precisions;
    return 0.5 * (l.user * th.segment(0, v_offset()).squaredNorm() + l.item * th.segment(v_offset(), latent * items()).squaredNorm() +
                  l.user_bias * th.segment(a_offset(), users()).squaredNorm() + l.item_bias * th.segment(b_offset(), items()).squaredNorm());
  }
  /// g += scale·τ(pred − r)·∂pred/∂θ for rating k.
  void add_example_gradient(const Eigen::VectorXd& th, std::size_t k, Eigen::VectorXd& g, double scale) const {
    const std::uint32_t u = ratings->user[k], j = ratings->item[k];
    const auto D = latent;
    const double e = scale * tau * (predict(th, u, j) - ratings->rating[k]);
    g.segment(D * u, D).noalias() += e * th.segment(v_offset() + D * j, D);
    g.segment(v_offset() + D * j, D).noalias() += e * th.segment(D * u, D);
    g[a_offset() + u] += e;
    g[b_offset() + j] += e;
  }
  double example_value(const Eigen::VectorXd& th, std::size_t k) const {
    const double e = predict(th, ratings->user[k], ratings->item[k]) - ratings->rating[k];
    return 0.5 * tau * e * e;
  }
  /// log N(r_k | prediction, 1/τ), every constant included (pointwise log-likelihood, for LOO).
  double example_log_likelihood(const Eigen::VectorXd& th, std::size_t k) const {
    return -example_value(th, k) + 0.5 * std::log(tau / (2 * std::numbers::pi));
  }

  /// The Gibbs step for the precisions given θ: λ | block ~ Gamma(1 + n/2, rate 1 + ‖block‖²/2), the
  /// conjugate update of a Gamma(1, 1) prior for a block of n N(0, 1/λ) coordinates (App. H.2).
  template <class R>
  void gibbs(const Eigen::VectorXd& th, R& rng) const {
    auto draw = [&](Eigen::Index off, Eigen::Index n) {
      const double ss = th.segment(off, n).squaredNorm();
      return random::gamma(rng, 1.0 + 0.5 * static_cast<double>(n)) / (1.0 + 0.5 * ss);
    };
    BpmfPrecisions& l = *precisions;
    l.user = draw(0, v_offset());
    l.item = draw(v_offset(), latent * items());
    l.user_bias = draw(a_offset(), users());
    l.item_bias = draw(b_offset(), items());
  }

  /// A starting point: latent factors N(0, init_sd²), biases 0 (a pure function of the stream).
  template <class R>
  Eigen::VectorXd initial_point(R& rng, double init_sd = 0.1) const {
    Eigen::VectorXd th = Eigen::VectorXd::Zero(dim());
    Eigen::VectorXd z(a_offset());
    rng.normals(z);
    th.head(a_offset()) = init_sd * z;
    return th;
  }
};
static_assert(DataModel<Bpmf>);

/// Root mean squared error of predictions `pred` (one per rating of `r`) against r's ratings,
/// clipped to the rating range [lo, hi] first (as MovieLens predictions are).
inline double rmse(const data::Ratings& r, const Eigen::VectorXd& pred, double lo = 0.5, double hi = 5.0) {
  double ss = 0;
  for (std::size_t k = 0; k < r.size(); ++k) {
    const double p = std::min(hi, std::max(lo, pred[static_cast<Eigen::Index>(k)]));
    ss += (p - r.rating[k]) * (p - r.rating[k]);
  }
  return std::sqrt(ss / static_cast<double>(r.size()));
}

/// The user + item bias baseline r ≈ μ + a_u + b_j, fitted by ridge-regularised alternating least
/// squares (`reg` on every bias, `sweeps` alternations). Returns [a, b].
inline Eigen::VectorXd fit_biases(const data::Ratings& r, double reg = 5.0, int sweeps = 20) {
  const double mu = r.mean();
  Eigen::VectorXd a = Eigen::VectorXd::Zero(r.n_users), b = Eigen::VectorXd::Zero(r.n_items);
  Eigen::VectorXd sum_u(r.n_users), sum_i(r.n_items), cnt_u(r.n_users), cnt_i(r.n_items);
  for (int s = 0; s < sweeps; ++s) {
    sum_u.setZero(), cnt_u.setZero();
    for (std::size_t k = 0; k < r.size(); ++k) sum_u[r.user[k]] += r.rating[k] - mu - b[r.item[k]], cnt_u[r.user[k]] += 1;
    a = sum_u.array() / (cnt_u.array() + reg);
    sum_i.setZero(), cnt_i.setZero();
    for (std::size_t k = 0; k < r.size(); ++k) sum_i[r.item[k]] += r.rating[k] - mu - a[r.user[k]], cnt_i[r.item[k]] += 1;
    b = sum_i.array() / (cnt_i.array() + reg);
  }
  Eigen::VectorXd out(r.n_users + r.n_items);
  out << a, b;
  return out;
}

}  // namespace sgmcmc::models
