#pragma once
// Layer: a composition (compositions/), above samplers/ and models/: SAM's stochastic gradient runs a
// sampler (GMC) inside, so it may include both; models/ never includes a sampler (docs/architecture.md).
// The spherical admixture model (models/text/sam.hpp) as sampled by SGGMC and gSGNHT in Liu, Zhu & Song
// (2016) §4 (Eqs. 9–10) and its appendix: the likelihood's θ-expectation estimated by a few geodesic
// Monte Carlo steps (GMC on the simplex, hmc::Sampler<Simplex>) per document of the minibatch, and scaled
// by D/|batch|: an unbiased estimate of the gradient whose θ-expectation is taken by MCMC (exactly what
// the authors do: changliu00/SG-Geod-MCMC, MCMC/SAM_SGGMC/SAM_SGGMC.cpp, StoGradU_beta; read as
// reference, not copied).

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/manifolds/simplex.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/models/text/sam.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/parallel/worker_pool.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/samplers/hmc.hpp>

namespace sgmcmc::text {

/// The per-document θ sampler: GMC on Δ^{K−1} (Byrne & Girolami 2013; the authors' thBnin, thN, thL, thEps).
struct ThetaGmc {
  int burn_in = 15;          ///< trajectories discarded
  int draws = 10;            ///< trajectories kept: the θ-expectation is their average
  int leapfrog_steps = 10;   ///< per trajectory
  double step_size = 0.01;   ///< leapfrog step on the simplex

  void validate() const {
    require(burn_in >= 0, "theta.burn_in: expected an integer >= 0, got {}", burn_in);
    require(draws >= 1, "theta.draws: expected an integer >= 1, got {}", draws);
    require(leapfrog_steps >= 1, "theta.leapfrog_steps: expected an integer >= 1, got {}", leapfrog_steps);
    require(std::isfinite(step_size) && step_size > 0, "theta.step_size: expected a positive number, got {}", step_size);
  }
};

/// The SAM posterior over β ∈ (S^{V−1})^K with μ collapsed (models/text/sam.hpp) with its stochastic
/// gradient: a Potential for SGGMC / gSGNHT on `manifold()`. `gradient` draws the minibatch
/// (rng.next_batch()) and one 64-bit key (rng.below) that seeds each document's θ stream (Stream(key,
/// position in batch)): results do not depend on `threads`. The θ draws run on a persistent WorkerPool of
/// `threads` threads, created on the first gradient and woken per call (a copy of a Sam gets its own).
/// Not thread-safe (scratch, pool): one object per chain.
struct Sam : SamModel {
  ThetaGmc theta;
  std::size_t batch_size = 0;  ///< 0: the full batch (all documents every step)
  models::Sampling sampling = models::Sampling::without_replacement;
  unsigned threads = 1;

  struct Scratch {
    std::vector<std::size_t> indices;
    ThetaDraws draws;
    std::vector<hmc::State> states;         // per worker
    std::vector<DocumentTheta> potentials;  // per worker
    std::vector<Eigen::VectorXd> starts;    // per worker: θ's starting point
    std::vector<std::uint64_t> accepted, proposals;  // per document of the call
    std::vector<double> violation;
    Eigen::LDLT<Eigen::MatrixXd> ldlt;
    parallel::WorkerPoolSlot pool;
  };
  mutable Scratch scratch;
  mutable ThetaDraws last;  ///< diagnostics of the last gradient: acceptance, simplex violation (no draws)

  Sam() = default;
  Sam(std::shared_ptr<const SamDocuments> docs, Eigen::Index K, SamHyper h, ThetaGmc t = {}, std::size_t batch = 0,
      unsigned nthreads = 1)
      : SamModel(std::move(docs), K, std::move(h)), theta(t), batch_size(batch), threads(nthreads) {
    theta.validate();
    require(batch_size <= documents->size(),
            "batch_size: expected an integer in [0, {}] (0: full batch), got {}", documents->size(), batch_size);
    require(threads >= 1, "threads: expected an integer >= 1");
  }

  // --- θ draws ---
  /// Runs the per-document GMC for `docs` given β, each document j from Stream(key, j); fills `out`.
  void draw_thetas(const Eigen::VectorXd& beta, const std::vector<std::size_t>& docs, std::uint64_t key,
                   ThetaDraws& out) const {
    const auto B = topic_matrix(beta);
    const Eigen::Index K = topics;
    auto& gram = likelihood_scratch.gram;  // the likelihood's gradient reads it (SamModel)
    gram.noalias() = B.transpose() * B;
    auto& ldlt = scratch.ldlt;
    ldlt.compute(gram);
    out.documents = docs;
    out.draws.resize(docs.size());
    out.projections.resize(K, static_cast<Eigen::Index>(docs.size()));
    const unsigned t = threads;
    if (scratch.states.size() < t) {
      scratch.states.resize(t);
      scratch.potentials.resize(t);
      scratch.starts.resize(t);
    }
    auto& accepted = scratch.accepted;
    auto& proposals = scratch.proposals;
    auto& violation = scratch.violation;
    accepted.assign(docs.size(), 0);
    proposals.assign(docs.size(), 0);
    violation.assign(docs.size(), 0.0);
    const Simplex simplex(K);
    const hmc::Sampler<Simplex> gmc{simplex, schedule::StepSize::constant(theta.step_size), theta.leapfrog_steps,
                                    hmc::Gradient::exact, true};
    auto one_document = [&](std::size_t j, unsigned w) {
      auto& b = out.projections;
      documents->project(B, docs[j], b.col(static_cast<Eigen::Index>(j)));
      auto& pot = scratch.potentials[w];
      pot.b = b.col(static_cast<Eigen::Index>(j)).data();
      pot.gram = &gram;
      pot.kappa1 = hyper.kappa1;
      pot.alpha = hyper.alpha;
      if (pot.g_theta.size() != K) pot.g_theta.resize(K);
      // Start at the least-squares weights G⁻¹b clipped to the simplex, shrunk 10% toward its centre. The
      // authors clip at 1e-6 (SAM_SGGMC.cpp InitTheta); with α > 1 the force (α−1)/θ_k ~ 1e6 there makes
      // every GMC proposal of a usable step size fail the MH test, so the chain never leaves the face.
      auto& t0 = scratch.starts[w];
      t0.resize(K);
      t0 = ldlt.solve(b.col(static_cast<Eigen::Index>(j)));
      t0 = t0.cwiseMax(0.0);
      if (!(t0.sum() > 0) || !t0.allFinite()) t0.setOnes();
      const double total = t0.sum();
      t0 = 0.9 * t0 / total + Eigen::VectorXd::Constant(K, 0.1 / static_cast<double>(K));
      random::Stream rng(key, static_cast<std::uint32_t>(j));
      auto& s = scratch.states[w];
      if (s.x.size() != K) s = gmc.init(t0, rng);
      else s.x = t0;
      s.accepted = s.proposals = 0;
      auto& draws = out.draws[j];
      draws.resize(K, theta.draws);
      for (int i = 0; i < theta.burn_in + theta.draws; ++i) {
        gmc.step(s, pot, rng, static_cast<std::uint64_t>(i));
        if (i >= theta.burn_in) {
          draws.col(i - theta.burn_in) = s.x;
          violation[j] = std::max(violation[j], simplex.distance_to(s.x));
        }
      }
      accepted[j] = s.accepted;
      proposals[j] = s.proposals;
    };
    scratch.pool.get(t).for_each(docs.size(), one_document);
    out.accepted = out.proposals = 0;
    out.max_simplex_violation = 0;
    for (std::size_t j = 0; j < docs.size(); ++j) {
      out.accepted += accepted[j];
      out.proposals += proposals[j];
      out.max_simplex_violation = std::max(out.max_simplex_violation, violation[j]);
    }
  }

  /// The stochastic gradient (SGGMC paper Eqs. 9–10): prior + (D/n) Σ_batch, θ by GMC per document.
  template <class R>
  void gradient(const Eigen::VectorXd& beta, Eigen::VectorXd& g, R& rng) const {
    const std::size_t D = documents->size();
    const std::size_t n = batch_size == 0 ? D : batch_size;
    if (beta.size() != ambient_size())
      throw Error(fmt::format("sam: expected topics of size {} (K·V), got {}", ambient_size(), beta.size()));
    if (batch_size == 0) {
      scratch.indices.resize(D);
      for (std::size_t d = 0; d < D; ++d) scratch.indices[d] = d;
    } else {
      models::batch_indices(rng.next_batch(), n, D, sampling, rng.seed(), rng.stream_id(), scratch.indices);
    }
    const std::uint64_t key = rng.below(~std::uint64_t{0});
    draw_thetas(beta, scratch.indices, key, scratch.draws);
    g.setZero(beta.size());
    add_prior_gradient(beta, g);
    add_likelihood_gradient(beta, scratch.draws, static_cast<double>(D) / static_cast<double>(n), g);
    last.accepted = scratch.draws.accepted;
    last.proposals = scratch.draws.proposals;
    last.max_simplex_violation = scratch.draws.max_simplex_violation;
  }

};

/// β | θ draws for every document: the target of the GMC baselines of the SGGMC paper §5.3 (GMC-bGibbs:
/// one θ draw per document, a blocked Gibbs sampler; GMC-apprMH: several draws, the MH test run on their
/// average, an approximate MH — the authors' MCMC/SAM_GMC/SAM_GMC.cpp U_beta, GradU_beta). Exact value
/// and gradient given the draws: a PotentialWithValue for hmc::Sampler<Power<Sphere>>.
struct SamConditional {
  const Sam* model = nullptr;
  mutable ThetaDraws thetas;  ///< for all documents; its projections are recomputed per evaluation

  /// Redraws θ for all documents given β (the Gibbs block), from a key drawn from rng.
  template <class R>
  void redraw(const Eigen::VectorXd& beta, R& rng) {
    std::vector<std::size_t> all(model->documents->size());
    for (std::size_t d = 0; d < all.size(); ++d) all[d] = d;
    model->draw_thetas(beta, all, rng.below(~std::uint64_t{0}), thetas);
  }
  double value(const Eigen::VectorXd& beta) const {
    refresh(beta);
    return model->prior_value(beta) + model->likelihood_value(thetas, 1.0);
  }
  void exact_gradient(const Eigen::VectorXd& beta, Eigen::VectorXd& g) const {
    refresh(beta);
    g.setZero(beta.size());
    model->add_prior_gradient(beta, g);
    model->add_likelihood_gradient(beta, thetas, 1.0, g);
  }
  template <class R>
  void gradient(const Eigen::VectorXd& beta, Eigen::VectorXd& g, R& /*rng*/) const { exact_gradient(beta, g); }

 private:
  // b_j = βᵀv_j and G = βᵀβ at the β being evaluated.
  void refresh(const Eigen::VectorXd& beta) const {
    const auto B = model->topic_matrix(beta);
    model->likelihood_scratch.gram.noalias() = B.transpose() * B;
    auto& proj = thetas.projections;
    proj.resize(model->topics, static_cast<Eigen::Index>(thetas.documents.size()));
    for (std::size_t j = 0; j < thetas.documents.size(); ++j)
      model->documents->project(B, thetas.documents[j], proj.col(static_cast<Eigen::Index>(j)));
  }
};

}  // namespace sgmcmc::text
