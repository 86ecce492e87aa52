#pragma once
// A two-layer net written as a small vocabulary: the user gives the hidden units' activation h(a) and
// the per-example log-likelihood of the K outputs, ℓ_i(o), each once over a generic scalar, and a
// coordinate-wise log-prior; the library runs the layers as matrix products and differentiates them in
// reverse at the level of those products (backpropagation, Rumelhart, Hinton & Williams 1986):
//   A = X_bᵀW1 + 1b1ᵀ (n × H),  Z = h(A),  O = W2ᵀZᵀ + b2 1ᵀ (K × n),  ℓ_i(O_{·i});
//   δO_{·i} = −∇_o ℓ_i (one Dual<K> evaluation of ℓ_i),  ∇W2 = Zᵀ δOᵀ,  ∇b2 = δO 1,
//   δA = (δOᵀ W2ᵀ) ⊙ h′(A) (h′ by one Dual<1> per unit, with h itself),  ∇W1 = X_b δA,  ∇b1 = δAᵀ 1.
// Only the scalar pieces are differentiated by dual numbers; the products are models/bnn.hpp's (the two
// large ones, X_bᵀW1 and X_b δA, on dense::multiply's fixed-order kernel, the small ones on Eigen), so
// the gradient costs what hand-written backprop costs plus the duals' share (docs/benchmarks.md,
// "Automatic differentiation", against models/bnn.hpp's hand-written backprop), and a program with both
// compiles each product once.
// θ = [vec(W1) (d × H), b1 (H), vec(W2) (H × K), b2 (K)], models/bnn.hpp's layout.
//
// A models::DataModel with the batch path, the exact U and the pointwise log-likelihood.
#include <array>
#include <concepts>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <sgmcmc/data/gather.hpp>
#include <sgmcmc/models/autodiff/dual.hpp>
#include <sgmcmc/models/autodiff/prior.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/modules/dense/product.hpp>

namespace sgmcmc::models::autodiff {

/// `static constexpr int outputs = K`, the activation `activation(a)` of a hidden unit and
/// `log_likelihood(i, o)`, log p(y_i | o) for the outputs o (a std::array<T, K>), for T = double and the
/// Duals the net seeds (Dual<1> for the activation, Dual<K> for the outputs).
/// @code
/// struct Classifier {  // softmax over K = 10 classes, tanh units
///   static constexpr int outputs = 10;
///   std::shared_ptr<const Eigen::VectorXi> y;
///   template <class T> T activation(const T& a) const { using std::tanh; return tanh(a); }
///   template <class T> T log_likelihood(std::size_t i, const std::array<T, 10>& o) const {
///     T lse = o[0];
///     for (int k = 1; k < 10; ++k) lse = autodiff::log_sum_exp(lse, o[k]);
///     return o[(*y)[i]] - lse; }
///   template <class T> T log_prior(std::size_t, const T& w) const { return -0.5 * w * w; }
/// };
/// @endcode
template <class L>
concept LikelihoodOfNetOutputs = requires { { L::outputs } -> std::convertible_to<int>; } && (L::outputs >= 1) &&
    requires(const L l, std::size_t i, double a, Dual<1> ad, const std::array<double, L::outputs>& o,
             const std::array<Dual<L::outputs>, L::outputs>& od) {
      { l.activation(a) } -> std::convertible_to<double>;
      { l.activation(ad) } -> std::same_as<Dual<1>>;
      { l.log_likelihood(i, o) } -> std::convertible_to<double>;
      { l.log_likelihood(i, od) } -> std::same_as<Dual<L::outputs>>;
    };

/// What a two-layer net is written from: the activation and output likelihood, and a coordinate-wise
/// prior (a VectorPrior's forward mode would cost d/W evaluations of a prior over every weight).
template <class L>
concept TwoLayerNetSpec = LikelihoodOfNetOutputs<L> && CoordinatePrior<L>;

template <TwoLayerNetSpec L>
struct TwoLayerNet {
  static constexpr int K = L::outputs;
  using Matrix = Eigen::MatrixXd;

  L spec;
  std::shared_ptr<const Eigen::MatrixXd> x;  ///< the inputs, d × N (example i in column i), shared by copies
  Eigen::Index hidden = 1;                    ///< H
  struct Scratch {
    Matrix x, a, slope, o, dz;  ///< X_b; A then Z then δA; h′(A); O then δO; δOᵀW2ᵀ
    std::vector<std::size_t> one;
  };
  mutable Scratch scratch{};  ///< reused: no allocation after the first batch; one model object per thread

  std::size_t size() const { return static_cast<std::size_t>(x->cols()); }
  Eigen::Index in() const { return x->rows(); }
  Eigen::Index layer1_size() const { return in() * hidden + hidden; }
  Eigen::Index dim() const { return layer1_size() + hidden * K + K; }

  double prior_value(const Eigen::VectorXd& theta) const { return -log_prior_value(spec, theta); }
  void add_prior_gradient(const Eigen::VectorXd& theta, Eigen::VectorXd& g) const {
    Vector<Dual<chunk>> unused;  // a CoordinatePrior takes no forward-mode scratch
    add_negative_log_prior_gradient(spec, theta, g, unused);
  }

  /// g += scale · Σ_{i ∈ idx} ∇(−ℓ_i)(θ) by backpropagation through the batch's products.
  void add_batch_gradient(const Eigen::VectorXd& theta, const std::vector<std::size_t>& idx, Eigen::VectorXd& g, double scale) const {
    const Eigen::Index d = in(), H = hidden, n = static_cast<Eigen::Index>(idx.size());
    if (n == 0) return;
    auto& s = scratch;
    s.x.resize(d, n);
    data::gather_columns(*x, idx, 0, s.x);
    forward(theta, s.x, /*slopes=*/true);
    // δO = −scale · ∇_o ℓ_i, one Dual<K> per example.
    for (Eigen::Index c = 0; c < n; ++c) {
      std::array<Dual<K>, K> o;
      for (int k = 0; k < K; ++k) o[static_cast<std::size_t>(k)] = Dual<K>::variable(s.o(k, c), k);
      const Dual<K> r = spec.log_likelihood(idx[static_cast<std::size_t>(c)], o);
      for (int k = 0; k < K; ++k) s.o(k, c) = -scale * r.d[k];
    }
    const Eigen::Map<const Matrix> W2(theta.data() + layer1_size(), H, K);
    Eigen::Map<Matrix> gW1(g.data(), d, H), gW2(g.data() + layer1_size(), H, K);
    gW2.noalias() += s.a.transpose() * s.o.transpose();
    g.segment(layer1_size() + H * K, K) += s.o.rowwise().sum();
    s.dz.noalias() = s.o.transpose() * W2.transpose();  // n × H
    s.a.array() = s.dz.array() * s.slope.array();       // δA = (δOᵀW2ᵀ) ⊙ h′(A)
    dense::multiply_add(gW1, s.x, s.a);
    g.segment(d * H, H) += s.a.colwise().sum().transpose();
  }
  void add_example_gradient(const Eigen::VectorXd& theta, std::size_t i, Eigen::VectorXd& g, double scale) const {
    scratch.one.assign(1, i);
    add_batch_gradient(theta, scratch.one, g, scale);
  }
  /// log p(y_i | θ) (PointwiseLikelihoodModel).
  double example_log_likelihood(const Eigen::VectorXd& theta, std::size_t i) const {
    const Matrix xi = x->col(static_cast<Eigen::Index>(i));
    forward(theta, xi, /*slopes=*/false);
    std::array<double, K> o;
    for (int k = 0; k < K; ++k) o[static_cast<std::size_t>(k)] = scratch.o(k, 0);
    return spec.log_likelihood(i, o);
  }
  double example_value(const Eigen::VectorXd& theta, std::size_t i) const { return -example_log_likelihood(theta, i); }

 private:
  /// scratch.a = Z = h(X_bᵀW1 + 1b1ᵀ) (n × H), scratch.slope = h′ there (when asked), scratch.o = O (K × n).
  template <dense::DirectMatrix X>
  void forward(const Eigen::VectorXd& theta, const X& xb, bool slopes) const {
    const Eigen::Index d = in(), H = hidden, n = xb.cols();
    auto& s = scratch;
    const Eigen::Map<const Matrix> W1(theta.data(), d, H), W2(theta.data() + layer1_size(), H, K);
    const Eigen::Map<const Eigen::VectorXd> b1(theta.data() + d * H, H), b2(theta.data() + layer1_size() + H * K, K);
    s.a.resize(n, H);
    dense::multiply(s.a, xb.transpose(), W1);
    s.a.rowwise() += b1.transpose();
    if (slopes) {
      s.slope.resize(n, H);
      for (Eigen::Index j = 0; j < H; ++j)
        for (Eigen::Index c = 0; c < n; ++c) {
          const Dual<1> z = spec.activation(Dual<1>::variable(s.a(c, j), 0));
          s.a(c, j) = z.v, s.slope(c, j) = z.d[0];
        }
    } else {
      for (Eigen::Index j = 0; j < H; ++j)
        for (Eigen::Index c = 0; c < n; ++c) s.a(c, j) = spec.activation(s.a(c, j));
    }
    s.o.resize(K, n);
    s.o.noalias() = W2.transpose() * s.a.transpose();
    s.o.colwise() += b2;
  }
};

/// The net of `spec` with H hidden units on the inputs X (d × N, example i in column i).
template <TwoLayerNetSpec L>
TwoLayerNet<L> two_layer_net(L spec, Eigen::MatrixXd x, Eigen::Index hidden) {
  return {std::move(spec), std::make_shared<const Eigen::MatrixXd>(std::move(x)), hidden};
}

}  // namespace sgmcmc::models::autodiff
