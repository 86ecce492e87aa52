#pragma once
// A reproducible, counter-based random stream (Philox4x32-10 from Random123; Salmon et al. 2011).
//
// Every draw is a pure function of (seed, stream id, kind, index): the k-th normal of chain c under seed
// s is the same on any machine, compiler and thread count, and the stream's whole state is four
// integers, so a run record resumes bit-for-bit. Normals, uniforms and integer draws come from
// separate counter spaces (`Kind`), so interleaving them never shifts another kind's sequence.
// Normal draws are filled in blocks by `normals(out)`, vectorised and identical to drawing them one by
// one (see normal.hpp for the transform). `substream(seed, stream, index)` gives a stream of its own for
// the index-th occasion of a side computation (the run targets' Gibbs steps), keyed so that it needs no
// saved position.
#include <cstdint>
#include <limits>

#include <Eigen/Core>
#include <Random123/philox.h>

#include <sgmcmc/modules/random/normal.hpp>

namespace sgmcmc::random {

__extension__ using u128 = unsigned __int128;  // GCC/Clang 128-bit product for Lemire's method

enum class Kind : std::uint32_t { normal = 0, uniform = 1, bits = 2, batch = 3, substream = 4 };

/// The serializable state of a Stream: the key and how many draws of each kind were used.
struct StreamState {
  std::uint64_t seed = 0;
  std::uint32_t stream = 0;
  std::uint64_t normals_used = 0;
  std::uint64_t uniforms_used = 0;
  std::uint64_t bits_used = 0;
  std::uint64_t batches_used = 0;  ///< minibatches drawn (see models/minibatch.hpp)
  friend bool operator==(const StreamState&, const StreamState&) = default;
};

/// One Philox4x32-10 block: four 32-bit words for counter (index, stream, kind) under key seed.
inline std::array<std::uint32_t, 4> philox_block(std::uint64_t seed, std::uint32_t stream, Kind kind,
                                                 std::uint64_t index) {
  using G = r123::Philox4x32;
  G::ctr_type c = {{static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32), stream,
                    static_cast<std::uint32_t>(kind)}};
  G::key_type k = {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
  const G::ctr_type r = G{}(c, k);
  return {r[0], r[1], r[2], r[3]};
}

class Stream {
 public:
  Stream() = default;
  Stream(std::uint64_t seed, std::uint32_t stream) { state_.seed = seed; state_.stream = stream; }
  explicit Stream(const StreamState& s) : state_(s) {}

  const StreamState& state() const { return state_; }
  std::uint64_t seed() const { return state_.seed; }
  std::uint32_t stream_id() const { return state_.stream; }

  /// One standard normal draw: the next in this stream's normal sequence.
  double normal() {
    const std::uint64_t j = state_.normals_used++;
    const std::uint64_t block = j >> 1;
    if (block != cached_block_) {
      const auto w = philox_block(state_.seed, state_.stream, Kind::normal, block);
      box_muller(w, cached_pair_);
      cached_block_ = block;
    }
    return cached_pair_[j & 1];
  }

  /// Fills `out` with the next out.size() normals; identical to calling normal() that many times.
  void normals(Eigen::Ref<Eigen::VectorXd> out) { normals(out.data(), out.size()); }
  void normals(double* out, Eigen::Index n) {
    if (n <= 0) return;
    Eigen::Index i = 0;
    // Finish a pair started by a scalar draw, then whole pairs in bulk, then a trailing half pair.
    if ((state_.normals_used & 1) != 0) out[i++] = normal();
    const Eigen::Index pairs = (n - i) / 2;
    if (pairs > 0) {
      fill_normal_pairs(state_.seed, state_.stream, static_cast<std::uint32_t>(Kind::normal),
                        state_.normals_used >> 1, out + i, pairs);
      state_.normals_used += 2 * static_cast<std::uint64_t>(pairs);
      i += 2 * pairs;
    }
    if (i < n) out[i] = normal();
  }

  /// A double uniform on (0, 1): 53 random bits, never 0 or 1.
  double uniform() {
    const std::uint64_t j = state_.uniforms_used++;
    const auto w = philox_block(state_.seed, state_.stream, Kind::uniform, j >> 1);
    const std::uint64_t b = (j & 1) == 0 ? (std::uint64_t{w[1]} << 32 | w[0]) : (std::uint64_t{w[3]} << 32 | w[2]);
    return (static_cast<double>(b >> 11) + 0.5) * 0x1.0p-53;
  }

  /// 64 random bits.
  std::uint64_t bits() {
    const std::uint64_t j = state_.bits_used++;
    const auto w = philox_block(state_.seed, state_.stream, Kind::bits, j >> 1);
    return (j & 1) == 0 ? (std::uint64_t{w[1]} << 32 | w[0]) : (std::uint64_t{w[3]} << 32 | w[2]);
  }

  /// The index of the next minibatch: a counter, so that batch b's examples can be a pure function of
  /// (seed, stream, b) — resumable, and independent of every other draw.
  std::uint64_t next_batch() { return state_.batches_used++; }

  /// An integer uniform on {0, ..., n-1} without modulo bias (Lemire 2019, rejection on the low word).
  std::uint64_t below(std::uint64_t n) {
    if (n <= 1) return 0;
    const std::uint64_t threshold = (0 - n) % n;  // 2^64 mod n
    for (;;) {
      const u128 m = static_cast<u128>(bits()) * n;
      if (static_cast<std::uint64_t>(m) >= threshold) return static_cast<std::uint64_t>(m >> 64);
    }
  }

 private:
  StreamState state_{};
  std::uint64_t cached_block_ = std::numeric_limits<std::uint64_t>::max();
  double cached_pair_[2] = {0.0, 0.0};
};

/// Stream `stream`'s index-th substream under `seed`: a fresh Stream (all counters 0, stream id
/// `stream`) whose 64-bit seed is the Philox block of (index, stream, Kind::substream) under `seed`. It
/// is a pure function of (seed, stream, index), so a side computation that draws an unknown number of
/// variates on its index-th occasion (a Gibbs step's gamma rejections) stays reproducible without
/// saving any position, and the parent stream's counters never move. Its draws are under another
/// Philox key than any stream of `seed`'s (unless two 64-bit keys collide).
inline Stream substream(std::uint64_t seed, std::uint32_t stream, std::uint64_t index) {
  const auto w = philox_block(seed, stream, Kind::substream, index);
  return Stream(std::uint64_t{w[1]} << 32 | w[0], stream);
}

}  // namespace sgmcmc::random
