#pragma once
// Autocovariance of one chain via FFT, computed like Stan's
// stan/analyze/mcmc/autocovariance.hpp (and stan/math's autocorrelation):
// the centred chain is zero-padded to 2M >= 2n so the circular correlation of
// the FFT equals the linear one, and lag k is divided by n, not n - k. That
// "biased" estimator is the one Geyer (1992) recommends: it keeps the
// sequence positive definite, which the initial-sequence ESS relies on.

#include <complex>

#include <Eigen/Dense>
#include <unsupported/Eigen/FFT>

namespace sgmcmc::diagnostics {

// Smallest m >= n whose only prime factors are 2, 3 and 5, so the FFT stays
// fast for every chain length (stan::math::internal::fft_next_good_size).
inline Eigen::Index fft_next_good_size(Eigen::Index n) {
  if (n <= 2) return 2;
  for (;; ++n) {
    Eigen::Index m = n;
    while (m % 2 == 0) m /= 2;
    while (m % 3 == 0) m /= 3;
    while (m % 5 == 0) m /= 5;
    if (m == 1) return n;
  }
}

// acov(k) = (1/n) * sum_{t=0}^{n-1-k} (y_t - mean)(y_{t+k} - mean), k = 0..n-1.
// A constant chain gives all zeros (Stan's version would produce 0/0 = NaN).
inline Eigen::VectorXd autocovariance(const Eigen::Ref<const Eigen::VectorXd>& y) {
  const Eigen::Index n = y.size();
  if (n == 0) return Eigen::VectorXd();
  const Eigen::Index padded = 2 * fft_next_good_size(n);

  Eigen::VectorXd centred = Eigen::VectorXd::Zero(padded);
  centred.head(n) = y.array() - y.mean();

  Eigen::FFT<double> fft;
  Eigen::VectorXcd freq(padded);
  fft.fwd(freq, centred);
  // |F|^2 is the transform of the (circular) autocorrelation.
  Eigen::VectorXcd power = freq.cwiseAbs2().cast<std::complex<double>>();
  Eigen::VectorXcd back(padded);
  fft.inv(back, power);

  // As Stan: normalise to autocorrelation, then rescale by the directly
  // summed lag-0 term so acov(0) is the exact (1/n) sum of squares.
  Eigen::VectorXd raw = back.head(n).real();
  const double sum_sq = (y.array() - y.mean()).square().sum();
  if (raw(0) == 0.0 || sum_sq == 0.0) return Eigen::VectorXd::Zero(n);
  return raw * (sum_sq / static_cast<double>(n) / raw(0));
}

}  // namespace sgmcmc::diagnostics
