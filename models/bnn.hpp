#pragma once
// The Bayesian neural network of the SGHMC paper §4.2 / App. H.1: d–H–K (784–100–10 for MNIST-shaped
// data), sigmoid hidden layer, softmax output, Gaussian priors N(0, 1/λ_l) on each layer's weights and
// biases with Gamma(1, 1) hyperpriors on λ_1, λ_2, resampled by a Gibbs step (`gibbs`) every 100 steps.
// θ = [vec(W1) (d×H), b1 (H), vec(W2) (H×K), b2 (K)]. The batch gradient is hand-written backprop with
// Eigen matrix products (add_batch_gradient, picked up by models::Minibatch):
//   A = W1ᵀX + b1, Z = σ(A), O = W2ᵀZ + b2, P = softmax(O); δO = P − Y; ∇W2 = Z δOᵀ; δA = (W2 δO)⊙Z⊙(1−Z);
//   ∇W1 = X δAᵀ.
// The data are shared (shared_ptr<const Dataset<float>>); the batch is gathered into a scratch matrix.
// Optional threading (`chunks`, `threads`): fixed parts of the batch on the library's worker pool,
// summed in part order, so a run gives the same bits on 1 or 2 threads.
#include <cmath>
#include <algorithm>
#include <memory>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/data/gather.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/modules/dense/product.hpp>
#include <sgmcmc/modules/parallel/worker_pool.hpp>
#include <sgmcmc/modules/random/distributions.hpp>

namespace sgmcmc::models {

struct BnnPrecisions {
  double layer1 = 1, layer2 = 1;
};

/// The net with its products in `Scalar`: double, or float (`"precision": "float32"` in the bnn target).
/// θ and its gradient stay double in the sampler; in float, each gradient call rounds θ to float once,
/// runs the forward and backward products in float (every sum over a part's examples accumulates in
/// float, as a float32 PyTorch net does) and adds each part's float gradient to g in double, in part
/// order. The prior terms and the Gibbs step are double in both.
template <class Scalar>
struct BasicBnn {
  using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  using Vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
  std::shared_ptr<const data::Dataset<float>> data;
  Eigen::Index hidden = 100;
  Eigen::Index classes = 10;
  std::shared_ptr<BnnPrecisions> precisions = std::make_shared<BnnPrecisions>();

  /// Threading of the batch gradient: the batch is cut into `chunks` fixed contiguous parts; each
  /// part's gradient goes into its own buffer and the buffers are added to g in part order, so the
  /// result depends on `chunks` only, never on `threads` (the threads that compute the parts, parts
  /// c ≡ w mod threads on thread w). chunks = 1 in double: one part, added straight into g.
  int chunks = 1;
  int threads = 1;

  struct Part {
    Matrix x, a, o, dz;
    Vector g;
  };
  struct Scratch {
    std::vector<Part> parts;
    std::vector<std::size_t> one;
    Vector theta;  ///< θ in Scalar, when Scalar is not double
    parallel::WorkerPoolSlot pool;  ///< the part threads; a copied model starts with its own (empty) slot
  };
  mutable Scratch s;  ///< per potential copy (one chain); reused, so a step allocates nothing after the first

  Eigen::Index in() const { return data->dim(); }
  Eigen::Index layer1_size() const { return in() * hidden + hidden; }
  Eigen::Index dim() const { return layer1_size() + hidden * classes + classes; }
  std::size_t size() const { return data->size(); }

  void add_prior_gradient(const Eigen::VectorXd& th, Eigen::VectorXd& g) const {
    g.head(layer1_size()).noalias() += precisions->layer1 * th.head(layer1_size());
    g.tail(dim() - layer1_size()).noalias() += precisions->layer2 * th.tail(dim() - layer1_size());
  }
  double prior_value(const Eigen::VectorXd& th) const {
    return 0.5 * (precisions->layer1 * th.head(layer1_size()).squaredNorm() +
                  precisions->layer2 * th.tail(dim() - layer1_size()).squaredNorm());
  }

  /// θ's coefficients in Scalar: θ itself in double, else rounded once into the scratch.
  const Scalar* weights(const Eigen::VectorXd& th) const {
    if constexpr (std::is_same_v<Scalar, double>) {
      return th.data();
    } else {
      s.theta = th.cast<Scalar>();
      return s.theta.data();
    }
  }

  /// Class probabilities (K × n) for the feature columns X (d × n), into `p`, and the hidden units
  /// Z (n × H, one row per example) into `z`; `w` is θ in Scalar. Z is computed as XᵀW1 rather than
  /// W1ᵀX: the product's n rows fill the register blocks better than H = 100 rows do, and the backward
  /// pass then needs no transpose (∇W1 = X δA). The two large products (XᵀW1 here, X δA in the
  /// backward pass) run on dense::multiply's fixed-order kernel; the small ones on Eigen.
  template <dense::DirectMatrix X>
  void forward(const Scalar* w, const X& x, Matrix& z, Matrix& p) const {
    const Eigen::Index d = in(), H = hidden, K = classes;
    const Eigen::Map<const Matrix> W1(w, d, H), W2(w + layer1_size(), H, K);
    const Eigen::Map<const Vector> b1(w + d * H, H), b2(w + layer1_size() + H * K, K);
    z.resize(x.cols(), H);
    dense::multiply(z, x.transpose(), W1);
    z.rowwise() += b1.transpose();
    z = (Scalar(1) + (-z.array()).exp()).inverse();  // Z = σ(A), in place
    p.noalias() = W2.transpose() * z.transpose();
    p.colwise() += b2;
    for (Eigen::Index c = 0; c < p.cols(); ++c) {  // column-wise softmax, max-shifted
      const Scalar m = p.col(c).maxCoeff();
      p.col(c) = (p.col(c).array() - m).exp();
      p.col(c) /= p.col(c).sum();
    }
  }

  /// The same for an expression (error_rate's cast of the test images to double): evaluated once.
  template <class X>
    requires(!dense::DirectMatrix<X>)
  void forward(const Scalar* w, const X& x, Matrix& z, Matrix& p) const {
    forward(w, Matrix(x), z, p);
  }

  void add_batch_gradient(const Eigen::VectorXd& th, const std::vector<std::size_t>& idx, Eigen::VectorXd& g, double scale) const {
    const auto n = idx.size();
    const auto k = static_cast<std::size_t>(std::max(1, chunks));
    if (s.parts.size() < k) s.parts.resize(k);
    const Scalar* w = weights(th);
    if constexpr (std::is_same_v<Scalar, double>) {
      if (k == 1) {
        add_part_gradient(w, idx, 0, n, s.parts[0], g, scale);
        return;
      }
    }
    auto part = [&](std::size_t c, unsigned /*worker*/) {
      Part& p = s.parts[c];
      p.g.setZero(g.size());
      add_part_gradient(w, idx, c * n / k, (c + 1) * n / k, p, p.g, scale);
    };
    // The library's one thread pool (modules/parallel/worker_pool.hpp), created on the first gradient:
    // a step pays a wake-up, not thread creation. Part c's result depends on c alone.
    const auto t = static_cast<unsigned>(std::min(k, static_cast<std::size_t>(std::max(1, threads))));
    if (k == 1) part(0, 0);
    else s.pool.get(t).for_each(k, part);
    for (std::size_t c = 0; c < k; ++c) g += s.parts[c].g.template cast<double>();  // fixed order: independent of `threads`
  }
  /// g += scale · Σ_{i ∈ idx[begin, end)} ∇(-log p(y_i | x_i, θ)), by backprop on the part's scratch.
  template <class G>
  void add_part_gradient(const Scalar* w, const std::vector<std::size_t>& idx, std::size_t begin, std::size_t end, Part& p,
                         G& g, double scale) const {
    if (end == begin) return;  // an empty part (fewer examples than parts) adds nothing; Eigen's sums of 0 columns are UB
    const Eigen::Index d = in(), H = hidden, K = classes, n = static_cast<Eigen::Index>(end - begin);
    p.x.resize(d, n);
    data::gather_columns(data->x, idx, begin, p.x);
    forward(w, p.x, p.a, p.o);
    for (Eigen::Index c = 0; c < n; ++c) p.o(data->y[static_cast<Eigen::Index>(idx[begin + static_cast<std::size_t>(c)])], c) -= Scalar(1);  // δO = P − Y
    p.o *= static_cast<Scalar>(scale);
    const Eigen::Map<const Matrix> W2(w + layer1_size(), H, K);
    Eigen::Map<Matrix> gW1(g.data(), d, H), gW2(g.data() + layer1_size(), H, K);
    gW2.noalias() += p.a.transpose() * p.o.transpose();
    g.segment(layer1_size() + H * K, K) += p.o.rowwise().sum();
    // δA = (δOᵀ W2ᵀ) ⊙ Z ⊙ (1 − Z) (n × H), into the hidden buffer once ∇W2 is done.
    p.dz.noalias() = p.o.transpose() * W2.transpose();
    p.a.array() = p.dz.array() * p.a.array() * (Scalar(1) - p.a.array());
    dense::multiply_add(gW1, p.x, p.a);
    g.segment(d * H, H) += p.a.colwise().sum().transpose();
  }
  void add_example_gradient(const Eigen::VectorXd& th, std::size_t i, Eigen::VectorXd& g, double scale) const {
    s.one.assign(1, i);
    add_batch_gradient(th, s.one, g, scale);
  }
  double example_value(const Eigen::VectorXd& th, std::size_t i) const {
    const Matrix x = data->x.col(static_cast<Eigen::Index>(i)).template cast<Scalar>();
    Matrix a, p;
    forward(weights(th), x, a, p);
    return -std::log(static_cast<double>(p(data->y[static_cast<Eigen::Index>(i)], 0)));
  }
  /// log p(y_i | x_i, θ), the softmax probability of the label (pointwise log-likelihood, for LOO).
  double example_log_likelihood(const Eigen::VectorXd& th, std::size_t i) const { return -example_value(th, i); }

  /// λ_l | θ ~ Gamma(1 + n_l/2, rate 1 + ‖θ_l‖²/2) for each layer (weights and biases together).
  template <class R>
  void gibbs(const Eigen::VectorXd& th, R& rng) const {
    const Eigen::Index n1 = layer1_size(), n2 = dim() - n1;
    precisions->layer1 = random::gamma(rng, 1.0 + 0.5 * double(n1)) / (1.0 + 0.5 * th.head(n1).squaredNorm());
    precisions->layer2 = random::gamma(rng, 1.0 + 0.5 * double(n2)) / (1.0 + 0.5 * th.tail(n2).squaredNorm());
  }

  /// Weights N(0, init_sd²), biases 0.
  template <class R>
  Eigen::VectorXd initial_point(R& rng, double init_sd = 0.01) const {
    Eigen::VectorXd th(dim());
    rng.normals(th);
    th *= init_sd;
    th.segment(in() * hidden, hidden).setZero();
    th.tail(classes).setZero();
    return th;
  }

  /// Class probabilities averaged into `acc` (K × N, running mean over `count` earlier draws).
  template <class S>
  double error_rate(const Eigen::VectorXd& th, const data::Dataset<S>& test, Eigen::MatrixXd* acc = nullptr, double count = 0) const {
    Matrix a, ps;
    forward(weights(th), test.x.template cast<Scalar>(), a, ps);
    const Eigen::MatrixXd p = ps.template cast<double>();
    if (acc) {
      if (count == 0) *acc = p;
      else *acc += (p - *acc) / (count + 1);
    }
    const Eigen::MatrixXd& q = acc ? *acc : p;
    std::size_t wrong = 0;
    for (Eigen::Index c = 0; c < q.cols(); ++c) {
      Eigen::Index k;
      q.col(c).maxCoeff(&k);
      wrong += k != test.y[c];
    }
    return double(wrong) / double(q.cols());
  }
};
using Bnn = BasicBnn<double>;
using BnnFloat = BasicBnn<float>;
static_assert(BatchDataModel<Bnn> && BatchDataModel<BnnFloat>);

}  // namespace sgmcmc::models
