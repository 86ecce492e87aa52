// The expanded-mean samplers of online LDA (samplers/expanded_mean.hpp on lda::Model's counts) against
// the code they replaced: `Reference` below is the previous lda::Sampler (models/text/lda.hpp before the
// samplers moved out of models/), kept verbatim apart from its name. Every method, scheme and
// counter-example switch must reproduce it to the bit over 100 steps that reflect, so that runs and the
// numbers in docs/reproductions.md are unchanged by the move. Also: the samplers satisfy the Sampler
// concept, init checks its input, and a non-finite step throws an Error naming the sampler.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include <sgmcmc/models/text/lda.hpp>
#include <sgmcmc/samplers/expanded_mean.hpp>

namespace lda_samplers {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc;
using namespace sgmcmc::text;

static_assert(expanded_mean::CountPotential<lda::Model, random::Stream>);
static_assert(Sampler<expanded_mean::Langevin, lda::Model, random::Stream>);
static_assert(Sampler<expanded_mean::Hamiltonian, lda::Model, random::Stream>);
static_assert(!Sampler<expanded_mean::Langevin>);  // its potential is a CountPotential, not a gradient
static_assert(expanded_mean::CountPotential<expanded_mean::detail::ArchetypeCountPotential, random::Stream>);
static_assert(Sampler<expanded_mean::Langevin, expanded_mean::detail::ArchetypeCountPotential>);
static_assert(Sampler<expanded_mean::Hamiltonian, expanded_mean::detail::ArchetypeCountPotential>);

namespace {

// The previous code, verbatim from here to the end of `Reference`.
using lda::Model;

/// π_kw = θ_kw / θ_k· (rows of the K×V matrix normalised).
inline void topics_from_theta(const Eigen::MatrixXd& theta, Eigen::MatrixXd& pi) {
  pi = theta;
  const Eigen::VectorXd rows = theta.rowwise().sum();
  for (Eigen::Index k = 0; k < theta.rows(); ++k) pi.row(k) /= rows[k];
}

enum class Method { sgrld, sgld, sghmc, sgrhmc };
inline const char* name(Method m) {
  switch (m) {
    case Method::sgrld: return "sgrld";
    case Method::sgld: return "sgld";
    case Method::sghmc: return "sghmc";
    case Method::sgrhmc: return "sgrhmc";
  }
  return "?";
}
inline bool has_momentum(Method m) { return m == Method::sghmc || m == Method::sgrhmc; }

struct State {
  Eigen::MatrixXd theta;  ///< K×V expanded mean, > 0
  Eigen::MatrixXd pi;     ///< K×V topics, rows on the simplex
  Eigen::MatrixXd nkw;    ///< scratch: scaled expected counts
  Eigen::VectorXd nk, rows;
  Eigen::MatrixXd noise;
  Eigen::MatrixXd r;              ///< K×V momentum (SGHMC, SGRHMC); empty otherwise
  std::uint64_t reflections = 0;  ///< coordinates mirrored at 0
  std::uint64_t documents = 0;    ///< documents processed
};

struct Reference {
  Method method = Method::sgrld;
  schedule::StepSize step_size = schedule::StepSize::constant(0.01);
  double friction = 1.0;  ///< SGHMC's C
  sgrhmc::Variant hmc_variant = sgrhmc::Variant::generalized;  ///< SGRHMC: naive drops Γ (a counter-example)
  bool flip_on_reflect = true;  ///< momentum samplers: r_i <- −r_i when θ_i is mirrored (false: a counter-example)
  /// Momentum samplers: semi_implicit (default) moves θ with r_t, then kicks r with the gradient, G and
  /// friction at θ_{t+1} (symplectic Euler; SGHMC Alg. 2's order; sgrhmc.hpp's Scheme::semi_implicit);
  /// euler takes both from (θ_t, r_t) (sgrhmc.hpp's Scheme::euler). Both are first order; explicit Euler
  /// pumps energy into the stiff coordinates near θ = 0 and is far more biased there (tests/text).
  recipe::Scheme scheme = recipe::Scheme::semi_implicit;

  /// θ_kw ~ Gamma(1, 1) i.i.d.: a random start that breaks the topics' label symmetry.
  template <class R>
  State init(const Model& m, R& rng) const {
    m.validate();
    step_size.validate();
    State s;
    s.theta.resize(m.K, m.vocabulary_size());
    for (Eigen::Index i = 0; i < s.theta.size(); ++i) s.theta.data()[i] = random::gamma(rng, 1.0);
    topics_from_theta(s.theta, s.pi);
    s.noise.resize(m.K, m.vocabulary_size());
    if (has_momentum(method)) {
      require(std::isfinite(friction) && friction > 0, "lda.friction: expected a positive number, got {}", friction);
      s.r.resize(m.K, m.vocabulary_size());  // r ~ N(0, I): its stationary law
      rng.normals(Eigen::Map<Eigen::VectorXd>(s.r.data(), s.r.size()));
    }
    return s;
  }

  template <class R>
  void step(State& s, const Model& m, R& rng, std::uint64_t t) const {
    const double eps = step_size.at(t);
    if (has_momentum(method) && scheme == recipe::Scheme::semi_implicit) drift_positions(s, eps);  // θ first
    m.batch_counts(s.pi, rng, s.nkw, s.nk);
    s.documents += m.batch_size;
    rng.normals(Eigen::Map<Eigen::VectorXd>(s.noise.data(), s.noise.size()));
    const double sd = std::sqrt(eps), half = 0.5 * eps, beta = m.beta;
    constexpr double tiny = std::numeric_limits<double>::min();
    s.rows = s.theta.rowwise().sum();
    if (has_momentum(method)) {
      if (scheme == recipe::Scheme::semi_implicit) kick(s, m, eps, t);
      else momentum_step(s, m, eps, t);
      return;
    }
    for (Eigen::Index w = 0; w < s.theta.cols(); ++w) {
      for (Eigen::Index k = 0; k < s.theta.rows(); ++k) {
        const double th = s.theta(k, w);
        double next;
        if (method == Method::sgrld)  // θ·∂log p + Γ = β − θ + n_kw − π_kw n_k  (docs/math.md)
          next = th + half * (beta - th + s.nkw(k, w) - s.pi(k, w) * s.nk[k]) + std::sqrt(th) * sd * s.noise(k, w);
        else  // D = I: the Euclidean gradient of log p (Eq. S.29)
          next = th + half * ((beta - 1.0) / th - 1.0 + s.nkw(k, w) / th - s.nk[k] / s.rows[k]) + sd * s.noise(k, w);
        if (next < 0) next = -next, ++s.reflections;
        if (!std::isfinite(next)) throw Error(fmt::format("lda {}: non-finite θ at step {} (step size {} too large?)", name(method), t, eps));
        s.theta(k, w) = std::max(next, tiny);
      }
    }
    topics_from_theta(s.theta, s.pi);
  }

 private:
  // Semi-implicit, first half: θ <- θ + h a(θ) r (a = √θ for SGRHMC, 1 for SGHMC), folded by S_i.
  void drift_positions(State& s, double h) const {
    constexpr double tiny = std::numeric_limits<double>::min();
    for (Eigen::Index i = 0; i < s.theta.size(); ++i) {
      double& th = s.theta.data()[i];
      double next = th + h * (method == Method::sgrhmc ? std::sqrt(th) : 1.0) * s.r.data()[i];
      if (next < 0) {
        next = -next, ++s.reflections;
        if (flip_on_reflect) s.r.data()[i] = -s.r.data()[i];
      }
      th = std::max(next, tiny);
    }
    topics_from_theta(s.theta, s.pi);
  }
  // Semi-implicit, second half: r <- r + h[force(θ) − d(θ) r] + N(0, 2h d(θ)) at the new θ, d = θ (SGRHMC)
  // or C (SGHMC); the forces are momentum_step's.
  void kick(State& s, const Model& m, double h, std::uint64_t t) const {
    const double beta = m.beta, c = friction, sd_hmc = std::sqrt(2.0 * c * h), sd = std::sqrt(2.0 * h);
    const bool gamma = hmc_variant == sgrhmc::Variant::generalized;
    for (Eigen::Index w = 0; w < s.theta.cols(); ++w) {
      for (Eigen::Index k = 0; k < s.theta.rows(); ++k) {
        const double th = s.theta(k, w), r = s.r(k, w);
        double rn;
        if (method == Method::sgrhmc) {
          const double a = std::sqrt(th);
          const double force = (beta - 1.0 + s.nkw(k, w) - th - s.pi(k, w) * s.nk[k]) / a + (gamma ? 0.5 / a : 0.0);
          rn = r + h * (force - th * r) + sd * a * s.noise(k, w);
        } else {
          const double force = (beta - 1.0) / th - 1.0 + s.nkw(k, w) / th - s.nk[k] / s.rows[k];
          rn = r + h * (force - c * r) + sd_hmc * s.noise(k, w);
        }
        if (!std::isfinite(rn)) throw Error(fmt::format("lda {}: non-finite r at step {} (step size {} too large?)", name(method), t, h));
        s.r(k, w) = rn;
      }
    }
  }
  // Explicit Euler from the state at the start of the step (θ and r both from (θ_t, r_t), as
  // samplers/sgrhmc.hpp's Scheme::euler), then the fold S_i of every coordinate that left θ > 0.
  void momentum_step(State& s, const Model& m, double h, std::uint64_t t) const {
    const double beta = m.beta, c = friction, sd_hmc = std::sqrt(2.0 * c * h), sd = std::sqrt(2.0 * h);
    const bool gamma = hmc_variant == sgrhmc::Variant::generalized;
    constexpr double tiny = std::numeric_limits<double>::min();
    for (Eigen::Index w = 0; w < s.theta.cols(); ++w) {
      for (Eigen::Index k = 0; k < s.theta.rows(); ++k) {
        const double th = s.theta(k, w), r = s.r(k, w);
        double next, rn;
        if (method == Method::sgrhmc) {
          const double a = std::sqrt(th);  // G^{-1/2}
          // −√θ ∂U/∂θ + Γ_r,  Γ_r = ∂√θ/∂θ = 1/(2√θ)
          const double force = (beta - 1.0 + s.nkw(k, w) - th - s.pi(k, w) * s.nk[k]) / a + (gamma ? 0.5 / a : 0.0);
          next = th + h * a * r;
          rn = r + h * (force - th * r) + sd * a * s.noise(k, w);
        } else {  // SGHMC: −∂U/∂θ, Eq. S.29
          const double force = (beta - 1.0) / th - 1.0 + s.nkw(k, w) / th - s.nk[k] / s.rows[k];
          next = th + h * r;
          rn = r + h * (force - c * r) + sd_hmc * s.noise(k, w);
        }
        if (next < 0) {
          next = -next, ++s.reflections;
          if (flip_on_reflect) rn = -rn;
        }
        if (!std::isfinite(next) || !std::isfinite(rn))
          throw Error(fmt::format("lda {}: non-finite θ or r at step {} (step size {} too large?)", name(method), t, h));
        s.theta(k, w) = std::max(next, tiny);
        s.r(k, w) = rn;
      }
    }
    topics_from_theta(s.theta, s.pi);
  }
};

// (end of the previous code)

std::shared_ptr<Corpus> small_corpus() {
  auto c = std::make_shared<Corpus>();
  c->vocabulary_size = 9;
  random::Stream rng(5, 4);
  for (int d = 0; d < 16; ++d) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> e;
    for (std::uint32_t w = 0; w < 9; ++w)
      if (rng.uniform() < 0.4) e.emplace_back(w, 1 + static_cast<std::uint32_t>(4 * rng.uniform()));
    if (e.empty()) e.emplace_back(0, 2);
    c->add(e);
  }
  return c;
}

lda::Model small_model() {
  lda::Model m;
  m.corpus = small_corpus();
  m.K = 3, m.alpha = 0.3, m.beta = 0.05, m.batch_size = 4, m.gibbs_sweeps = 4, m.gibbs_burn_in = 1;
  return m;
}

/// Runs the reference and the new sampler side by side from the same seed; every step's θ, π, r and
/// reflection count must be equal to the bit. Returns the reflections (the test wants some).
template <class NewSampler>
std::uint64_t compare(const Reference& ref, const NewSampler& fresh, int steps) {
  const auto m = small_model();
  random::Stream ra(41, 3), rb(41, 3);
  auto a = ref.init(m, ra);
  auto b = fresh.start(expanded_mean::random_rows(m.K, m.vocabulary_size(), rb), rb);
  for (int t = 0; t < steps; ++t) {
    const auto tt = static_cast<std::uint64_t>(t);
    ref.step(a, m, ra, tt);
    const StepInfo info = fresh.step(b, m, rb, tt);
    REQUIRE(info.gradient_evals == 1);
    REQUIRE(info.step_size == ref.step_size.at(tt));
    REQUIRE(fresh.theta(b) == a.theta);
    REQUIRE(fresh.topics(b) == a.pi);
    if (has_momentum(ref.method)) REQUIRE(expanded_mean::as_rows(b.r, m.K) == a.r);
    REQUIRE(b.reflections == a.reflections);
  }
  CHECK(ra.normal() == rb.normal());  // the same draws were consumed
  CHECK(b.gradient_evals == static_cast<std::uint64_t>(steps));
  return b.reflections;
}

}  // namespace

TEST_CASE("expanded-mean Langevin (SGRLD, SGLD) on LDA = the previous lda::Sampler, to the bit") {
  const auto eps = schedule::StepSize::polynomial(0.05 * std::pow(10.0, 0.6), 10.0, 0.6);
  CHECK(compare(Reference{Method::sgrld, eps}, expanded_mean::Langevin{3, expanded_mean::Metric::fisher, eps}, 100) > 0);
  CHECK(compare(Reference{Method::sgld, eps}, expanded_mean::Langevin{3, expanded_mean::Metric::identity, eps}, 100) > 0);
}

TEST_CASE("expanded-mean Hamiltonian (SGRHMC, SGHMC) on LDA = the previous lda::Sampler, to the bit") {
  const auto h = schedule::StepSize::constant(0.02);
  for (auto scheme : {recipe::Scheme::semi_implicit, recipe::Scheme::euler})
    for (auto variant : {sgrhmc::Variant::generalized, sgrhmc::Variant::naive})
      for (bool flip : {true, false})
        for (double friction : {1.0, 10.0})
          for (Method method : {Method::sgrhmc, Method::sghmc}) {
            CAPTURE(static_cast<int>(scheme));
            CAPTURE(static_cast<int>(variant));
            CAPTURE(flip);
            CAPTURE(friction);
            CAPTURE(name(method));
            Reference ref{method, h};
            ref.scheme = scheme, ref.hmc_variant = variant, ref.flip_on_reflect = flip, ref.friction = friction;
            const auto metric = method == Method::sgrhmc ? expanded_mean::Metric::fisher : expanded_mean::Metric::identity;
            expanded_mean::Hamiltonian fresh{3, metric, h};
            fresh.scheme = scheme, fresh.variant = variant, fresh.flip_on_reflect = flip, fresh.friction = friction;
            CHECK(compare(ref, fresh, 100) > 0);
          }
}

TEST_CASE("expanded-mean samplers: init lifts rows of π, checks its input, and a non-finite step names the sampler") {
  const auto m = small_model();
  random::Stream rng(1, 0);
  const expanded_mean::Langevin l{m.K, expanded_mean::Metric::fisher, schedule::StepSize::constant(0.01)};
  Eigen::MatrixXd pi = Eigen::MatrixXd::Constant(m.K, m.vocabulary_size(), 1.0 / 9.0);
  pi(0, 0) = 0.0, pi(0, 1) = 2.0 / 9.0;  // a zero is lifted to the smallest normal double
  const auto st = l.init(Eigen::Map<const Eigen::VectorXd>(pi.data(), pi.size()), rng);
  CHECK(l.theta(st)(0, 0) == std::numeric_limits<double>::min());
  CHECK(l.theta(st)(1, 4) == doctest::Approx(1.0));  // θ_k = W π_k
  CHECK((l.topics(st) - pi).cwiseAbs().maxCoeff() < 1e-15);
  CHECK(l.position(st).size() == m.dimension());
  CHECK_THROWS_WITH_AS(l.init(Eigen::VectorXd::Constant(m.dimension(), 0.5), rng), doctest::Contains("simplex"), Error);
  CHECK_THROWS_WITH_AS(l.init(Eigen::VectorXd::Constant(10, 0.1), rng), doctest::Contains("K = 3"), Error);
  CHECK_THROWS_WITH_AS(l.start(Eigen::MatrixXd::Zero(m.K, 9), rng), doctest::Contains("θ > 0"), Error);
  expanded_mean::Hamiltonian bad{m.K};
  bad.friction = 0;
  CHECK_THROWS_WITH_AS(bad.start(Eigen::MatrixXd::Ones(m.K, 9), rng), doctest::Contains("friction"), Error);
  // A step size far too large: r overflows, and the Error names the sampler and the step.
  const expanded_mean::Hamiltonian wild{m.K, expanded_mean::Metric::fisher, schedule::StepSize::constant(1e300)};
  auto ws = wild.start(Eigen::MatrixXd::Ones(m.K, 9), rng);
  StepInfo info;
  wild.describe(ws, info);
  CHECK(std::isfinite(info.kinetic_energy));
  CHECK_THROWS_WITH_AS(wild.step(ws, m, rng, 0), doctest::Contains("sgrhmc: non-finite"), Error);
}

}  // namespace lda_samplers
