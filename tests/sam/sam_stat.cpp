// Statistical tests of the SAM potential (compositions/sam.hpp) on synthetic corpora drawn from the model.
// Fixed seeds; Release runtime a few seconds.
#include <doctest/doctest.h>

#include <cmath>

#include <sgmcmc/compositions/sam.hpp>
#include <sgmcmc/samplers/sghmc.hpp>
#include <sgmcmc/samplers/sgnht.hpp>

#include "synthetic.hpp"

using namespace sgmcmc;
using namespace sgmcmc::text;

namespace {
/// The full-batch marginal gradient ∇_β[−log p(β) − Σ_d log p(v_d | β)] for K = 2, where θ = (t, 1−t) and
/// Fisher's identity (SGGMC paper Eq. 10) is an integral over t: midpoint rule on 20000 nodes (the
/// integrand is smooth and, for α = 2, vanishes at both ends; error far below the test's MCSE).
Eigen::VectorXd quadrature_gradient(const Sam& sam, const Eigen::VectorXd& beta) {
  const Eigen::Index V = sam.vocabulary();
  const auto B = sam.topic_matrix(beta);
  Eigen::VectorXd g = Eigen::VectorXd::Zero(beta.size());
  sam.add_prior_gradient(beta, g);
  Eigen::Map<Eigen::MatrixXd> G(g.data(), V, 2);
  const int nodes = 20000;
  const auto& docs = *sam.documents;
  for (std::size_t d = 0; d < docs.size(); ++d) {
    Eigen::VectorXd v = Eigen::VectorXd::Zero(V);
    for (std::size_t j = docs.offset[d]; j < docs.offset[d + 1]; ++j) v[docs.word[j]] = docs.value[j];
    std::vector<double> logw(nodes);
    std::vector<Eigen::MatrixXd> f(nodes);
    double hi = -1e300;
    for (int i = 0; i < nodes; ++i) {
      const double t = (i + 0.5) / nodes;
      const Eigen::Vector2d th(t, 1 - t);
      const Eigen::VectorXd bt = B * th;
      const double r = bt.norm(), vb = v.dot(bt);
      logw[i] = (sam.hyper.alpha - 1) * std::log(t * (1 - t)) + sam.hyper.kappa1 * vb / r;
      f[i] = -sam.hyper.kappa1 * (v / r - (vb / (r * r * r)) * bt) * th.transpose();
      hi = std::max(hi, logw[i]);
    }
    double z = 0;
    Eigen::MatrixXd e = Eigen::MatrixXd::Zero(V, 2);
    for (int i = 0; i < nodes; ++i) {
      const double w = std::exp(logw[i] - hi);
      z += w;
      e += w * f[i];
    }
    G += e / z;
  }
  return g;
}
}  // namespace

TEST_CASE("SAM stochastic gradient is unbiased for the full-batch marginal gradient (K = 2, quadrature)") {
  // The minibatch estimate with θ drawn by GMC per document, averaged over 3000 independent calls
  // (batch 5 of 20 documents, a new batch and θ key each call), against the exact Fisher-identity
  // gradient by quadrature. Tolerance: every coordinate within 4.5 MCSE of the truth (20 coordinates:
  // false-alarm rate ~1e-4), plus an allowance of 1% of the gradient's scale for the bias of 20 GMC burn-in
  // trajectories. Catches: a wrong D/n scale, a missing or wrong βP term, a wrong θ potential (the (α−1)
  // term or its sign: the θ posterior would be wrong), using the least-squares θ instead of posterior draws.
  const auto c = sam_test::make_corpus(10, 2, 20, 1, 5, 5, 2, 21);
  SamHyper h;
  h.kappa0 = 5, h.sigma = 5, h.kappa1 = 5, h.alpha = 2;
  ThetaGmc t;
  t.burn_in = 20, t.draws = 10, t.leapfrog_steps = 10, t.step_size = 0.1;
  const Sam sam(c.train, 2, h, t, 5, 1);
  random::Stream rng(31, 0);
  const Eigen::VectorXd beta = sam.initial_topics(rng);
  const Eigen::VectorXd exact = quadrature_gradient(sam, beta);
  const int calls = 3000;
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(beta.size()), sum2 = sum, g;
  for (int i = 0; i < calls; ++i) {
    sam.gradient(beta, g, rng);
    sum += g;
    sum2 += g.cwiseProduct(g);
  }
  const Eigen::VectorXd mean = sum / calls;
  const Eigen::VectorXd se = ((sum2 / calls - mean.cwiseProduct(mean)) / (calls - 1)).cwiseSqrt();
  const double scale = exact.cwiseAbs().maxCoeff();
  double worst = 0;
  for (Eigen::Index i = 0; i < beta.size(); ++i) {
    const double z = std::abs(mean[i] - exact[i]) / (4.5 * se[i] + 0.01 * scale);
    worst = std::max(worst, z);
    CHECK_MESSAGE(z <= 1.0, "coordinate " << i << ": mean " << mean[i] << " exact " << exact[i] << " se " << se[i]);
  }
  MESSAGE("max |mean - exact| / (4.5 se + 1% scale) = " << worst << "; scale " << scale);
  // The same with the least-squares θ and no sampling would be biased: check the test has the power to
  // see the difference between posterior draws and the plug-in start (sanity of the tolerance).
  ThetaGmc plug = t;
  plug.burn_in = 0, plug.draws = 1, plug.step_size = 1e-9, plug.leapfrog_steps = 1;
  const Sam plugin(c.train, 2, h, plug, 20, 1);
  Eigen::VectorXd gp;
  plugin.gradient(beta, gp, rng);
  double far = 0;
  for (Eigen::Index i = 0; i < beta.size(); ++i) far = std::max(far, std::abs(gp[i] - exact[i]) / (4.5 * se[i] + 0.01 * scale));
  CHECK(far > 1.0);
}

namespace {
struct Fit {
  std::vector<double> cosines;
  double perplexity, max_sphere_distance, max_simplex_violation, acceptance;
};
template <class S>
Fit run(S sampler, const Sam& sam, const sam_test::Synthetic& c, int steps, std::uint64_t seed) {
  random::Stream rng(seed, 0);
  auto st = sampler.init(sam.initial_topics(rng), rng);
  std::vector<Eigen::VectorXd> kept;
  Fit f{{}, 0, 0, 0, 0};
  std::uint64_t acc = 0, prop = 0;
  const auto M = sam.manifold();
  for (int t = 0; t < steps; ++t) {
    sampler.step(st, sam, rng, static_cast<std::uint64_t>(t));
    f.max_sphere_distance = std::max(f.max_sphere_distance, M.distance_to(st.x));
    f.max_simplex_violation = std::max(f.max_simplex_violation, sam.last.max_simplex_violation);
    acc += sam.last.accepted, prop += sam.last.proposals;
    if (t >= steps / 2 && t % 10 == 0) kept.push_back(st.x);
  }
  Eigen::MatrixXd avg = Eigen::MatrixXd::Zero(sam.vocabulary(), sam.topics);
  for (const auto& k : kept) avg += sam.topic_matrix(k);
  f.cosines = sam_test::matched_cosines(avg, c.topics);
  f.perplexity = sam.log_perplexity(kept, c.test, 200, rng);
  f.acceptance = static_cast<double>(acc) / static_cast<double>(prop);
  return f;
}
}  // namespace

TEST_CASE("SGGMC and gSGNHT recover planted SAM topics and beat random topics on held-out log-perplexity") {
  // V = 40, K = 3, 400 training and 100 test documents from the model (σ = 10, κ1 = 200, α = 1); batch 50,
  // 800 steps, h = 0.003, the posterior mean of the second half. Bounds: every planted topic matched with
  // cosine ≥ 0.98 (seen: ≥ 0.995; random unit vectors in R^40 have |cos| ≈ 0.16, the initial topics ~0.6);
  // log-perplexity below random topics' (seen: −46 vs +150) and within 1 nat of the planted topics'.
  // Every topic on its sphere to 1e-10, every θ on its simplex to 1e-12. Catches: a sign error in either
  // gradient term (topics would drift away from the data), a wrong scale (no convergence or divergence),
  // manifold drift.
  const auto c = sam_test::make_corpus(40, 3, 400, 100, 10, 200, 1.0, 11);
  SamHyper h;
  h.kappa0 = 10, h.sigma = 10, h.kappa1 = 200, h.alpha = 1;
  ThetaGmc t;
  t.burn_in = 10, t.draws = 5, t.leapfrog_steps = 5, t.step_size = 0.05;
  const Sam sam(c.train, 3, h, t, 50, 1);
  random::Stream r(5, 9);
  const double random_perp = sam.log_perplexity({sam.manifold().random_point(r)}, c.test, 200, r);
  const Eigen::VectorXd truth = Eigen::Map<const Eigen::VectorXd>(c.topics.data(), c.topics.size());
  const double truth_perp = sam.log_perplexity({truth}, c.test, 200, r);
  using M = Power<Sphere>;
  const Fit sggmc = run(sghmc::Sampler<M>(sghmc::Dynamics<M>{sam.manifold(), sghmc::Friction(30.0)}, splitting::aboba,
                                          schedule::StepSize::constant(0.003)),
                        sam, c, 800, 1);
  const Fit gsgnht = run(sgnht::Sampler<M>{sgnht::Dynamics<M>{sam.manifold(), 30.0}, splitting::aboba,
                                           schedule::StepSize::constant(0.003)},
                         sam, c, 800, 2);
  for (const auto* f : {&sggmc, &gsgnht}) {
    MESSAGE("cosines " << f->cosines[0] << " " << f->cosines[1] << " " << f->cosines[2] << "; log-perplexity "
                       << f->perplexity << " (random " << random_perp << ", planted " << truth_perp << "); θ acceptance "
                       << f->acceptance);
    for (double cs : f->cosines) CHECK(cs >= 0.98);
    CHECK(f->perplexity < random_perp);
    CHECK(f->perplexity < truth_perp + 1.0);
    CHECK(f->max_sphere_distance <= 1e-10);
    CHECK(f->max_simplex_violation <= 1e-12);
  }
}
