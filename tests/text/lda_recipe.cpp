// Online LDA's momentum samplers against the library's complete-recipe sampler: one SGRHMC step of
// expanded_mean::Hamiltonian (metric fisher) on lda::Model's counts equals one step of
// samplers/sgrhmc.hpp with metric::FisherDiagonal (G⁻¹ = diag θ, Γ_r = ∇·G^{-1/2} = 1/(2√θ)) driven by
// lda::Model::gradient on the same random stream; SGHMC (metric identity) with C = 1 equals sgrhmc.hpp
// with the constant metric G = I (Γ = 0); for both of its schemes (explicit Euler and semi-implicit: θ
// first, then r at the new θ). Catches a drift, Γ or noise slip in the θ-scaled count form (the two are
// written separately), and the naive variant's missing Γ.
#include <doctest/doctest.h>

#include <sgmcmc/models/text/lda.hpp>
#include <sgmcmc/modules/recipe/metric.hpp>
#include <sgmcmc/samplers/expanded_mean.hpp>
#include <sgmcmc/samplers/sgrhmc.hpp>

namespace lda_recipe {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

using namespace sgmcmc;
using namespace sgmcmc::text;

namespace {

std::shared_ptr<Corpus> small_corpus() {
  auto c = std::make_shared<Corpus>();
  c->vocabulary_size = 7;
  random::Stream rng(5, 1);
  for (int d = 0; d < 12; ++d) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> e;
    for (std::uint32_t w = 0; w < 7; ++w)
      if (rng.uniform() < 0.5) e.emplace_back(w, 1 + static_cast<std::uint32_t>(3 * rng.uniform()));
    if (e.empty()) e.emplace_back(0, 2);
    c->add(e);
  }
  return c;
}

template <class Metric>
void compare(expanded_mean::Metric method, sgrhmc::Variant variant, Metric metric, recipe::Scheme scheme) {
  lda::Model m;
  m.corpus = small_corpus();
  m.K = 3, m.alpha = 0.3, m.beta = 0.4, m.batch_size = 4, m.gibbs_sweeps = 4, m.gibbs_burn_in = 1;
  const double h = 0.01;
  expanded_mean::Hamiltonian lda_sampler{m.K, method, schedule::StepSize::constant(h)};
  lda_sampler.variant = variant;
  lda_sampler.scheme = scheme;
  random::Stream r0(3, 0);
  // Away from 0: no reflection in this one step.
  const Eigen::MatrixXd theta0 = expanded_mean::random_rows(m.K, m.vocabulary_size(), r0).array() + 0.5;
  auto st = lda_sampler.start(theta0, r0);

  sgrhmc::Sampler<Metric> ref{metric, schedule::StepSize::constant(h), variant, 0.0, scheme};
  random::Stream r1(3, 9);
  auto rs = ref.init(st.theta, r1);
  rs.r = st.r;

  random::Stream a(17, 2), b(17, 2);
  lda_sampler.step(st, m, a, 0);
  ref.step(rs, m, b, 0);
  CHECK(st.reflections == 0);
  CHECK((st.theta - rs.x).cwiseAbs().maxCoeff() < 1e-12 * (1 + rs.x.cwiseAbs().maxCoeff()));
  CHECK((st.r - rs.r).cwiseAbs().maxCoeff() < 1e-11 * (1 + rs.r.cwiseAbs().maxCoeff()));
  CHECK(a.normal() == b.normal());  // the same draws were consumed
}

}  // namespace

TEST_CASE("LDA SGRHMC step = samplers/sgrhmc.hpp with the Fisher metric on Model::gradient (with and without Γ)") {
  for (auto scheme : {recipe::Scheme::euler, recipe::Scheme::semi_implicit}) {
    compare(expanded_mean::Metric::fisher, sgrhmc::Variant::generalized, recipe::metric::FisherDiagonal{}, scheme);
    compare(expanded_mean::Metric::fisher, sgrhmc::Variant::naive, recipe::metric::FisherDiagonal{}, scheme);
  }
}

TEST_CASE("LDA SGHMC step (C = 1) = samplers/sgrhmc.hpp with G = I") {
  for (auto scheme : {recipe::Scheme::euler, recipe::Scheme::semi_implicit})
    compare(expanded_mean::Metric::identity, sgrhmc::Variant::generalized, recipe::metric::ConstantDiagonal{Eigen::VectorXd::Ones(21)}, scheme);
}

}  // namespace lda_recipe
