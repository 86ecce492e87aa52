#pragma once
// A keyed pseudo-random permutation of {0, ..., n-1} with O(1) memory: a 4-round Feistel network on
// the smallest even-bit power-of-two domain ≥ n, with cycle-walking back into range (Black & Rogaway
// 2002). Round keys come from Philox, so permutation (seed, stream, epoch) is the same everywhere.
// Minibatches without replacement walk the permutation of their epoch, so no index array is built
// or stored and a resumed run continues the same epoch.
#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>

#include <sgmcmc/modules/random/stream.hpp>

namespace sgmcmc::random {

class Permutation {
 public:
  Permutation(std::uint64_t n, std::uint64_t seed, std::uint32_t stream, std::uint64_t epoch) : n_(n) {
    half_bits_ = 1;
    while ((std::uint64_t{1} << (2 * half_bits_)) < n) ++half_bits_;
    mask_ = (std::uint64_t{1} << half_bits_) - 1;
    // Round keys from the batch counter space at an index far above any batch number.
    const auto w = philox_block(seed, stream, Kind::batch, (std::uint64_t{1} << 63) | epoch);
    keys_[0] = w[0], keys_[1] = w[1], keys_[2] = w[2], keys_[3] = w[3];
  }
  std::uint64_t size() const { return n_; }
  /// The image of i (0 <= i < n).
  std::uint64_t operator()(std::uint64_t i) const {
    std::uint64_t x = i;
    do x = encrypt(x);
    while (x >= n_);  // cycle-walking: the domain is < 4n, so < 4 iterations on average
    return x;
  }
  /// Replaces each x of `xs` (each < n) by its image: the values operator() gives, computed for the
  /// whole span together. One index's cycle-walk is a chain of dependent encryptions ended by an
  /// unpredictable branch; the walks of different indices are independent, so here each round encrypts
  /// every index still outside the range in one straight loop (vectorised, no branch per encryption)
  /// and then sets the finished ones aside. A minibatch's indices cost 2.4-3.3x less this way
  /// (docs/benchmarks.md, "Minibatch indices").
  template <std::unsigned_integral T>
  void apply(std::span<T> xs) const {
    constexpr std::size_t chunk = 128;
    std::uint64_t walk[chunk];  // the values still walking ...
    std::uint32_t slot[chunk];  // ... and where each belongs in xs
    for (std::size_t first = 0; first < xs.size(); first += chunk) {
      std::size_t m = std::min(chunk, xs.size() - first);
      for (std::size_t k = 0; k < m; ++k) walk[k] = xs[first + k], slot[k] = static_cast<std::uint32_t>(first + k);
      while (m > 0) {
        for (std::size_t k = 0; k < m; ++k) walk[k] = encrypt(walk[k]);
        std::size_t left = 0;
        for (std::size_t k = 0; k < m; ++k) {
          if (walk[k] < n_) {
            xs[slot[k]] = static_cast<T>(walk[k]);
          } else {
            walk[left] = walk[k], slot[left] = slot[k];
            ++left;
          }
        }
        m = left;
      }
    }
  }

 private:
  static std::uint64_t mix(std::uint64_t z) {  // splitmix64 finaliser
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t encrypt(std::uint64_t x) const {
    std::uint64_t l = x >> half_bits_, r = x & mask_;
    for (int round = 0; round < 4; ++round) {
      const std::uint64_t f = mix(r ^ (std::uint64_t{keys_[round]} << 32) ^ static_cast<std::uint64_t>(round)) & mask_;
      const std::uint64_t t = l ^ f;
      l = r;
      r = t;
    }
    return (l << half_bits_) | r;
  }
  std::uint64_t n_;
  int half_bits_;
  std::uint64_t mask_;
  std::uint32_t keys_[4];
};

}  // namespace sgmcmc::random
