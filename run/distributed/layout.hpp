#pragma once
// Which process runs which chain (docs/distributed.md): R ranks in groups of S consecutive ranks
// (`distributed.shards`); group g = rank / S holds shard rank % S of the data; chain i runs on group
// i mod (R / S), every rank of the group stepping it in lockstep, and the group's first rank (its
// leader) hands the chain's draws to rank 0, which writes them. A chain's draws depend on the seed and
// its index alone (its stream), so where it runs changes nothing in them.
#include <cstdint>

namespace sgmcmc::run::distributed {

struct Layout {
  int rank = 0, ranks = 1, shards = 1;

  int groups() const { return ranks / shards; }
  int group() const { return rank / shards; }
  int shard() const { return rank % shards; }
  bool leader() const { return shard() == 0; }
  int group_of(std::uint64_t chain) const { return static_cast<int>(chain % static_cast<std::uint64_t>(groups())); }
  /// Whether this rank steps chain i.
  bool steps(std::uint64_t chain) const { return group_of(chain) == group(); }
  /// Whether this rank reports chain i's draws and state to rank 0.
  bool reports(std::uint64_t chain) const { return steps(chain) && leader(); }
};

}  // namespace sgmcmc::run::distributed
