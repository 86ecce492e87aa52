#pragma once
// The runner's rounds over ranks (docs/distributed.md). The runner advances its chains in rounds of
// steps whose lengths every rank computes alike from where each chain stands; between rounds, the
// leader of each chain group sends rank 0 its chains' new draws, status and step counts (one gather),
// and rank 0 tells every rank where each chain stands and whether to stop (one broadcast). Rank 0 then
// hands the draws to the writers in chain order, as a single process does, so the outputs are the same
// file whatever the number of ranks. Only the main thread calls here (MPI_THREAD_FUNNELED).
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/run/any_chain.hpp>
#include <sgmcmc/run/distributed/layout.hpp>
#include <sgmcmc/run/distributed/transport.hpp>

namespace sgmcmc::run::distributed {

namespace detail {

// Bytes in and out: the ranks run the same binary, so values travel in their in-memory form.
class Packer {
 public:
  template <class T>
    requires std::is_trivially_copyable_v<T>
  void put(std::span<const T> v) {
    put(static_cast<std::uint64_t>(v.size()));
    bytes_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  void put(std::uint64_t v) { bytes_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void put(std::string_view s) { put(std::span<const char>(s.data(), s.size())); }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

class Unpacker {
 public:
  explicit Unpacker(std::string_view bytes) : bytes_(bytes) {}
  bool done() const { return at_ == bytes_.size(); }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    take(&v, sizeof v);
    return v;
  }
  template <class T>
  void get(std::vector<T>& out) {
    out.resize(static_cast<std::size_t>(u64()));
    take(out.data(), out.size() * sizeof(T));
  }
  std::string text() {
    std::vector<char> c;
    get(c);
    return {c.begin(), c.end()};
  }

 private:
  void take(void* out, std::size_t n) {
    if (n > bytes_.size() - at_) throw Error("distributed: a message between ranks ended early");
    if (n) std::memcpy(out, bytes_.data() + at_, n);
    at_ += n;
  }
  std::string_view bytes_;
  std::size_t at_ = 0;
};

}  // namespace detail

class Rounds {
 public:
  Rounds(Transport& transport, Layout layout) : transport_(transport), layout_(layout) {}
  const Layout& layout() const { return layout_; }
  bool root() const { return layout_.rank == 0; }

  /// After a round: rank 0 receives the draws, errors and step counts of the chains it does not step
  /// (into draws, status, at); every rank learns every chain's step count and whether it is still
  /// running. Draws this rank does not report are dropped here. Returns whether any rank was asked to
  /// stop (a signal reaches each rank on its own).
  bool exchange(const std::vector<std::unique_ptr<AnyChain>>& chains, std::vector<Draws>& draws, std::vector<ChainStatus>& status,
                std::vector<std::uint64_t>& at, bool stop) {
    static_assert(std::is_trivially_copyable_v<StepInfo>);
    const std::size_t n = chains.size();
    detail::Packer out;
    out.put(std::uint64_t{stop});
    for (std::size_t i = 0; i < n; ++i) {
      if (!layout_.reports(i)) {
        if (!root() || layout_.steps(i)) draws[i].clear();  // a non-leading shard's copy of the draws
        continue;
      }
      if (root()) continue;  // rank 0's own chains are in place
      out.put(std::uint64_t{i});
      out.put(chains[i]->steps_done());
      out.put(std::string_view(status[i].error));
      out.put(std::span<const double>(draws[i].values));
      out.put(std::span<const StepInfo>(draws[i].stats));
      out.put(std::span<const double>(draws[i].lp));
      draws[i].clear();
    }
    const std::vector<std::string> all = transport_.gather(out.bytes());
    detail::Packer state;
    if (root()) {
      bool any_stop = false;
      for (const std::string& bytes : all) {
        detail::Unpacker in(bytes);
        any_stop = in.u64() != 0 || any_stop;
        while (!in.done()) {
          const std::uint64_t i = in.u64();
          if (i >= n) throw Error("distributed: a rank reported a chain that does not exist");
          at[i] = in.u64();
          status[i].error = in.text();
          in.get(draws[i].values);
          in.get(draws[i].stats);
          in.get(draws[i].lp);
        }
      }
      state.put(std::uint64_t{any_stop});
      for (std::size_t i = 0; i < n; ++i) {
        if (layout_.steps(i)) at[i] = chains[i]->steps_done();
        state.put(at[i]);
        state.put(std::uint64_t{status[i].ok()});
      }
    }
    const std::string shared = transport_.broadcast(state.bytes());
    detail::Unpacker in_state(shared);
    const bool any_stop = in_state.u64() != 0;
    for (std::size_t i = 0; i < n; ++i) {
      at[i] = in_state.u64();
      const bool ok = in_state.u64() != 0;
      if (!ok && status[i].ok()) status[i].error = "stopped on another rank";
    }
    return any_stop;
  }

  /// Each chain's {diagnostics, state} on rank 0 (an empty list elsewhere), from the rank that reports it.
  template <class Summary>
  std::vector<json> summaries(const std::vector<std::unique_ptr<AnyChain>>& chains, Summary summary) {
    detail::Packer out;
    for (std::size_t i = 0; i < chains.size(); ++i)
      if (layout_.reports(i) && !root()) {
        out.put(std::uint64_t{i});
        out.put(std::string_view(summary(*chains[i]).dump()));
      }
    const std::vector<std::string> all = transport_.gather(out.bytes());
    std::vector<json> result;
    if (!root()) return result;
    result.resize(chains.size());
    for (std::size_t i = 0; i < chains.size(); ++i)
      if (layout_.steps(i)) result[i] = summary(*chains[i]);
    for (const std::string& bytes : all) {
      detail::Unpacker in(bytes);
      while (!in.done()) {
        const std::uint64_t i = in.u64();
        if (i >= chains.size()) throw Error("distributed: a rank reported a chain that does not exist");
        result[i] = json::parse(in.text());
      }
    }
    return result;
  }

  /// Rank 0's json on every rank (the finished record: every rank ends the run with the same status).
  json share(const json& j) {
    const std::string bytes = transport_.broadcast(root() ? j.dump() : std::string());
    return json::parse(bytes);
  }

 private:
  Transport& transport_;
  Layout layout_;
};

}  // namespace sgmcmc::run::distributed
