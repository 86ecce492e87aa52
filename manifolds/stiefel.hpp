#pragma once
// The Stiefel manifold V_{n,p} = {X ∈ R^{n×p} : XᵀX = I_p} with the embedded (Frobenius) metric
// (docs/math.md#stiefel). A point is stored flattened column-major in a vector of n·p entries,
// like every matrix manifold of the library; `matrix(x)` / `const_matrix(x)` view it as n×p.
//
// Geodesic flow: Edelman, Arias & Smith (1998), geodesics of the embedded (Euclidean) metric, the ODE
// Ẍ + X(ẊᵀẊ) = 0, in the closed form of Byrne & Girolami (2013, Stiefel section) used by SGGMC (Liu, Zhu
// & Song 2016); docs/math.md#stiefel. With A = XᵀV (skew) and S = VᵀV,
//   [X(t), V(t)] = [X, V] · expm(t [[A, -S], [I, A]]) · blkdiag(expm(-tA), expm(-tA)).
#include <cmath>
#include <cstdint>
#include <limits>

#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <unsupported/Eigen/MatrixFunctions>

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc {

struct Stiefel {
  using Point = Eigen::VectorXd;
  Eigen::Index n = 2;  ///< rows
  Eigen::Index p = 1;  ///< columns (orthonormal), 1 ≤ p ≤ n

  Stiefel() = default;
  Stiefel(Eigen::Index rows, Eigen::Index cols) : n(rows), p(cols) {
    require(rows >= 2, "stiefel: n must be at least 2");
    require(cols >= 1 && cols <= rows, "stiefel: p must be between 1 and n");
  }

  Eigen::Index ambient_size() const { return n * p; }
  Eigen::Index intrinsic_dim() const { return n * p - p * (p + 1) / 2; }

  /// The n×p matrix view of a flattened point or tangent vector (no copy).
  Eigen::Map<Eigen::MatrixXd> matrix(Eigen::Ref<Eigen::VectorXd> x) const { return {x.data(), n, p}; }
  /// Read-only view. Pass a vector or a segment of one: for an Eigen expression, the Ref would hold a
  /// temporary copy that dies with the call and the view would dangle.
  Eigen::Map<const Eigen::MatrixXd> const_matrix(Eigen::Ref<const Eigen::VectorXd> x) const {
    return {x.data(), n, p};
  }

  /// V <- V - X sym(XᵀV): the orthogonal projector onto T_X = {V : XᵀV skew}; the normal space is
  /// {XS : S symmetric} (docs/math.md#stiefel; pymanopt `Stiefel.projection`).
  void project(Eigen::Ref<const Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v) const {
    const auto X = const_matrix(x);
    auto V = matrix(v);
    const Eigen::MatrixXd b = X.transpose() * V;  // p×p
    V.noalias() -= X * (0.5 * (b + b.transpose()));
  }

  /// The closed-form geodesic flow for time t, then polar re-orthonormalisation of X and re-projection
  /// of V. Returns 0: no boundary. Allocates a few p×p and 2p×2p matrices (the matrix exponential,
  /// Padé scaling and squaring, Higham 2005, needs dynamic storage); O(np² + p³) per flow.
  std::uint64_t flow(Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> v, double t) const {
    auto X = matrix(x);
    auto V = matrix(v);
    // A = XᵀV is skew for tangent V; keep only its skew part so that expm(-tA) is exactly orthogonal even
    // when V has lost tangency by rounding (docs/math.md#stiefel).
    const Eigen::MatrixXd xtv = X.transpose() * V;
    const Eigen::MatrixXd a = 0.5 * (xtv - xtv.transpose());
    const Eigen::MatrixXd s = V.transpose() * V;
    Eigen::MatrixXd m(2 * p, 2 * p);
    m << t * a, -t * s, t * Eigen::MatrixXd::Identity(p, p), t * a;
    const Eigen::MatrixXd e = m.exp();
    const Eigen::MatrixXd r = (-t * a).exp();
    // X(t) = [X, V] E [I; 0] e^{-tA},  V(t) = [X, V] E [0; I] e^{-tA} (the derivative of X(t)).
    const Eigen::MatrixXd xn = (X * e.topLeftCorner(p, p) + V * e.bottomLeftCorner(p, p)) * r;
    V = (X * e.topRightCorner(p, p) + V * e.bottomRightCorner(p, p)) * r;
    X = xn;
    orthonormalize(X);
    project(x, v);
    return 0;
  }

  /// ‖XᵀX - I‖_F; infinite for a vector of the wrong size or with non-finite entries.
  double distance_to(Eigen::Ref<const Eigen::VectorXd> x) const {
    if (x.size() != n * p || !x.allFinite()) return std::numeric_limits<double>::infinity();
    const auto X = const_matrix(x);
    return (X.transpose() * X - Eigen::MatrixXd::Identity(p, p)).norm();
  }

  /// A Haar-uniform point: Z ~ N(0, I_{n×p}), thin QR Z = QR, X = Q·diag(sign(diag R)) (Mezzadri 2007).
  /// Without the sign fix, Householder QR is not uniform: Eigen's (like LAPACK's) Householder vector
  /// makes R_11 = -sign(Z_11)‖z_1‖, so Q_11 = Z_11/R_11 is always negative (docs/math.md#stiefel).
  template <class R>
  Point random_point(R& rng) const {
    Eigen::MatrixXd z(n, p);
    rng.normals(Eigen::Map<Eigen::VectorXd>(z.data(), n * p));
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(z);
    Point x(n * p);
    auto X = matrix(x);
    X = qr.householderQ() * Eigen::MatrixXd::Identity(n, p);
    for (Eigen::Index j = 0; j < p; ++j)
      if (qr.matrixQR()(j, j) < 0.0) X.col(j) = -X.col(j);
    return x;
  }

  /// X <- X (XᵀX)^{-1/2}, the polar factor: the closest matrix with orthonormal columns (docs/math.md#stiefel).
  /// Computed from the p×p eigendecomposition of XᵀX (cheaper than a thin SVD of the n×p matrix).
  void orthonormalize(Eigen::Map<Eigen::MatrixXd> X) const {
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(X.transpose() * X);
    X = X * eig.operatorInverseSqrt();
  }
};

static_assert(Manifold<Stiefel>);

}  // namespace sgmcmc
