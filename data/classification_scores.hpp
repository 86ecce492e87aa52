#pragma once
// How good a classifier's predictive probabilities are on held-out examples: the error of its most
// probable class, the negative log-likelihood of the true labels (the proper scoring rule a posterior
// predictive is judged by), and the expected calibration error (Guo, Pleiss, Sun & Weinberger 2017,
// "On calibration of modern neural networks", Eq. 3 with M equal-width confidence bins):
//   ECE = Σ_b (|B_b| / N) · |acc(B_b) − conf(B_b)|,
// B_b the examples whose top probability lies in ((b−1)/M, b/M] (the first bin also takes 0), acc the
// fraction of them classified right, conf their mean top probability. A sampler's predictive mean
// (probabilities averaged over draws) and an optimiser's point estimate are scored the same way.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::data {

struct ClassificationScores {
  double error = 0;  ///< fraction of examples whose most probable class is not the label
  double nll = 0;    ///< −(1/N) Σ log p(y_i), each p floored at the smallest positive double
  double ece = 0;    ///< expected calibration error over `bins` equal-width confidence bins
};

/// Scores the K × N matrix of class probabilities `p` (column i: example i) against the labels `y`.
/// Ties for the top class go to the lowest index. Throws on mismatched sizes, a label outside [0, K)
/// or bins < 1.
inline ClassificationScores score_classifier(const Eigen::Ref<const Eigen::MatrixXd>& p, const Eigen::Ref<const Eigen::VectorXi>& y,
                                             int bins = 15) {
  if (p.cols() != y.size()) throw Error(fmt::format("score_classifier: {} probability columns but {} labels", p.cols(), y.size()));
  if (p.cols() == 0 || p.rows() == 0) throw Error("score_classifier: no examples or no classes");
  if (bins < 1) throw Error(fmt::format("score_classifier: bins must be at least 1, got {}", bins));
  std::vector<double> count(static_cast<std::size_t>(bins), 0.0), right(count), confidence(count);
  ClassificationScores s;
  for (Eigen::Index i = 0; i < p.cols(); ++i) {
    const int label = y[i];
    if (label < 0 || label >= p.rows())
      throw Error(fmt::format("score_classifier: example {} has label {}, outside the {} classes", i, label, p.rows()));
    Eigen::Index top = 0;
    const double conf = p.col(i).maxCoeff(&top);
    const bool correct = top == label;
    s.error += correct ? 0.0 : 1.0;
    s.nll -= std::log(std::max(p(label, i), std::numeric_limits<double>::min()));
    // Bin b holds confidences in ((b−1)/M, b/M]: ⌈conf·M⌉ − 1, clamped into [0, M − 1].
    const auto b = static_cast<std::size_t>(std::clamp(static_cast<int>(std::ceil(conf * bins)) - 1, 0, bins - 1));
    count[b] += 1, right[b] += correct ? 1.0 : 0.0, confidence[b] += conf;
  }
  const auto n = static_cast<double>(p.cols());
  s.error /= n, s.nll /= n;
  for (std::size_t b = 0; b < count.size(); ++b)
    if (count[b] > 0) s.ece += std::abs(right[b] - confidence[b]) / n;  // (|B|/N)·|acc − conf| = |Σ correct − Σ conf| / N
  return s;
}

}  // namespace sgmcmc::data
