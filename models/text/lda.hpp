#pragma once
// Online LDA by stochastic-gradient MCMC (Patterson & Teh 2013; complete recipe Ma, Chen & Fox 2015
// §4.2 and App. F.2). Topics in the expanded-mean parametrisation: θ_kw > 0 with prior
// θ_kw ~ Gamma(β, 1), topic-word probabilities π_kw = θ_kw / θ_k· (θ_k· = Σ_w θ_kw), so π_k ~ Dir(β).
// Document-topic proportions are integrated out; topic assignments z are sampled per document.
//
// Stochastic gradient (Patterson & Teh Eq. 10; complete recipe Eq. S.29): with D training documents and
// a batch B of |B| documents, s = D/|B|,
//   ∂ log p(θ | w) / ∂θ_kw ≈ (β − 1)/θ_kw − 1 + s Σ_{d∈B} E_{z_d | w_d, θ, α}[ n_dkw/θ_kw − n_dk·/θ_k· ],
// the expectation taken by Gibbs sampling of the batch's topic assignments (Eq. S.30):
//   p(z_di = k | z_d\i, w_d, θ) ∝ (α + n_dk^{\i}) π_{k w_di}.
// We accumulate the Gibbs conditionals (Rao–Blackwellised counts) over the post-burn-in sweeps.
//
// The expanded-mean parametrisation (θ, π, the mirror at 0, the drift from these counts) is
// modules/simplex/expanded_mean.hpp; this model is its potential side, an `expanded_mean::CountPotential`:
// `counts` fills the scaled expected counts s·Σ_d E[n_dkw], s·Σ_d E[n_dk·] at the current topics and
// `prior_shape()` is β. The samplers — SGRLD, SGLD (`expanded_mean::Langevin`), SGHMC and SGRHMC
// (`expanded_mean::Hamiltonian`) on the expanded mean of each topic row, mirrored at 0 — live with the
// library's samplers, in expanded_mean.hpp (derivations, the reflection argument for the momentum
// samplers, schemes); a model includes no sampler.
// the random start θ_kw ~ Gamma(1, 1) is `expanded_mean::random_rows`. `Model::gradient` is the Euclidean
// gradient of the same potential, for the library's generic samplers (tests/text/lda_recipe.cpp).
//
// Held-out perplexity (Patterson & Teh §4; complete recipe App. F.2): each test document's tokens are
// split in two halves by a seeded permutation; the first half estimates the document's topic
// proportions η_d by Gibbs sampling given π, the second is scored:
//   perplexity = exp( − Σ_d Σ_{i∈second half} log Σ_k η̂_dk π_{k w_di} / #scored tokens ).
// Documents with fewer than 2 tokens cannot be split: counted and skipped; a test set with nothing to
// score is an Error (never a NaN perplexity).
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/models/text/corpus.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/random/distributions.hpp>
#include <sgmcmc/modules/random/permutation.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/modules/simplex/expanded_mean.hpp>

namespace sgmcmc::text::lda {

/// π_kw = θ_kw / θ_k· (rows of the K×V matrix normalised; `expanded_mean::normalize_rows`), pi resized.
inline void topics_from_theta(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::MatrixXd& pi) {
  pi.resize(theta.rows(), theta.cols());
  expanded_mean::normalize_rows(theta, pi);
}

namespace detail {
/// Samples an index from unnormalised weights p[0..K) (cumulated in place); returns the total.
template <class R>
inline Eigen::Index draw(Eigen::VectorXd& p, R& rng, double& total) {
  const Eigen::Index K = p.size();
  for (Eigen::Index k = 1; k < K; ++k) p[k] += p[k - 1];
  total = p[K - 1];
  const double u = rng.uniform() * total;
  Eigen::Index k = 0;
  while (k < K - 1 && p[k] <= u) ++k;
  return k;
}
}  // namespace detail

/// The LDA model on a training corpus: K topics, hyperparameters α (documents) and β (topics).
struct Model {
  std::shared_ptr<const Corpus> corpus;
  Eigen::Index K = 50;
  double alpha = 0.01;  ///< document-topic Dirichlet concentration (Patterson & Teh: 0.01)
  double beta = 0.01;   ///< Gamma(β, 1) prior on θ_kw, i.e. π_k ~ Dir(β) (Patterson & Teh: 0.01)
  std::size_t batch_size = 50;
  int gibbs_sweeps = 20;   ///< sweeps per document per gradient (Patterson & Teh use 100 with 50 burn-in)
  int gibbs_burn_in = 10;  ///< sweeps discarded before counts are accumulated
  models::Sampling sampling = models::Sampling::without_replacement;

  struct Scratch {
    std::vector<std::size_t> batch;
    std::vector<std::uint32_t> z, tokens;
    Eigen::VectorXd ndk, p;
    Eigen::MatrixXd pi;
  };
  mutable Scratch scratch;

  Eigen::Index vocabulary_size() const { return static_cast<Eigen::Index>(corpus->vocabulary_size); }
  Eigen::Index dimension() const { return K * vocabulary_size(); }

  void validate() const {
    require(corpus && corpus->size() > 0, "lda: empty training corpus");
    require(K >= 1, "lda.topics: expected a positive integer, got {}", K);
    require(alpha > 0 && std::isfinite(alpha), "lda.alpha: expected a positive number, got {}", alpha);
    require(beta > 0 && std::isfinite(beta), "lda.beta: expected a positive number, got {}", beta);
    require(batch_size >= 1 && batch_size <= corpus->size(),
            "lda.batch_size: expected an integer in [1, {}], got {}", corpus->size(), batch_size);
    require(gibbs_sweeps > gibbs_burn_in && gibbs_burn_in >= 0, "lda.gibbs_sweeps: must exceed gibbs_burn_in >= 0");
  }

  /// Expected counts of one document under the Gibbs chain given π (Eq. S.30), added with weight
  /// `scale` into nkw (K×V) and nk (K).
  template <class R>
  void document_counts(std::size_t d, const Eigen::Ref<const Eigen::MatrixXd>& pi, R& rng, double scale, Eigen::MatrixXd& nkw,
                       Eigen::VectorXd& nk) const {
    const Corpus& c = *corpus;
    auto& s = scratch;
    s.tokens.clear();
    for (std::size_t j = c.offset[d]; j < c.offset[d + 1]; ++j) s.tokens.insert(s.tokens.end(), c.count[j], c.word[j]);
    const std::size_t n = s.tokens.size();
    s.z.resize(n);
    s.ndk.setZero(K);
    s.p.resize(K);
    // Initialise from p(z = k) ∝ (α + n_dk) π_kw, sequentially (one sweep without removal).
    double total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      s.p = (alpha + s.ndk.array()) * pi.col(s.tokens[i]).array();
      const auto k = detail::draw(s.p, rng, total);
      s.z[i] = static_cast<std::uint32_t>(k);
      s.ndk[k] += 1;
    }
    const double w = scale / static_cast<double>(gibbs_sweeps - gibbs_burn_in);
    for (int sweep = 0; sweep < gibbs_sweeps; ++sweep) {
      const bool keep = sweep >= gibbs_burn_in;
      for (std::size_t i = 0; i < n; ++i) {
        const auto word = s.tokens[i];
        s.ndk[s.z[i]] -= 1;
        s.p = (alpha + s.ndk.array()) * pi.col(word).array();
        if (keep) {  // Rao–Blackwellised: add the conditional itself, not the draw
          const double inv = w / s.p.sum();
          nkw.col(word) += inv * s.p;
          nk += inv * s.p;
        }
        const auto k = detail::draw(s.p, rng, total);
        s.z[i] = static_cast<std::uint32_t>(k);
        s.ndk[k] += 1;
      }
    }
  }

  /// The batch's scaled expected counts s·Σ_{d∈B} E[n_dkw] and s·Σ_d E[n_dk·], s = D/|B|: the data part
  /// of Eq. S.29. The batch is the RNG's next one (a pure function of seed, chain, batch index).
  template <class R>
  void batch_counts(const Eigen::Ref<const Eigen::MatrixXd>& pi, R& rng, Eigen::MatrixXd& nkw, Eigen::VectorXd& nk) const {
    const std::size_t D = corpus->size();
    models::batch_indices(rng.next_batch(), batch_size, D, sampling, rng.seed(), rng.stream_id(), scratch.batch);
    nkw.setZero(K, vocabulary_size());
    nk.setZero(K);
    const double s = static_cast<double>(D) / static_cast<double>(batch_size);
    for (std::size_t d : scratch.batch) document_counts(d, pi, rng, s, nkw, nk);
  }

  /// expanded_mean::CountPotential: the batch's statistics at topics π (K×V), `batch_counts`.
  template <class R>
  void counts(const Eigen::Ref<const Eigen::MatrixXd>& pi, R& rng, expanded_mean::Counts& c) const {
    batch_counts(pi, rng, c.nkw, c.nk);
  }
  /// β of the prior θ_kw ~ Gamma(β, 1) (expanded_mean::CountPotential).
  double prior_shape() const { return beta; }

  /// Potential interface: g <- ∇Ũ(θ) = −(stochastic gradient of log p(θ | w)) at x = vec(θ) (K×V,
  /// column-major), Eq. S.29. Singular as θ_kw -> 0 when β < 1: the expanded-mean samplers
  /// (expanded_mean::Langevin, Hamiltonian) take `counts` instead, whose θ-scaled drift stays bounded.
  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& rng) const {
    const Eigen::Map<const Eigen::MatrixXd> theta(x.data(), K, vocabulary_size());
    topics_from_theta(theta, scratch.pi);
    Eigen::MatrixXd nkw;
    Eigen::VectorXd nk;
    batch_counts(scratch.pi, rng, nkw, nk);
    g.resize(x.size());
    Eigen::Map<Eigen::MatrixXd> gm(g.data(), K, vocabulary_size());
    const Eigen::VectorXd rows = theta.rowwise().sum();
    for (Eigen::Index w = 0; w < theta.cols(); ++w)
      for (Eigen::Index k = 0; k < K; ++k)
        gm(k, w) = -expanded_mean::log_density_gradient(beta, theta(k, w), nkw(k, w), nk[k], rows[k]);
  }
};

/// What a perplexity evaluation used and dropped.
struct PerplexityReport {
  double perplexity = std::numeric_limits<double>::quiet_NaN();
  std::size_t documents = 0;       ///< test documents scored
  std::size_t too_short = 0;       ///< test documents with < 2 tokens (cannot be split), skipped
  std::size_t scored_tokens = 0;   ///< tokens in the scored halves
};

/// The predictive probability q_i = Σ_k η̂_dk π_{k w_di} of every scored (second-half) token of `test`
/// given topics π, in a fixed order (documents, then their permuted second halves), appended to `q`.
/// The split depends on `seed` only, so calls with different π score the same tokens.
inline PerplexityReport predictive(const Eigen::Ref<const Eigen::MatrixXd>& pi, const Corpus& test, double alpha, std::uint64_t seed, int sweeps,
                                   int burn_in, std::vector<double>& q_out) {
  require(static_cast<std::size_t>(pi.cols()) == test.vocabulary_size, "perplexity: topics and test corpus vocabularies differ");
  require(sweeps > burn_in && burn_in >= 0, "perplexity: sweeps must exceed burn_in >= 0");
  const Eigen::Index K = pi.rows();
  PerplexityReport r;
  random::Stream rng(seed, 0x9e1d);
  std::vector<std::uint32_t> tokens, z;
  Eigen::VectorXd ndk(K), eta(K), p(K);
  double loglik = 0;
  for (std::size_t d = 0; d < test.size(); ++d) {
    tokens.clear();
    for (std::size_t j = test.offset[d]; j < test.offset[d + 1]; ++j) tokens.insert(tokens.end(), test.count[j], test.word[j]);
    const std::size_t n = tokens.size();
    if (n < 2) {
      ++r.too_short;
      continue;
    }
    const random::Permutation perm(n, seed, static_cast<std::uint32_t>(d), 1);
    const std::size_t half = n / 2;  // positions perm(0..half) estimate, the rest are scored
    z.assign(half, 0);
    ndk.setZero();
    eta.setZero();
    double total = 0;
    for (std::size_t i = 0; i < half; ++i) {
      p = (alpha + ndk.array()) * pi.col(tokens[perm(i)]).array();
      z[i] = static_cast<std::uint32_t>(detail::draw(p, rng, total));
      ndk[z[i]] += 1;
    }
    for (int sweep = 0; sweep < sweeps; ++sweep) {
      for (std::size_t i = 0; i < half; ++i) {
        ndk[z[i]] -= 1;
        p = (alpha + ndk.array()) * pi.col(tokens[perm(i)]).array();
        z[i] = static_cast<std::uint32_t>(detail::draw(p, rng, total));
        ndk[z[i]] += 1;
      }
      if (sweep >= burn_in) eta += (ndk.array() + alpha).matrix() / (static_cast<double>(half) + static_cast<double>(K) * alpha);
    }
    eta /= static_cast<double>(sweeps - burn_in);
    for (std::size_t i = half; i < n; ++i) {
      const double q = eta.dot(pi.col(tokens[perm(i)]));
      q_out.push_back(q);
      loglik += std::log(std::max(q, std::numeric_limits<double>::min()));
      ++r.scored_tokens;
    }
    ++r.documents;
  }
  if (r.scored_tokens == 0)
    throw Error(fmt::format("perplexity: no test document with at least 2 tokens ({} of {} too short): nothing to score",
                            r.too_short, test.size()));
  r.perplexity = std::exp(-loglik / static_cast<double>(r.scored_tokens));
  return r;
}

/// Held-out perplexity of topics π (K×V rows on the simplex) on `test` (same vocabulary; OOV words were
/// dropped and counted when it was built). Deterministic given `seed`.
inline PerplexityReport perplexity(const Eigen::Ref<const Eigen::MatrixXd>& pi, const Corpus& test, double alpha, std::uint64_t seed,
                                   int sweeps = 40, int burn_in = 10) {
  std::vector<double> q;
  return predictive(pi, test, alpha, seed, sweeps, burn_in, q);
}

/// Held-out perplexity averaged over posterior samples, as Patterson & Teh (2013) §4 and the complete
/// recipe App. F.2 define it: for each scored token, the predictive probability is averaged over the
/// samples π^(1..S) collected so far (each with its own η̂_d from the first half of the document),
///   perplexity = exp( − Σ_{d,i} log( (1/S) Σ_s Σ_k η̂^(s)_dk π^(s)_{k w_di} ) / #scored tokens ).
/// `add` scores one more sample and returns that sample's own (current-sample) perplexity.
struct PosteriorPerplexity {
  const Corpus* test;
  double alpha;
  std::uint64_t seed;
  int sweeps, burn_in;
  std::vector<double> sum;  ///< Σ_s q_i^(s) per scored token
  std::size_t samples = 0;
  std::vector<double> q_;  ///< scratch: the latest sample's q_i

  PosteriorPerplexity(const Corpus& test_corpus, double alpha_, std::uint64_t seed_, int sweeps_ = 40, int burn_in_ = 10)
      : test(&test_corpus), alpha(alpha_), seed(seed_), sweeps(sweeps_), burn_in(burn_in_) {}

  PerplexityReport add(const Eigen::Ref<const Eigen::MatrixXd>& pi) {
    q_.clear();
    const auto r = predictive(pi, *test, alpha, seed, sweeps, burn_in, q_);
    if (sum.empty()) sum.assign(q_.size(), 0.0);
    require(sum.size() == q_.size(), "perplexity: scored tokens changed between samples");
    for (std::size_t i = 0; i < q_.size(); ++i) sum[i] += q_[i];
    ++samples;
    return r;
  }
  /// The averaged perplexity (NaN before the first sample).
  double value() const {
    if (samples == 0) return std::numeric_limits<double>::quiet_NaN();
    double loglik = 0;
    for (double v : sum) loglik += std::log(std::max(v / static_cast<double>(samples), std::numeric_limits<double>::min()));
    return std::exp(-loglik / static_cast<double>(sum.size()));
  }
};

/// Random topics: π_k ~ Dir(1) i.i.d. — the baseline a fitted model must beat.
inline Eigen::MatrixXd random_topics(Eigen::Index K, Eigen::Index V, std::uint64_t seed) {
  random::Stream rng(seed, 0xba5e);
  Eigen::MatrixXd pi(K, V);
  for (Eigen::Index k = 0; k < K; ++k) pi.row(k) = random::dirichlet(rng, Eigen::VectorXd::Ones(V)).transpose();
  return pi;
}

/// The `n` most probable words of topic k.
inline std::vector<std::string> top_words(const Eigen::Ref<const Eigen::MatrixXd>& pi, Eigen::Index k, const Vocabulary& vocab, std::size_t n) {
  std::vector<Eigen::Index> idx(static_cast<std::size_t>(pi.cols()));
  for (Eigen::Index w = 0; w < pi.cols(); ++w) idx[static_cast<std::size_t>(w)] = w;
  n = std::min(n, idx.size());
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(n), idx.end(),
                    [&](Eigen::Index a, Eigen::Index b) { return pi(k, a) > pi(k, b); });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(vocab.words[static_cast<std::size_t>(idx[i])]);
  return out;
}

}  // namespace sgmcmc::text::lda
