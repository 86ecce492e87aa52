#pragma once
// The expanded-mean parametrisation of the probability simplex (Patterson & Teh 2013 §3; complete recipe,
// Ma, Chen & Fox 2015 §4.2 and App. F.2; docs/math.md#expanded-mean-sgrld): the one place its pieces are
// written. The samplers that run on it are samplers/sgrld.hpp (`ExpandedMean`), samplers/scir.hpp and
// samplers/expanded_mean.hpp (K×W rows, online LDA's samplers); models supply only the potential side.
//
// A point π of Δ^{K-1} is represented by θ ∈ (0, ∞)^K with π = θ/S, S = Σ_k θ_k. With θ_k ~ Gamma(β_k, 1)
// independently, π ~ Dirichlet(β) and is independent of S ~ Gamma(Σβ). For a density p(π), the density of θ
//   p_θ(θ) ∝ p(θ/S) Π_k θ_k^{β_k − 1} e^{−θ_k}
// has π-marginal p(π) whatever β; samplers move θ, which has no constraint but θ > 0, and report π.
//
// - Lifting (`lift`): a point π0 of the simplex to θ0 = K π0 (S = K is E[S] for θ_k ~ Exp(1)), zeros lifted
//   to the smallest normal double so that θ0 > 0.
// - The mirror at 0 (`mirror`): an update that leaves θ_k < 0 is reflected, θ_k <- |θ_k| (Patterson & Teh §3);
//   for the even extension p̃(θ) = p(|θ|) this is the chain on θ > 0 (the derivation, with the momentum
//   flip the momentum samplers also need, is in samplers/expanded_mean.hpp). `keep_positive` floors the
//   result at the smallest normal double, so that √θ-scaled noise never stops at exactly 0.
// - The Riemannian pieces for D = G⁻¹ = diag θ, Q = 0 (the expanded-mean Fisher metric): Γ_k = ∂θ_k/∂θ_k = 1
//   (complete recipe Eq. 3), and the Langevin SDE dθ = (−θ ⊙ ∇U_θ + 1) dt + √(2θ) dW.
//   · Vector form, a simplex potential U(π) (Euclidean gradient of a smooth extension; only its tangential
//     part matters) with θ_k ~ Exp(1) (β = 1): U_θ(θ) = Σ_k θ_k + U(θ/S), so (`theta_gradient`)
//       ∂_k U_θ = 1 + (∂_kU − πᵀ∇U)/S,
//     and the mirrored Euler step (`langevin_update`) θ_k <- | θ_k + h(1 − θ_k ∂_kU_θ) + √(2hθ_k) ζ_k |.
//   · Row form, online LDA: a K×W matrix θ (topics × words; column-major, as the samplers store it in a
//     vector) whose rows are K points of Δ^{W-1}, with θ_kw ~ Gamma(β, 1) and multinomial statistics
//     n_kw, n_k· (LDA: the minibatch's Gibbs-expected topic-word counts scaled by D/|B|, Patterson & Teh
//     Eq. 10 = the complete recipe's Eq. S.29 with S.30's Gibbs conditionals). Then
//       ∂ log p/∂θ_kw = (β − 1)/θ_kw − 1 + n_kw/θ_kw − n_k·/θ_k·                   (`log_density_gradient`, S.29)
//       θ_kw ∂ log p/∂θ_kw + Γ_kw = β − θ_kw + n_kw − π_kw n_k·                  (`langevin_drift`)
//     and for the Riemannian HMC of complete recipe §3.3 with the same metric (G^{-1/2} = diag √θ,
//     Γ_r = ∂√θ/∂θ = 1/(2√θ)) the momentum force −G^{-1/2}∇U + Γ_r                 (`hamiltonian_force`)
//       (β − 1 + n_kw − θ_kw − π_kw n_k·)/√θ_kw + 1/(2√θ_kw).
//   A model supplies the statistics through `CountPotential` (models/text/lda.hpp); the θ-scaled forms stay
//   bounded as θ_kw -> 0 even for β < 1, which is why the samplers take them rather than ∇U.
//
// Each function below is the exact floating-point expression the samplers use (the library's runs are
// reproducible to the bit, so the order of operations is part of the contract).
#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>

#include <Eigen/Core>

#include <sgmcmc/modules/random/distributions.hpp>

namespace sgmcmc::expanded_mean {

inline constexpr double tiny = std::numeric_limits<double>::min();  ///< the floor of θ (smallest normal double)

/// The state pieces every expanded-mean sampler keeps: θ and the point π it represents.
struct Point {
  Eigen::VectorXd theta;  ///< expanded mean θ > 0
  Eigen::VectorXd x;      ///< π = θ / Σθ, the point on the simplex (a sampler's `position`)
};

// --- The simplex and θ ---------------------------------------------------------------------------------

/// θ0 = K π0 (S = K, the mean of Σθ under θ_k ~ Exp(1)), zeros lifted to the smallest normal double.
inline Eigen::VectorXd lift(const Eigen::VectorXd& x0) {
  return (static_cast<double>(x0.size()) * x0).cwiseMax(tiny);
}

/// π = θ/Σθ into x (resized). Returns false, with x all NaN, when Σθ is not positive (a diverged θ).
inline bool normalize(const Eigen::VectorXd& theta, Eigen::VectorXd& x) {
  const double total = theta.sum();
  if (total > 0) {
    x = theta / total;
    return true;
  }
  x.setConstant(theta.size(), std::numeric_limits<double>::quiet_NaN());
  return false;
}

/// The mirror at θ = 0 (Patterson & Teh §3): v <- |v|. Returns whether it reflected.
inline bool mirror(double& v) {
  if (v < 0) {
    v = -v;
    return true;
  }
  return false;
}

/// θ after the mirror, kept > 0 (a θ that underflowed to 0 would freeze its √θ-scaled noise).
inline double keep_positive(double v) { return std::max(v, tiny); }

// --- Vector form: SGRLD on one simplex, D = diag θ, Γ = 1 ----------------------------------------------

/// ∂_k U_θ = 1 + (∂_kU − πᵀ∇U)/S for U_θ(θ) = Σθ + U(θ/S): `grad_k` = ∂_kU at π, `mean_grad` = πᵀ∇U, `sum` = S.
inline double theta_gradient(double grad_k, double mean_grad, double sum) { return 1.0 + (grad_k - mean_grad) / sum; }

/// One Euler step of dθ_k = (1 − θ_k ∂_kU_θ) dt + √(2θ_k) dW before the mirror: θ + h(1 − θ du) + √(2hθ) ζ.
inline double langevin_update(double theta, double du, double h, double zeta) {
  return theta + h * (1.0 - theta * du) + std::sqrt(2.0 * h * theta) * zeta;
}

// --- Row form: a K×W expanded mean whose rows are K simplices (online LDA's topics) ----------------------

/// The K×W matrix stored column-major in v (the samplers' vector storage), as a view.
inline Eigen::Map<const Eigen::MatrixXd> as_rows(const Eigen::VectorXd& v, Eigen::Index rows) {
  return {v.data(), rows, rows > 0 ? v.size() / rows : 0};
}
inline Eigen::Map<Eigen::MatrixXd> as_rows(Eigen::VectorXd& v, Eigen::Index rows) {
  return {v.data(), rows, rows > 0 ? v.size() / rows : 0};
}

/// π_kw = θ_kw / θ_k· (each row of the K×W matrix normalised), the row sums θ_k· left in `row_sums`
/// (resized: a sampler passes its scratch, so a step allocates nothing). `pi` must have θ's shape.
inline void normalize_rows(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::Ref<Eigen::MatrixXd> pi,
                           Eigen::VectorXd& row_sums) {
  pi = theta;
  row_sums = theta.rowwise().sum();
  for (Eigen::Index k = 0; k < theta.rows(); ++k) pi.row(k) /= row_sums[k];
}
inline void normalize_rows(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::Ref<Eigen::MatrixXd> pi) {
  Eigen::VectorXd row_sums;
  normalize_rows(theta, pi, row_sums);
}

/// θ_kw ~ Gamma(1, 1) i.i.d. (K×W, column-major draws): each row's π_k ~ Dir(1), a random start that breaks
/// the rows' label symmetry (online LDA's start).
template <class R>
Eigen::MatrixXd random_rows(Eigen::Index rows, Eigen::Index cols, R& rng) {
  Eigen::MatrixXd theta(rows, cols);
  for (Eigen::Index i = 0; i < theta.size(); ++i) theta.data()[i] = random::gamma(rng, 1.0);
  return theta;
}

/// The multinomial statistics of K rows at the current π: n_kw (K×W) and n_k· (K). For online LDA these
/// are a minibatch's Gibbs-expected counts scaled by D/|B| (Patterson & Teh Eq. 10; complete recipe S.29/S.30).
struct Counts {
  Eigen::MatrixXd nkw;
  Eigen::VectorXd nk;
};

/// The potential side of a row-form expanded-mean sampler: `counts(π, rng, c)` fills c with the statistics
/// at the K×W topics π (drawing a minibatch and any local latent variables from rng), and `prior_shape()`
/// is β of θ_kw ~ Gamma(β, 1). models/text/lda.hpp's Model is one.
template <class P, class R>
concept CountPotential = requires(const P& p, const Eigen::Ref<const Eigen::MatrixXd>& pi, R& rng, Counts& c) {
  p.counts(pi, rng, c);
  { p.prior_shape() } -> std::convertible_to<double>;
};

/// ∂ log p/∂θ_kw = (β − 1)/θ − 1 + n_kw/θ − n_k·/θ_k· (Patterson & Teh Eq. 10; complete recipe Eq. S.29).
inline double log_density_gradient(double beta, double theta, double nkw, double nk, double row_sum) {
  return (beta - 1.0) / theta - 1.0 + nkw / theta - nk / row_sum;
}

/// θ ∂log p/∂θ + Γ with D = diag θ, Γ = 1: β − θ + n_kw − π_kw n_k· (Patterson & Teh's drift;
/// docs/math.md#expanded-mean-sgrld).
inline double langevin_drift(double beta, double theta, double nkw, double pi, double nk) {
  return beta - theta + nkw - pi * nk;
}

/// The momentum force −G^{-1/2}∇U + Γ_r of Riemannian HMC with G⁻¹ = diag θ (complete recipe §3.3, Eq. 3's Γ):
/// (β − 1 + n_kw − θ − π n_k·)/√θ + 1/(2√θ); `with_gamma = false` drops Γ (complete recipe Eq. 27's naive form).
inline double hamiltonian_force(double beta, double theta, double sqrt_theta, double nkw, double pi, double nk,
                                bool with_gamma) {
  return (beta - 1.0 + nkw - theta - pi * nk) / sqrt_theta + (with_gamma ? 0.5 / sqrt_theta : 0.0);
}

namespace detail {
/// The least a CountPotential offers (for static_assert tests).
struct ArchetypeCountPotential {
  template <class R>
  void counts(const Eigen::Ref<const Eigen::MatrixXd>&, R&, Counts&) const;
  double prior_shape() const;
};
}  // namespace detail

}  // namespace sgmcmc::expanded_mean
