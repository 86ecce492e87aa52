#pragma once
// SAGA-LD's gradient (Dubey, Reddi, Póczos, Smola, Xing & Williamson 2016, "Variance reduction in
// stochastic gradient Langevin dynamics", Alg. 2; Chatterji et al. 2018): a table a_i = ∇u_i(φ_i) of
// each example's gradient where it was last evaluated, and its sum A = Σ_i a_i;
//   ∇Ũ(θ) = ∇(-log p(θ)) + A + (N/n) Σ_{i ∈ batch} [∇u_i(θ) − a_i],
// then a_i ← ∇u_i(θ) for the batch's examples and A updated. Unbiased for ∇U(θ) given the table when
// the batch is drawn independently of it: with replacement (each example's expected weight is n/N
// whatever its entry), so a stale entry costs variance, never bias. Not without replacement: a batch
// that walks a permutation is made of the examples whose entries are the oldest, and for a quadratic U
// the estimate's conditional mean carries a force proportional to the chain's recent displacement,
// friction without its noise (measured cold: sds 0.82× HMC's, docs/config.md). The constructor
// refuses any order but with replacement. The table starts at the chain's first evaluation point (one
// full pass, as SVRG's first centre).
//
// A generalised linear model (GeneralisedLinearModel: ∇u_i(θ) = ψ_i(θ)·x_i with x_i fixed) keeps one
// scalar ψ_i per example (N numbers), and with a batched path (BatchGeneralisedLinearModel) makes a
// step in one gathered pass; any other model keeps the d-vectors (N·d numbers, `table_size`),
// which run/targets/estimator.hpp refuses past a memory bound rather than exhaust the machine.
// Within a batch every estimate uses the table as it was before the batch (a repeated example counts
// twice with its old entry); the update then walks the batch in order, so a repeat changes nothing the
// second time.
//
// The table is the chain's state, not the potential's configuration: run/targets/estimator.hpp writes
// it (and A, so a resumed chain continues with the same bits) to the run record.
#include <algorithm>
#include <cstdint>
#include <utility>

#include <Eigen/Core>

#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::models {

template <DataModel M>
struct Saga {
  Minibatch<M> base;
  /// ψ_i (GeneralisedLinearModel: N × 1) or a_i (d × N, a column per example); empty until the first
  /// gradient fills it.
  mutable Eigen::MatrixXd table;
  mutable Eigen::VectorXd sum;  ///< A = Σ_i a_i
  /// Scratch, reused: the batch's fresh entries (n × 1 or d × n) and one example's gradient.
  mutable Eigen::MatrixXd fresh;
  mutable Eigen::VectorXd example;
  mutable Eigen::VectorXd batch_entries;  ///< the batch's table entries, then its fresh ψ (BatchGeneralisedLinearModel)

  static constexpr bool scalar_table = GeneralisedLinearModel<M>;

  explicit Saga(Minibatch<M> b) : base(std::move(b)) {
    require(base.sampling == Sampling::with_replacement,
            "saga: batches must be drawn with replacement (Sampling::with_replacement): without, a batch is not independent "
            "of the table and the gradient is biased (docs/config.md)");
  }

  std::size_t size() const { return base.size(); }
  bool filled() const { return table.size() > 0; }
  /// The numbers the table holds for a d-dimensional parameter: N (scalar table) or N·d.
  static std::uint64_t table_size(std::size_t N, Eigen::Index d) {
    return scalar_table ? N : static_cast<std::uint64_t>(N) * static_cast<std::uint64_t>(d);
  }

  /// Fills the table at θ: a_i = ∇u_i(θ) for every example, one full pass.
  void fill(const Eigen::VectorXd& x) const {
    const auto N = static_cast<Eigen::Index>(base.size());
    sum.setZero(x.size());
    if constexpr (RangeGeneralisedLinearModel<M>) {
      table.resize(N, 1);
      for (Eigen::Index b = 0; b < N; b += static_cast<Eigen::Index>(full_pass_block)) {
        auto block = table.col(0).segment(b, std::min(static_cast<Eigen::Index>(full_pass_block), N - b));
        base.model.range_coefficients(x, static_cast<std::size_t>(b), block);
        base.model.add_range_features(static_cast<std::size_t>(b), block, sum, 1.0);
      }
    } else if constexpr (scalar_table) {
      table.resize(N, 1);
      for (Eigen::Index i = 0; i < N; ++i) {
        table(i, 0) = base.model.example_coefficient(x, static_cast<std::size_t>(i));
        base.model.add_example_features(static_cast<std::size_t>(i), sum, table(i, 0));
      }
    } else {
      table.setZero(x.size(), N);
      for (Eigen::Index i = 0; i < N; ++i) {
        example.setZero(x.size());
        base.model.add_example_gradient(x, static_cast<std::size_t>(i), example, 1.0);
        table.col(i) = example;
        sum += example;
      }
    }
  }

  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& rng) const {
    if (!filled()) fill(x);
    const auto& idx = base.draw_batch(rng);
    const double scale = base.batch_scale();
    const auto n = static_cast<Eigen::Index>(idx.size());
    g = sum;
    base.model.add_prior_gradient(x, g);
    // The batch's fresh entries first, once each; the estimate uses the old table, then the update.
    if constexpr (BatchGeneralisedLinearModel<M>) {
      // One gathered pass: v = Σ_k (ψ_{i_k}(θ) − a_{i_k}) x_{i_k}, the entries handed back fresh.
      batch_entries.resize(n);
      for (Eigen::Index k = 0; k < n; ++k) batch_entries[k] = table(static_cast<Eigen::Index>(idx[static_cast<std::size_t>(k)]), 0);
      example.setZero(x.size());
      base.model.add_batch_gradient_relative(x, idx, batch_entries, example, 1.0);
      g.noalias() += scale * example;
      // A moved example by example, not by v: a repeated example moves it once.
      for (Eigen::Index k = 0; k < n; ++k) {
        const auto i = static_cast<Eigen::Index>(idx[static_cast<std::size_t>(k)]);
        base.model.add_example_features(static_cast<std::size_t>(i), sum, batch_entries[k] - table(i, 0));
        table(i, 0) = batch_entries[k];
      }
    } else if constexpr (scalar_table) {
      fresh.resize(n, 1);
      for (Eigen::Index k = 0; k < n; ++k) fresh(k, 0) = base.model.example_coefficient(x, idx[static_cast<std::size_t>(k)]);
      for (Eigen::Index k = 0; k < n; ++k) {
        const std::size_t i = idx[static_cast<std::size_t>(k)];
        base.model.add_example_features(i, g, scale * (fresh(k, 0) - table(static_cast<Eigen::Index>(i), 0)));
      }
      for (Eigen::Index k = 0; k < n; ++k) {
        const std::size_t i = idx[static_cast<std::size_t>(k)];
        base.model.add_example_features(i, sum, fresh(k, 0) - table(static_cast<Eigen::Index>(i), 0));
        table(static_cast<Eigen::Index>(i), 0) = fresh(k, 0);
      }
    } else {
      fresh.resize(x.size(), n);
      for (Eigen::Index k = 0; k < n; ++k) {
        example.setZero(x.size());
        base.model.add_example_gradient(x, idx[static_cast<std::size_t>(k)], example, 1.0);
        fresh.col(k) = example;
      }
      for (Eigen::Index k = 0; k < n; ++k)
        g.noalias() += scale * (fresh.col(k) - table.col(static_cast<Eigen::Index>(idx[static_cast<std::size_t>(k)])));
      for (Eigen::Index k = 0; k < n; ++k) {
        const auto i = static_cast<Eigen::Index>(idx[static_cast<std::size_t>(k)]);
        sum += fresh.col(k) - table.col(i);
        table.col(i) = fresh.col(k);
      }
    }
  }

  double value(const Eigen::VectorXd& x) const
    requires requires { base.value(x); }
  {
    return base.value(x);
  }
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const { base.exact_gradient(x, g); }
};

}  // namespace sgmcmc::models
