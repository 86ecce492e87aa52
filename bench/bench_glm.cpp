// The glm target's minibatch gradient against the logistic target's on the same model (issue #35 item
// 1: "minibatch cost the same as the logistic target's for the same family"): Bayesian logistic
// regression, N = 10⁵ examples, d = 50 features (an intercept column among them), θ ~ N(0, I), batches
// of 100 drawn without replacement, one stochastic gradient ∇Ũ per iteration, three ways:
//   Hand     - the best plain Eigen code: the batch's columns gathered into X_b (d × n), z = X_bᵀθ,
//              r = σ(z) − y vectorised, g = θ + (N/n) X_b r (Welling & Teh 2011 Eq. 3);
//   Logistic - models::minibatch(models::LogisticRegression), the logistic target's potential;
//   Glm      - models::minibatch(models::glm::Glm) with family bernoulli (logit), no intercept of its
//              own (the data's first column is 1), prior normal(0, 1) on every b: the same posterior.
// All three draw the batch indices from the same stream (models::batch_indices), so they compute the
// same gradient; the setup checks that they agree to 1e-10 relative before any timing (a benchmark of
// different work would be meaningless). Run: build-bench/bench/bench_glm (scripts/bench.sh builds it).
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include <Eigen/Core>
#include <benchmark/benchmark.h>

#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/models/glm/model.hpp>
#include <sgmcmc/models/logistic.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/modules/random/stream.hpp>

namespace {

using namespace sgmcmc;
using Eigen::VectorXd;

constexpr std::size_t N = 100000, batch = 100;
constexpr Eigen::Index d = 50;

const data::Dataset<double>& dataset() {
  static const data::Dataset<double> data = data::synthetic_logistic(N, d, 1).data;
  return data;
}

auto logistic() {
  return models::minibatch(models::LogisticRegression{std::make_shared<const data::Dataset<double>>(dataset()), 1.0}, batch,
                           models::Sampling::without_replacement);
}

auto glm() {
  const auto& data = dataset();
  models::glm::GlmData g{data.x, data.y.cast<double>()};
  models::glm::GlmPriors priors;
  priors.b.assign(static_cast<std::size_t>(d), models::glm::Normal{0, 1});
  return models::minibatch(models::glm::make_glm(std::move(g), models::glm::make_family("bernoulli", "logit"), std::move(priors), false),
                           batch, models::Sampling::without_replacement);
}

/// The hand-written gradient, with the batch indices the library's estimators draw.
struct Hand {
  const data::Dataset<double>& data = dataset();
  mutable std::vector<std::size_t> idx;
  mutable Eigen::MatrixXd xb{d, static_cast<Eigen::Index>(batch)};
  mutable VectorXd yb{static_cast<Eigen::Index>(batch)}, r{static_cast<Eigen::Index>(batch)};
  void gradient(const VectorXd& x, VectorXd& g, random::Stream& rng) const {
    models::batch_indices(rng.next_batch(), batch, N, models::Sampling::without_replacement, rng.seed(), rng.stream_id(), idx);
    for (std::size_t j = 0; j < batch; ++j) {
      xb.col(static_cast<Eigen::Index>(j)) = data.x.col(static_cast<Eigen::Index>(idx[j]));
      yb[static_cast<Eigen::Index>(j)] = data.y[static_cast<Eigen::Index>(idx[j])];
    }
    r.noalias() = xb.transpose() * x;
    r = (1.0 + (-r.array()).exp()).inverse() - yb.array();
    g = x;
    g.noalias() += (static_cast<double>(N) / batch) * (xb * r);
  }
};

VectorXd point() {
  VectorXd x(d);
  random::Stream(3, 0).normals(x);
  return 0.3 * x;
}

template <class P>
VectorXd gradient_of(const P& p) {
  random::Stream rng(11, 0);
  VectorXd g(d);
  p.gradient(point(), g, rng);
  return g;
}

/// The three compute the same gradient (the check a timing of different work would fail).
void check_once() {
  static const bool done = [] {
    const VectorXd hand = gradient_of(Hand{}), lr = gradient_of(logistic()), gl = gradient_of(glm());
    const double scale = hand.cwiseAbs().maxCoeff();
    if ((lr - hand).cwiseAbs().maxCoeff() > 1e-10 * scale || (gl - hand).cwiseAbs().maxCoeff() > 1e-10 * scale)
      throw std::runtime_error("bench_glm: the three gradients differ: not the same work");
    return true;
  }();
  (void)done;
}

template <class P>
void time_gradient(benchmark::State& state, const P& p) {
  check_once();
  random::Stream rng(11, 0);
  const VectorXd x = point();
  VectorXd g(d);
  for (auto _ : state) {
    p.gradient(x, g, rng);
    benchmark::DoNotOptimize(g.data());
  }
}

void Hand_gradient(benchmark::State& state) { time_gradient(state, Hand{}); }
void Logistic_gradient(benchmark::State& state) { time_gradient(state, logistic()); }
void Glm_gradient(benchmark::State& state) { time_gradient(state, glm()); }

BENCHMARK(Hand_gradient);
BENCHMARK(Logistic_gradient);
BENCHMARK(Glm_gradient);

}  // namespace

BENCHMARK_MAIN();
