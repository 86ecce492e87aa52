#pragma once
// A synthetic SAM corpus generated from the model (Reisinger et al. 2010 §3) with known topics, and the
// greedy matching of fitted to planted topics by cosine similarity. Shared by the tests of tests/sam/.
#include <algorithm>
#include <memory>
#include <tuple>
#include <vector>

#include <sgmcmc/compositions/sam.hpp>

namespace sam_test {

struct Synthetic {
  Eigen::MatrixXd topics;  ///< V×K planted topics
  std::shared_ptr<sgmcmc::text::SamDocuments> train;
  sgmcmc::text::SamDocuments test;
};

/// μ uniform on S^{V−1}; β_k ~ vMF(μ, σ); θ_d ~ Dir(α); v_d ~ vMF(βθ_d/‖βθ_d‖, κ1); dense documents.
inline Synthetic make_corpus(Eigen::Index V, Eigen::Index K, std::size_t train, std::size_t test, double sigma,
                             double kappa1, double alpha, std::uint64_t seed) {
  using namespace sgmcmc;
  random::Stream rng(seed, 7);
  Synthetic c;
  Eigen::VectorXd mu(V);
  rng.normals(mu);
  mu.normalize();
  c.topics.resize(V, K);
  for (Eigen::Index k = 0; k < K; ++k) c.topics.col(k) = text::vmf_draw(rng, mu, sigma);
  c.train = std::make_shared<text::SamDocuments>();
  c.train->vocabulary_size = static_cast<std::size_t>(V);
  c.test.vocabulary_size = static_cast<std::size_t>(V);
  for (std::size_t d = 0; d < train + test; ++d) {
    const Eigen::VectorXd th = random::dirichlet(rng, Eigen::VectorXd::Constant(K, alpha));
    const Eigen::VectorXd mean = (c.topics * th).normalized();
    (d < train ? *c.train : c.test).add_dense(text::vmf_draw(rng, mean, kappa1));
  }
  return c;
}

/// For each planted topic, the cosine with the fitted topic it is matched to: greedy matching on the
/// cosine (the largest remaining pair first), each fitted topic used once. Fitted columns need not be unit.
inline std::vector<double> matched_cosines(const Eigen::MatrixXd& fit, const Eigen::MatrixXd& truth) {
  const auto K = truth.cols();
  std::vector<std::tuple<double, Eigen::Index, Eigen::Index>> pairs;
  for (Eigen::Index i = 0; i < K; ++i)
    for (Eigen::Index j = 0; j < fit.cols(); ++j) pairs.emplace_back(-truth.col(i).dot(fit.col(j)) / fit.col(j).norm(), i, j);
  std::sort(pairs.begin(), pairs.end());
  std::vector<double> cs(static_cast<std::size_t>(K), -2.0);
  std::vector<bool> used(static_cast<std::size_t>(fit.cols()), false);
  for (auto [c, i, j] : pairs)
    if (cs[static_cast<std::size_t>(i)] == -2.0 && !used[static_cast<std::size_t>(j)]) {
      cs[static_cast<std::size_t>(i)] = -c;
      used[static_cast<std::size_t>(j)] = true;
    }
  return cs;
}

}  // namespace sam_test
