#pragma once
// Central finite differences with a derived tolerance, for the glm tests.
//   D(δ) = (f(x + δ) − f(x − δ))/(2δ) = f′(x) + f‴(x)δ²/6 + O(δ⁴),
// so D(δ) − D(2δ) = −f‴(x)δ²/2 + O(δ⁴): three times D(δ)'s truncation error. The tolerance is
// |D(δ) − D(2δ)| (the truncation error with a factor 3 to spare for the O(δ⁴) terms) plus the rounding
// of the differences: each f evaluated to within 64 ulps of max(1, |f|) (a sum of a few log, lgamma
// and exp terms, each within a few ulps), divided by δ. A wrong derivative (a dropped factor, a sign,
// a missing term) is off by O(|f′|), far above both.
#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Core>
#include <doctest/doctest.h>

namespace sgmcmc::test_glm {

struct Difference {
  double derivative;  ///< D(δ)
  double tolerance;   ///< the bound on |D(δ) − f′(x)| above
};

template <class F>
Difference central_difference(F&& f, double x, double delta = 1e-4) {
  const double fp1 = f(x + delta), fm1 = f(x - delta), fp2 = f(x + 2 * delta), fm2 = f(x - 2 * delta);
  const double d1 = (fp1 - fm1) / (2 * delta), d2 = (fp2 - fm2) / (4 * delta);
  const double scale = std::max({1.0, std::abs(fp1), std::abs(fm1), std::abs(fp2), std::abs(fm2)});
  return {d1, std::abs(d1 - d2) + 64 * std::numeric_limits<double>::epsilon() * scale / delta};
}

/// Checks ∇U at t, as `potential.exact_gradient` gives it, against central differences of
/// `potential.value` coordinate by coordinate (each within its derived tolerance).
template <class P>
void check_gradient_by_differences(const P& potential, const Eigen::VectorXd& t) {
  Eigen::VectorXd g;
  potential.exact_gradient(t, g);
  REQUIRE(g.size() == t.size());
  for (Eigen::Index j = 0; j < t.size(); ++j) {
    CAPTURE(j);
    const auto d = central_difference(
        [&](double v) {
          Eigen::VectorXd s = t;
          s[j] = v;
          return potential.value(s);
        },
        t[j]);
    CHECK(std::abs(g[j] - d.derivative) <= d.tolerance);
  }
}

}  // namespace sgmcmc::test_glm
