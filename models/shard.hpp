#pragma once
// A data model that holds one contiguous part of a data set — rows [first, first + local.size()) of
// `total` — and answers for the whole (docs/distributed.md): examples outside its rows add nothing, and
// the prior is added by one shard of the group only, so the parts that the ranks of a chain group add
// up (run/distributed/transport.hpp's GroupSum) are exactly the full minibatch, full-data or control-
// variate sums. Every estimator built on models::Minibatch is a sum of these terms, so each works on a
// shard unchanged; the batch indices are the global ones every rank draws from the chain's stream.
#include <cstddef>
#include <vector>

#include <Eigen/Core>

#include <sgmcmc/models/minibatch.hpp>

namespace sgmcmc::models {

template <DataModel M>
struct Shard {
  M local;                 ///< the shard's rows, indexed from 0
  std::size_t first = 0;   ///< the global index of local row 0
  std::size_t total = 0;   ///< the whole data set's size
  bool has_prior = true;   ///< whether this shard adds the prior's terms (one shard of a group does)
  /// Scratch for add_batch_gradient: the batch's local rows. Derived, as models::Minibatch's scratch.
  mutable std::vector<std::size_t> rows{};

  std::size_t size() const { return total; }
  bool owns(std::size_t i) const { return i >= first && i - first < local.size(); }

  void add_prior_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
    if (has_prior) local.add_prior_gradient(x, g);
  }
  void add_example_gradient(const Eigen::VectorXd& x, std::size_t i, Eigen::VectorXd& g, double scale) const {
    if (owns(i)) local.add_example_gradient(x, i - first, g, scale);
  }
  void add_batch_gradient(const Eigen::VectorXd& x, const std::vector<std::size_t>& idx, Eigen::VectorXd& g, double scale) const
    requires BatchDataModel<M>
  {
    rows.clear();
    for (std::size_t i : idx)
      if (owns(i)) rows.push_back(i - first);
    if (!rows.empty()) local.add_batch_gradient(x, rows, g, scale);
  }
  double prior_value(const Eigen::VectorXd& x) const
    requires requires(const M m) { m.prior_value(x); }
  {
    return has_prior ? local.prior_value(x) : 0.0;
  }
  double example_value(const Eigen::VectorXd& x, std::size_t i) const
    requires requires(const M m) { m.example_value(x, i); }
  {
    return owns(i) ? local.example_value(x, i - first) : 0.0;
  }
  /// The whole model's scales: a shard's model is built with the whole data set's constants (the glm
  /// target's column means).
  Eigen::VectorXd reported(const Eigen::VectorXd& x) const
    requires ReparametrisedModel<M>
  {
    return local.reported(x);
  }
  Eigen::VectorXd sampled(const Eigen::VectorXd& y) const
    requires ReparametrisedModel<M>
  {
    return local.sampled(y);
  }
  /// The model's start: a shard's part is built with the whole model's start (models::glm::rows_of
  /// keeps it), so every rank of a group starts at the same point.
  Eigen::VectorXd start() const
    requires ModelWithStart<M>
  {
    return local.start();
  }
  /// A model's own full-data passes over its rows (FullDataModel): this shard's part of the sums.
  void add_likelihood_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const
    requires FullDataModel<M>
  {
    local.add_likelihood_gradient(x, g);
  }
  double likelihood_value(const Eigen::VectorXd& x) const
    requires FullDataModel<M>
  {
    return local.likelihood_value(x);
  }
  /// A generalised linear model's ψ_i: 0 for a row of another shard, whose features add nothing here.
  double example_coefficient(const Eigen::VectorXd& x, std::size_t i) const
    requires GeneralisedLinearModel<M>
  {
    return owns(i) ? local.example_coefficient(x, i - first) : 0.0;
  }
  void add_example_features(std::size_t i, Eigen::VectorXd& g, double scale) const
    requires GeneralisedLinearModel<M>
  {
    if (owns(i)) local.add_example_features(i - first, g, scale);
  }
};

}  // namespace sgmcmc::models
