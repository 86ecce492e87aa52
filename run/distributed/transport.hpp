#pragma once
// What the run layer needs from a set of processes (docs/distributed.md): its rank and size, bytes
// gathered to rank 0 and broadcast from it, agreement on an error, and the in-order sum over a chain
// group that data-parallel gradients reduce with. An interface, not MPI: the library without MPI is
// unchanged (Options::transport is null: one process), and run/distributed/mpi.hpp implements it on
// Open MPI for builds with -DSGMCMC_MPI=ON. Called between rounds of steps and, for sharded targets,
// once per gradient from the thread that advances the chain: never from two threads at once.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::run::distributed {

/// An error every rank of a run has thrown alike, after agreeing on it (Transport::first_error): the
/// program reports it once (rank 0) and every rank exits normally. Any other error on one rank of a
/// multi-rank run stops the run on every rank (Transport::abort).
struct AgreedError : Error {
  using Error::Error;
};

/// The in-order sum of a vector over the ranks of a chain group: each rank passes its shard's part and
/// every rank gets Σ_r part_r added up in rank order, so every rank of the group holds the same bits
/// and the result depends on the decomposition alone, never on timing. Empty: one shard, nothing to
/// add (a plain process).
struct GroupSum {
  void* context = nullptr;
  void (*add)(void* context, std::span<double> values) = nullptr;

  explicit operator bool() const { return add != nullptr; }
  void operator()(Eigen::Ref<Eigen::VectorXd> v) const {
    if (add) add(context, std::span<double>(v.data(), static_cast<std::size_t>(v.size())));
  }
  double operator()(double v) const {
    if (add) add(context, std::span<double>(&v, 1));
    return v;
  }
};

/// This process's part of a data set split over the `count` ranks of its chain group.
struct Shard {
  int index = 0;  ///< 0 .. count − 1: this rank's place in its group
  int count = 1;
  GroupSum sum;   ///< the group's reduction (empty when count is 1)
  void* context = nullptr;
  std::optional<std::string> (*agree)(void* context, const std::optional<std::string>& mine) = nullptr;

  bool sharded() const { return count > 1; }
  /// Over the group, as Transport::first_error: a shard that fails to load its rows fails every rank
  /// of its group, with its message, instead of leaving them waiting in the first reduction.
  std::optional<std::string> first_error(const std::optional<std::string>& mine) const { return agree ? agree(context, mine) : mine; }
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Every rank's bytes, in rank order, on rank 0 (an empty list elsewhere). Collective.
  virtual std::vector<std::string> gather(std::string_view mine) = 0;
  /// Rank 0's bytes on every rank. Collective.
  virtual std::string broadcast(std::string_view from_root) = 0;
  /// The lowest rank's error message with its rank, when any rank has one. Collective: after it every
  /// rank knows whether to go on, so an error on one rank (its shard of a data file) cannot leave the
  /// others waiting.
  virtual std::optional<std::string> first_error(const std::optional<std::string>& mine) = 0;
  /// Splits the processes into groups of `shards` consecutive ranks and returns this rank's shard of
  /// its group. Collective; called once per run.
  virtual Shard shard(int shards) = 0;
  /// How many ranks share this machine's cores (the default thread count divides them).
  virtual int ranks_on_this_machine() const = 0;
  /// Ends every rank of the run at once with exit code `code` (an error on this rank alone, which the
  /// others would otherwise wait for).
  [[noreturn]] virtual void abort(int code) = 0;
};

}  // namespace sgmcmc::run::distributed
