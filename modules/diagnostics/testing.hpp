#pragma once
// Helpers for statistical tests (tests/, experiments/ and users' own): Monte Carlo standard errors from
// the effective sample size (Stan's ESS, modules/diagnostics), exact discrete stationary covariances of
// linear schemes (Lyapunov equation), and exact bin probabilities for total-variation checks.
#include <cmath>
#include <functional>
#include <vector>

#include <Eigen/Dense>

#include <sgmcmc/modules/diagnostics/ess.hpp>

namespace sgmcmc::testing {

/// A mean and its Monte Carlo standard error sd/sqrt(ESS) (ESS: Stan's multi-chain estimator).
struct Estimate {
  double mean = 0, se = 0, ess = 0;
};

inline Estimate estimate(const std::vector<Eigen::VectorXd>& chains) {
  double sum = 0, n = 0;
  for (const auto& c : chains) sum += c.sum(), n += static_cast<double>(c.size());
  Estimate e;
  e.mean = sum / n;
  e.ess = diagnostics::ess_basic(chains);
  double ss = 0;
  for (const auto& c : chains) ss += (c.array() - e.mean).square().sum();
  e.se = std::sqrt(ss / (n - 1) / e.ess);
  return e;
}
inline Estimate estimate(const Eigen::VectorXd& chain) { return estimate(std::vector<Eigen::VectorXd>{chain}); }

/// Solves Σ = M Σ Mᵀ + S for the stationary covariance of z_{k+1} = M z_k + ε, ε ~ N(0, S).
inline Eigen::MatrixXd discrete_lyapunov(const Eigen::MatrixXd& M, const Eigen::MatrixXd& S) {
  const auto n = M.rows();
  Eigen::MatrixXd K = Eigen::MatrixXd::Identity(n * n, n * n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) K.block(i * n, j * n, n, n) -= M(i, j) * M;  // I - M ⊗ M
  const Eigen::VectorXd s = Eigen::Map<const Eigen::VectorXd>(S.data(), n * n);
  // vec(MΣMᵀ) = (M ⊗ M) vec(Σ) in column-major order.
  const Eigen::VectorXd sigma = K.fullPivLu().solve(s);
  return Eigen::Map<const Eigen::MatrixXd>(sigma.data(), n, n);
}

/// P_k = ∫ over bin k of exp(-U)/Z for bins of width w on [lo, hi], plus the two overflow masses
/// (first and last entries). Composite Simpson with 64 panels per bin; Z by the same rule on [-L, L].
inline std::vector<double> bin_probabilities(const std::function<double(double)>& U, double lo, double hi, int bins,
                                             double support) {
  auto integrate = [&](double a, double b) {
    const int n = 64;
    const double h = (b - a) / n;
    double s = std::exp(-U(a)) + std::exp(-U(b));
    for (int i = 1; i < n; ++i) s += (i % 2 ? 4.0 : 2.0) * std::exp(-U(a + i * h));
    return s * h / 3.0;
  };
  double z = 0;
  const int zbins = 4000;
  for (int i = 0; i < zbins; ++i) z += integrate(-support + 2 * support * i / zbins, -support + 2 * support * (i + 1) / zbins);
  std::vector<double> p;
  p.push_back(integrate(-support, lo) / z);
  const double w = (hi - lo) / bins;
  for (int k = 0; k < bins; ++k) p.push_back(integrate(lo + k * w, lo + (k + 1) * w) / z);
  p.push_back(integrate(hi, support) / z);
  return p;
}

/// Histogram frequencies on the same bins (with overflow bins first and last).
inline std::vector<double> bin_frequencies(const std::vector<double>& draws, double lo, double hi, int bins) {
  std::vector<double> f(static_cast<std::size_t>(bins) + 2, 0.0);
  const double w = (hi - lo) / bins;
  for (double x : draws) {
    std::size_t k;
    if (x < lo) k = 0;
    else if (x >= hi) k = static_cast<std::size_t>(bins) + 1;
    else k = 1 + static_cast<std::size_t>(std::min(bins - 1, static_cast<int>((x - lo) / w)));
    f[k] += 1.0;
  }
  for (double& v : f) v /= static_cast<double>(draws.size());
  return f;
}

inline double total_variation(const std::vector<double>& p, const std::vector<double>& q) {
  double tv = 0;
  for (std::size_t k = 0; k < p.size(); ++k) tv += std::abs(p[k] - q[k]);
  return 0.5 * tv;
}

/// Expected TV of n_eff i.i.d. draws against the truth: Σ_k sqrt(P_k(1-P_k)/(2π n_eff))
/// (docs/math.md#histogram-tests).
inline double null_total_variation(const std::vector<double>& p, double n_eff) {
  double s = 0;
  for (double pk : p) s += std::sqrt(pk * (1 - pk) / (2 * M_PI * n_eff));
  return s;
}

/// Standard deviation of the null TV: with D_k ≈ N(0, P_k(1-P_k)/n), Var|D_k| = (1 - 2/π)P_k(1-P_k)/n,
/// and bins treated as independent (their negative correlation only makes this conservative).
inline double null_total_variation_sd(const std::vector<double>& p, double n_eff) {
  double s = 0;
  for (double pk : p) s += (1 - 2 / M_PI) * pk * (1 - pk) / n_eff;
  return 0.5 * std::sqrt(s);
}

/// Batch means of a stream of scalars: mean and its standard error sd(batch means)/sqrt(B), with B
/// batches long enough to be nearly independent (docs/math.md#checks-for-any-target, e).
class BatchMeans {
 public:
  BatchMeans(long total, int batches) : per_(total / batches), means_(static_cast<std::size_t>(batches), 0.0) {}
  void add(double f) {
    means_[static_cast<std::size_t>(count_ / per_)] += f;
    ++count_;
  }
  long size() const { return static_cast<long>(means_.size()) * per_; }
  Estimate result() const {
    const double B = static_cast<double>(means_.size());
    double m = 0;
    for (double v : means_) m += v / static_cast<double>(per_);
    m /= B;
    double ss = 0;
    for (double v : means_) ss += (v / static_cast<double>(per_) - m) * (v / static_cast<double>(per_) - m);
    return {m, std::sqrt(ss / (B - 1) / B), 0.0};
  }
 private:
  long per_;
  long count_ = 0;
  std::vector<double> means_;
};

/// Weighted least-squares slope of log|b| on log h, and its standard error from the biases' SEs.
struct Slope {
  double slope = 0, se = 0;
};
inline Slope log_log_slope(const std::vector<double>& h, const std::vector<double>& bias, const std::vector<double>& se) {
  const std::size_t n = h.size();
  std::vector<double> x(n), y(n), w(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = std::log(h[i]);
    y[i] = std::log(std::abs(bias[i]));
    const double sy = se[i] / std::abs(bias[i]);  // delta method: sd of log|b|
    w[i] = 1.0 / (sy * sy);
  }
  double sw = 0, sx = 0, sy = 0;
  for (std::size_t i = 0; i < n; ++i) sw += w[i], sx += w[i] * x[i], sy += w[i] * y[i];
  const double mx = sx / sw, my = sy / sw;
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < n; ++i) sxx += w[i] * (x[i] - mx) * (x[i] - mx), sxy += w[i] * (x[i] - mx) * (y[i] - my);
  return {sxy / sxx, std::sqrt(1.0 / sxx)};
}

}  // namespace sgmcmc::testing
