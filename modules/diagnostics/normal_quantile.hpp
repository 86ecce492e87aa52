#pragma once
// Inverse of the standard normal CDF, Wichura (1988), "Algorithm AS 241: The
// percentage points of the normal distribution", Applied Statistics 37(3),
// 477-484 (PPND16). Relative accuracy about 1e-16 over (0, 1), which is what
// rank normalisation needs in the far tails (p ~ 1/(S + 1/4)).

#include <cmath>
#include <limits>

namespace sgmcmc::diagnostics {

// Phi^{-1}(p). Returns -inf at p == 0, +inf at p == 1, NaN outside [0, 1].
inline double normal_quantile(double p) {
  if (!(p >= 0.0 && p <= 1.0)) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0.0) return -std::numeric_limits<double>::infinity();
  if (p == 1.0) return std::numeric_limits<double>::infinity();

  const double q = p - 0.5;
  if (std::abs(q) <= 0.425) {
    // Central region 0.075 <= p <= 0.925: rational function in q^2.
    const double r = 0.180625 - q * q;
    return q *
           (((((((2509.0809287301226727 * r + 33430.575583588128105) * r +
                 67265.770927008700853) * r + 45921.953931549871457) * r +
               13731.693765509461125) * r + 1971.5909503065514427) * r +
             133.14166789178437745) * r + 3.3871328727963666080) /
           (((((((5226.4952788528545610 * r + 28729.085735721942674) * r +
                 39307.895800092710610) * r + 21213.794301586595867) * r +
               5394.1960214247511077) * r + 687.18700749205790830) * r +
             42.313330701600911252) * r + 1.0);
  }

  // Tails: work with the smaller tail probability so 1 - p never loses digits
  // the caller did not have anyway; r = sqrt(-log(min(p, 1 - p))).
  double r = std::sqrt(-std::log(q < 0.0 ? p : 1.0 - p));
  double value = 0.0;
  if (r <= 5.0) {  // min(p, 1 - p) >= exp(-25) ~ 1.4e-11
    r -= 1.6;
    value = (((((((7.74545014278341407640e-4 * r + 0.0227238449892691845833) * r +
                  0.241780725177450611770) * r + 1.27045825245236838258) * r +
                3.64784832476320460504) * r + 5.76949722146069140550) * r +
              4.63033784615654529590) * r + 1.42343711074968357734) /
            (((((((1.05075007164441684324e-9 * r + 5.47593808499534494600e-4) * r +
                  0.0151986665636164571966) * r + 0.148103976427480074590) * r +
                0.689767334985100004550) * r + 1.67638483018380384940) * r +
              2.05319162663775882187) * r + 1.0);
  } else {  // extreme tail
    r -= 5.0;
    value = (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r +
                  0.00124266094738807843860) * r + 0.0265321895265761230930) * r +
                0.296560571828504891230) * r + 1.78482653991729133580) * r +
              5.46378491116411436990) * r + 6.65790464350110377720) /
            (((((((2.04426310338993978564e-15 * r + 1.42151175831644588870e-7) * r +
                  1.84631831751005468180e-5) * r + 7.86869131145613259100e-4) * r +
                0.0148753612908506148525) * r + 0.136929880922735805310) * r +
              0.599832206555887937690) * r + 1.0);
  }
  return q < 0.0 ? -value : value;
}

}  // namespace sgmcmc::diagnostics
