#pragma once
// The spherical admixture model (SAM; Reisinger, Waters, Silverthorn & Mooney 2010, "Spherical topic
// models") as Liu, Zhu & Song (2016) §4 (Eqs. 9–10) and its appendix write it: the corpus, the
// hyperparameters, the collapsed prior and the likelihood given draws of θ. The stochastic gradient that
// draws θ by a sampler is a composition (compositions/sam.hpp): this layer never includes a sampler.
//
// Generative model, all directions on S^{V−1} (documents v_d: tf-idf rows with unit L2 norm):
//   μ ~ vMF(m, κ0);  β_k ~ vMF(μ, σ), k = 1..K;  θ_d ~ Dir(α);  v_d ~ vMF(v̄_d, κ1),  v̄_d = βθ_d/‖βθ_d‖.
// The corpus mean μ is integrated out (SGGMC paper Eq. 9): with m̄ = κ0 m + σ Σ_k β_k,
//   p(β) ∝ 1 / C_V(‖m̄‖),   so  U_prior(β) = log C_V(‖m̄‖),  ∇_{β_k} U_prior = −σ A_V(‖m̄‖) m̄/‖m̄‖.
// The likelihood of a document integrates θ_d; its gradient is the posterior mean (Fisher's identity,
// SGGMC paper Eq. 10):
//   ∇_β[−log p(v_d | β)] = −κ1 E_{θ|v_d,β}[ (v_d/‖βθ‖ − (v_dᵀβθ) βθ/‖βθ‖³) θᵀ ].
//
// Overflow precautions (SGGMC paper appendix): C_V and A_V at V ~ 10⁴, κ ~ 10⁵ through log I_ν
// (vmf_normalizer.hpp); every per-document quantity is a K-vector or K×K matrix — ‖βθ‖² = θᵀGθ with the
// Gram G = βᵀβ, v_dᵀβθ = θᵀ(βᵀv_d) — so no V-sized work per θ step; log-perplexities by log-sum-exp.
//
// Layout: β is a point of Power<Sphere>(Sphere(V), K): K·V coordinates, topic k the k-th block of V
// (the columns of a V×K column-major matrix).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include <Eigen/Core>

#include <sgmcmc/manifolds/product.hpp>
#include <sgmcmc/manifolds/sphere.hpp>
#include <sgmcmc/models/text/corpus.hpp>
#include <sgmcmc/models/text/vmf_normalizer.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/random/distributions.hpp>

namespace sgmcmc::text {

/// Documents as sparse unit vectors on S^{V−1}, CSR: document d's entries are [offset[d], offset[d+1]).
struct SamDocuments {
  std::size_t vocabulary_size = 0;
  std::vector<std::size_t> offset{0};
  std::vector<std::uint32_t> word;
  std::vector<double> value;

  std::size_t size() const { return offset.size() - 1; }
  /// Appends a document given as a dense vector (its non-zeros are kept); it is normalised to unit norm.
  void add_dense(const Eigen::VectorXd& v) {
    require(static_cast<std::size_t>(v.size()) == vocabulary_size,
            "sam: document of size {} for a vocabulary of {}", v.size(), vocabulary_size);
    const double n = v.norm();
    require(n > 0 && std::isfinite(n), "sam: a document with no words (or non-finite values)");
    for (Eigen::Index w = 0; w < v.size(); ++w)
      if (v[w] != 0) word.push_back(static_cast<std::uint32_t>(w)), value.push_back(v[w] / n);
    offset.push_back(word.size());
  }
  /// tf-idf rows (L2-normalised) of a corpus: the SAM input (Reisinger et al. 2010 §5).
  static SamDocuments from_corpus(const Corpus& c, const TfIdf& tfidf) {
    SamDocuments s;
    s.vocabulary_size = c.vocabulary_size;
    s.offset = c.offset;
    s.word = c.word;
    s.value = tfidf.transform(c);
    return s;
  }
  /// b = βᵀv_d (K entries) for β the V×K topic matrix.
  template <class B, class Out>
  void project(const B& beta, std::size_t d, Out&& b) const {
    b.setZero();
    for (std::size_t j = offset[d]; j < offset[d + 1]; ++j) b += value[j] * beta.row(word[j]).transpose();
  }
  /// The normalised sum of the documents: the authors' choice of m, the prior mean of μ.
  Eigen::VectorXd mean_direction() const {
    Eigen::VectorXd m = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(vocabulary_size));
    for (std::size_t j = 0; j < word.size(); ++j) m[word[j]] += value[j];
    require(m.norm() > 0, "sam: empty corpus");
    return m / m.norm();
  }
};

/// SAM's hyperparameters (SGGMC paper §4; the authors' 20News settings: κ0 = σ = 1e4, κ1 = 3e4, α = 10).
struct SamHyper {
  double kappa0 = 1e4;  ///< concentration of μ about m
  double sigma = 1e4;   ///< concentration of each topic about μ
  double kappa1 = 3e4;  ///< concentration of a document about its mean direction
  double alpha = 10.0;  ///< symmetric Dirichlet parameter of θ_d (>= 1: see validate)
  Eigen::VectorXd m;    ///< prior mean direction of μ (unit; SamDocuments::mean_direction by default)

  void validate(std::size_t V) const {
    require(std::isfinite(kappa0) && kappa0 > 0, "kappa0: expected a positive number, got {}", kappa0);
    require(std::isfinite(sigma) && sigma > 0, "sigma: expected a positive number, got {}", sigma);
    require(std::isfinite(kappa1) && kappa1 > 0, "kappa1: expected a positive number, got {}", kappa1);
    // α < 1 makes the θ potential −(α−1)Σlog θ_k tend to −∞ at the faces: the reflecting GMC on the
    // simplex is then not a valid sampler of θ (docs/math.md#singular-potentials-on-the-simplex).
    require(std::isfinite(alpha) && alpha >= 1, "alpha: expected a number >= 1, got {}", alpha);
    require(static_cast<std::size_t>(m.size()) == V && std::abs(m.norm() - 1.0) < 1e-8,
            "m: expected a unit vector of size {}", V);
  }
};

/// U_d(θ) = −κ1 θᵀb/√(θᵀGθ) − (α−1) Σ_k log θ_k, the θ_d | v_d, β potential (b = βᵀv_d, G = βᵀβ):
/// K-sized work only (SGGMC paper appendix). Value +∞ at a face when α > 1 (the MH test rejects).
struct DocumentTheta {
  const double* b = nullptr;       // K
  const Eigen::MatrixXd* gram = nullptr;
  double kappa1 = 1, alpha = 1;
  mutable Eigen::VectorXd g_theta;  // scratch: Gθ

  double value(const Eigen::VectorXd& t) const {
    const Eigen::Map<const Eigen::VectorXd> bv(b, t.size());
    g_theta.noalias() = *gram * t;  // into scratch: no temporary (allocation) per evaluation
    const double q = t.dot(g_theta);
    double u = -kappa1 * t.dot(bv) / std::sqrt(q);
    if (alpha != 1.0) u -= (alpha - 1.0) * t.array().log().sum();
    return u;
  }
  void exact_gradient(const Eigen::VectorXd& t, Eigen::VectorXd& g) const {
    const Eigen::Map<const Eigen::VectorXd> bv(b, t.size());
    g_theta.noalias() = *gram * t;
    const double q = t.dot(g_theta), inv = 1.0 / std::sqrt(q);
    const double tb = t.dot(bv);
    g = -kappa1 * inv * bv + (kappa1 * tb * inv * inv * inv) * g_theta;
    if (alpha != 1.0) g.array() -= (alpha - 1.0) / t.array();
  }
  template <class R>
  void gradient(const Eigen::VectorXd& t, Eigen::VectorXd& g, R& /*rng*/) const { exact_gradient(t, g); }
};

/// Draws of θ for a set of documents given β: draws[j] is K × n (one column per kept trajectory).
struct ThetaDraws {
  std::vector<std::size_t> documents;
  std::vector<Eigen::MatrixXd> draws;
  Eigen::MatrixXd projections;           ///< K × |documents|: b_j = βᵀv_{d_j}
  std::uint64_t accepted = 0, proposals = 0;
  double max_simplex_violation = 0;      ///< max over all kept θ of Simplex::distance_to
};

/// SAM's posterior over β ∈ (S^{V−1})^K with μ collapsed, given draws of θ: the prior, the likelihood's
/// value and gradient, the authors' initialisation and held-out log-perplexity. Its Gram scratch is shared
/// with whoever draws θ (the Gram G = βᵀβ of the β being evaluated): one object per chain.
struct SamModel {
  std::shared_ptr<const SamDocuments> documents;
  Eigen::Index topics = 2;  ///< K
  SamHyper hyper;

  struct LikelihoodScratch {
    Eigen::MatrixXd gram;  ///< G = βᵀβ of the β last drawn or evaluated at
    Eigen::MatrixXd p;
  };
  mutable LikelihoodScratch likelihood_scratch;

  SamModel() = default;
  SamModel(std::shared_ptr<const SamDocuments> docs, Eigen::Index K, SamHyper h)
      : documents(std::move(docs)), topics(K), hyper(std::move(h)) {
    require(documents && documents->size() >= 1, "documents: expected a non-empty corpus");
    require(K >= 2, "topics: expected an integer >= 2, got {}", K);
    if (hyper.m.size() == 0) hyper.m = documents->mean_direction();
    hyper.validate(documents->vocabulary_size);
  }

  Eigen::Index vocabulary() const { return static_cast<Eigen::Index>(documents->vocabulary_size); }
  Eigen::Index ambient_size() const { return topics * vocabulary(); }
  Power<Sphere> manifold() const { return Power<Sphere>(Sphere(vocabulary()), topics); }
  Eigen::Map<const Eigen::MatrixXd> topic_matrix(const Eigen::VectorXd& beta) const {
    return {beta.data(), vocabulary(), topics};
  }

  /// The authors' initialisation: β_k = normalise(m + N(0, I)/√V) (SAM_Base.cpp), from rng.
  template <class R>
  Eigen::VectorXd initial_topics(R& rng) const {
    Eigen::VectorXd beta(ambient_size());
    rng.normals(beta);
    Eigen::Map<Eigen::MatrixXd> B(beta.data(), vocabulary(), topics);
    B /= std::sqrt(static_cast<double>(vocabulary()));
    for (Eigen::Index k = 0; k < topics; ++k) {
      B.col(k) += hyper.m;
      B.col(k).normalize();
    }
    return beta;
  }

  // --- the collapsed prior (SGGMC paper Eq. 9) ---
  Eigen::VectorXd corpus_mean(const Eigen::VectorXd& beta) const {
    return hyper.kappa0 * hyper.m + hyper.sigma * topic_matrix(beta).rowwise().sum();
  }
  /// log C_V(‖m̄‖): −log p(β) up to a constant.
  double prior_value(const Eigen::VectorXd& beta) const {
    return log_vmf_normalizer(static_cast<double>(vocabulary()), corpus_mean(beta).norm());
  }
  /// g += ∇ log C_V(‖m̄‖) = −σ A_V(‖m̄‖) m̄/‖m̄‖ in every topic's block.
  void add_prior_gradient(const Eigen::VectorXd& beta, Eigen::VectorXd& g) const {
    const Eigen::VectorXd mbar = corpus_mean(beta);
    const double r = mbar.norm();
    const double c = -hyper.sigma * vmf_mean_resultant(static_cast<double>(vocabulary()), r) / r;
    Eigen::Map<Eigen::MatrixXd> G(g.data(), vocabulary(), topics);
    G.colwise() += c * mbar;
  }

  /// g += scale · Σ_j (1/n) Σ_draws ∇_β[−κ1 v_jᵀβθ/‖βθ‖] (SGGMC paper Eq. 10), summed in document order:
  ///   −κ1 scale/n [Σ_j v_j w_jᵀ − β P],  w_j = Σ θ/‖βθ‖,  P = Σ_j Σ (θᵀb_j)/‖βθ‖³ θθᵀ.
  void add_likelihood_gradient(const Eigen::VectorXd& beta, const ThetaDraws& td, double scale, Eigen::VectorXd& g) const {
    const auto B = topic_matrix(beta);
    const Eigen::Index K = topics;
    const auto& gram = likelihood_scratch.gram;  // G = βᵀβ of the same β (whoever drew θ computed it)
    auto& P = likelihood_scratch.p;
    P.setZero(K, K);
    Eigen::Map<Eigen::MatrixXd> Gm(g.data(), vocabulary(), K);
    Eigen::VectorXd w(K), gt(K);
    const double c = -hyper.kappa1 * scale / static_cast<double>(theta_count(td));
    for (std::size_t j = 0; j < td.documents.size(); ++j) {
      const auto b = td.projections.col(static_cast<Eigen::Index>(j));
      w.setZero();
      const auto& D = td.draws[j];
      for (Eigen::Index n = 0; n < D.cols(); ++n) {
        gt.noalias() = gram * D.col(n);
        const double inv = 1.0 / std::sqrt(D.col(n).dot(gt));
        w += inv * D.col(n);
        P.noalias() += (D.col(n).dot(b) * inv * inv * inv) * D.col(n) * D.col(n).transpose();
      }
      const std::size_t d = td.documents[j];
      for (std::size_t e = documents->offset[d]; e < documents->offset[d + 1]; ++e)
        Gm.row(documents->word[e]) += (c * documents->value[e]) * w.transpose();
    }
    Gm.noalias() -= c * (B * P);
  }
  /// −κ1 (scale/n) Σ_j Σ_draws θᵀb_j/‖βθ‖: the likelihood part of the θ-conditional potential.
  double likelihood_value(const ThetaDraws& td, double scale) const {
    const auto& gram = likelihood_scratch.gram;
    double u = 0;
    for (std::size_t j = 0; j < td.documents.size(); ++j) {
      const auto& D = td.draws[j];
      for (Eigen::Index n = 0; n < D.cols(); ++n)
        u += D.col(n).dot(td.projections.col(static_cast<Eigen::Index>(j))) / std::sqrt(D.col(n).dot(gram * D.col(n)));
    }
    return -hyper.kappa1 * scale / static_cast<double>(theta_count(td)) * u;
  }

  /// The held-out log-perplexity of the authors' SAM_Eval (`lbaylog`): with θ_s ~ Dir(α), s = 1..S, shared
  /// by all documents and all kept topic samples β^(i), i = 1..N,
  ///   −(1/D) Σ_d log[(1/(NS)) Σ_{i,s} C_V(κ1) exp(κ1 v_dᵀβ^(i)θ_s/‖β^(i)θ_s‖)]   (log-sum-exp).
  /// Lower is better. Work per (d, i, s) is K-sized.
  template <class R>
  double log_perplexity(const std::vector<Eigen::VectorXd>& betas, const SamDocuments& test, int theta_samples, R& rng) const {
    require(!betas.empty(), "log_perplexity: no topic samples");
    require(theta_samples >= 1, "log_perplexity: theta_samples must be >= 1");
    require(test.vocabulary_size == documents->vocabulary_size, "log_perplexity: test vocabulary differs");
    const Eigen::Index K = topics;
    Eigen::MatrixXd T(K, theta_samples);
    const Eigen::VectorXd a = Eigen::VectorXd::Constant(K, hyper.alpha);
    for (int s = 0; s < theta_samples; ++s) T.col(s) = random::dirichlet(rng, a);
    const std::size_t Dt = test.size();
    std::vector<double> lse(Dt, -std::numeric_limits<double>::infinity());
    Eigen::VectorXd inv_norm(theta_samples), b(K);
    for (const auto& beta : betas) {
      const auto B = topic_matrix(beta);
      const Eigen::MatrixXd gram = B.transpose() * B;
      for (int s = 0; s < theta_samples; ++s) inv_norm[s] = 1.0 / std::sqrt(T.col(s).dot(gram * T.col(s)));
      for (std::size_t d = 0; d < Dt; ++d) {
        test.project(B, d, b);
        for (int s = 0; s < theta_samples; ++s) {
          const double x = hyper.kappa1 * T.col(s).dot(b) * inv_norm[s];
          const double hi = std::max(lse[d], x);
          lse[d] = hi + std::log(std::exp(lse[d] - hi) + std::exp(x - hi));
        }
      }
    }
    double sum = 0;
    for (double l : lse) sum += l;
    const double logc = log_vmf_normalizer(static_cast<double>(vocabulary()), hyper.kappa1);
    return -sum / static_cast<double>(Dt) + std::log(static_cast<double>(betas.size()) * theta_samples) - logc;
  }

 private:
  static std::size_t theta_count(const ThetaDraws& td) { return td.draws.empty() ? 1 : static_cast<std::size_t>(td.draws[0].cols()); }
};

/// A draw from vMF(μ, κ) on S^{n−1} by Wood's (1994) rejection sampler, for synthetic corpora
/// (docs/math.md#von-mises-fisher).
template <class R>
Eigen::VectorXd vmf_draw(R& rng, const Eigen::VectorXd& mu, double kappa) {
  const Eigen::Index n = mu.size();
  const double n1 = static_cast<double>(n - 1);
  const double b = n1 / (2.0 * kappa + std::sqrt(4.0 * kappa * kappa + n1 * n1));
  const double x0 = (1.0 - b) / (1.0 + b);
  const double c = kappa * x0 + n1 * std::log(1.0 - x0 * x0);
  double w = 0;
  for (;;) {
    const double ga = random::gamma(rng, 0.5 * n1), gb = random::gamma(rng, 0.5 * n1);
    const double z = ga / (ga + gb);
    w = (1.0 - (1.0 + b) * z) / (1.0 - (1.0 - b) * z);
    if (kappa * w + n1 * std::log(1.0 - x0 * w) - c >= std::log(rng.uniform())) break;
  }
  Eigen::VectorXd xi(n);
  rng.normals(xi);
  xi -= mu.dot(xi) * mu;
  xi.normalize();
  return w * mu + std::sqrt(std::max(0.0, 1.0 - w * w)) * xi;
}

}  // namespace sgmcmc::text
