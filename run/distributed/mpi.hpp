#pragma once
// The run layer's Transport (run/distributed/transport.hpp) on MPI (Open MPI; builds with
// -DSGMCMC_MPI=ON link sgmcmc::mpi). MPI_THREAD_FUNNELED: every MPI call comes from the main thread —
// between rounds, and inside the gradients of a sharded target, whose chains a rank then steps on its
// main thread alone (the runner's pool has one worker: run/runner.hpp).
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/run/distributed/transport.hpp>

namespace sgmcmc::run::distributed {

namespace detail {
inline void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int n = 0;
  MPI_Error_string(code, text, &n);
  throw Error(fmt::format("MPI: {} failed: {}", what, std::string_view(text, static_cast<std::size_t>(n))));
}
}  // namespace detail

/// Whether this process was started by mpirun (Open MPI's, or a PMI/PMIx launcher's environment).
inline bool launched_by_mpirun() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(name)) return true;
  return false;
}

/// MPI_Init_thread / MPI_Finalize for a program's lifetime (a plain `sgmcmc` without mpirun is a
/// singleton: one rank).
class Session {
 public:
  Session(int& argc, char**& argv) {
    int provided = 0;
    detail::check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    if (provided < MPI_THREAD_FUNNELED) throw Error("MPI: the library does not provide MPI_THREAD_FUNNELED");
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() { MPI_Finalize(); }
};

class MpiTransport final : public Transport {
 public:
  explicit MpiTransport(MPI_Comm world = MPI_COMM_WORLD) : world_(world) {
    MPI_Comm_rank(world_, &rank_);
    MPI_Comm_size(world_, &size_);
  }
  ~MpiTransport() override {
    if (group_ != MPI_COMM_NULL) MPI_Comm_free(&group_);
  }
  MpiTransport(const MpiTransport&) = delete;
  MpiTransport& operator=(const MpiTransport&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::vector<std::string> gather(std::string_view mine) override {
    const int n = static_cast<int>(mine.size());
    if (mine.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) throw Error("MPI: a round's message exceeds 2 GiB");
    std::vector<int> counts(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
    detail::check(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, world_), "MPI_Gather");
    std::vector<int> offsets(counts.size());
    std::size_t total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      offsets[r] = static_cast<int>(total);
      total += static_cast<std::size_t>(counts[r]);
    }
    std::string all(total, '\0');
    detail::check(MPI_Gatherv(mine.data(), n, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, 0, world_), "MPI_Gatherv");
    std::vector<std::string> out;
    for (std::size_t r = 0; r < counts.size(); ++r) out.push_back(all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(counts[r])));
    return out;
  }

  std::string broadcast(std::string_view from_root) override {
    std::uint64_t n = from_root.size();
    detail::check(MPI_Bcast(&n, 1, MPI_UINT64_T, 0, world_), "MPI_Bcast");
    std::string bytes = rank_ == 0 ? std::string(from_root) : std::string(n, '\0');
    detail::check(MPI_Bcast(bytes.data(), static_cast<int>(n), MPI_BYTE, 0, world_), "MPI_Bcast");
    return bytes;
  }

  std::optional<std::string> first_error(const std::optional<std::string>& mine) override { return first_error_on(world_, mine); }

  Shard shard(int shards) override {
    if (group_ != MPI_COMM_NULL) MPI_Comm_free(&group_);
    detail::check(MPI_Comm_split(world_, rank_ / shards, rank_ % shards, &group_), "MPI_Comm_split");
    MPI_Comm_size(group_, &group_size_);
    Shard s;
    s.index = rank_ % shards;
    s.count = shards;
    if (shards > 1) {
      s.sum.context = this;
      s.sum.add = [](void* self, std::span<double> v) { static_cast<MpiTransport*>(self)->group_sum(v); };
      s.context = this;
      s.agree = [](void* self, const std::optional<std::string>& mine) {
        auto* t = static_cast<MpiTransport*>(self);
        return t->first_error_on(t->group_, mine);
      };
    }
    return s;
  }

  /// Σ_r part_r in rank order on every rank of the group: the parts are gathered whole (an allgather,
  /// not MPI_Allreduce, whose summation order the standard leaves to the implementation) and added up
  /// locally, the same additions on every rank.
  void group_sum(std::span<double> v) {
    const std::size_t n = v.size();
    parts_.resize(n * static_cast<std::size_t>(group_size_));
    detail::check(MPI_Allgather(v.data(), static_cast<int>(n), MPI_DOUBLE, parts_.data(), static_cast<int>(n), MPI_DOUBLE, group_),
                  "MPI_Allgather (a sharded gradient)");
    for (std::size_t k = 0; k < n; ++k) {
      double s = parts_[k];
      for (int r = 1; r < group_size_; ++r) s += parts_[static_cast<std::size_t>(r) * n + k];
      v[k] = s;
    }
  }

  MPI_Comm group() const { return group_; }

  [[noreturn]] void abort(int code) override {
    MPI_Abort(world_, code);
    std::abort();
  }

  /// How many ranks share this machine's memory (MPI_COMM_TYPE_SHARED): the runner divides the
  /// cores among them.
  int ranks_on_this_machine() const override {
    MPI_Comm local;
    if (MPI_Comm_split_type(world_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local) != MPI_SUCCESS) return 1;
    int n = 1;
    MPI_Comm_size(local, &n);
    MPI_Comm_free(&local);
    return n;
  }

 private:
  // The lowest failing rank of `comm` and its message, on every rank of it (world ranks in the text).
  std::optional<std::string> first_error_on(MPI_Comm comm, const std::optional<std::string>& mine) const {
    int size = 1;
    MPI_Comm_size(comm, &size);
    int me = 0;
    MPI_Comm_rank(comm, &me);
    const int failed = mine ? me : size;
    int first = size;
    detail::check(MPI_Allreduce(&failed, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
    if (first == size) return std::nullopt;
    // A message that names its rank already (a shard's, agreed in its group first) keeps its name.
    std::string text = me != first ? std::string() : mine->starts_with("rank ") ? *mine : fmt::format("rank {}: {}", rank_, *mine);
    std::uint64_t n = text.size();
    detail::check(MPI_Bcast(&n, 1, MPI_UINT64_T, first, comm), "MPI_Bcast");
    text.resize(n);
    detail::check(MPI_Bcast(text.data(), static_cast<int>(n), MPI_BYTE, first, comm), "MPI_Bcast");
    return size_ > 1 ? text : *mine;
  }

  MPI_Comm world_;
  MPI_Comm group_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, group_size_ = 1;
  std::vector<double> parts_;  ///< scratch for group_sum: no allocation after the first gradient
};

}  // namespace sgmcmc::run::distributed
