#pragma once
// Standard normal draws from Philox blocks by the Box–Muller transform (Box & Muller 1958).
//
// Pair p of a stream is computed from one Philox4x32-10 block: u1 = 53 bits of words 0–1 in (0, 1],
// u2 = 53 bits of words 2–3 in [0, 1); (z0, z1) = sqrt(-2 log u1) (cos 2πu2, sin 2πu2). Every pair is
// a pure function of (seed, stream, kind, p), so a block fill equals one-by-one draws.
#include <array>
#include <cmath>
#include <cstdint>

#include <Eigen/Core>
#include <Random123/philox.h>

namespace sgmcmc::random {

inline void box_muller(const std::array<std::uint32_t, 4>& w, double (&pair)[2]) {
  const std::uint64_t a = std::uint64_t{w[1]} << 32 | w[0];
  const std::uint64_t b = std::uint64_t{w[3]} << 32 | w[2];
  const double u1 = static_cast<double>((a >> 11) + 1) * 0x1.0p-53;  // (0, 1]: log is finite
  const double u2 = static_cast<double>(b >> 11) * 0x1.0p-53;        // [0, 1)
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double angle = 6.283185307179586476925286766559 * u2;
  pair[0] = r * std::cos(angle);
  pair[1] = r * std::sin(angle);
}

/// Writes normal pairs first_pair, first_pair+1, ... (2·pairs doubles) of stream (seed, stream, kind).
inline void fill_normal_pairs(std::uint64_t seed, std::uint32_t stream, std::uint32_t kind,
                              std::uint64_t first_pair, double* out, Eigen::Index pairs) {
  using G = r123::Philox4x32;
  const G::key_type k = {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
  for (Eigen::Index p = 0; p < pairs; ++p) {
    const std::uint64_t idx = first_pair + static_cast<std::uint64_t>(p);
    const G::ctr_type c = {{static_cast<std::uint32_t>(idx), static_cast<std::uint32_t>(idx >> 32), stream, kind}};
    const G::ctr_type r = G{}(c, k);
    double pair[2];
    box_muller({r[0], r[1], r[2], r[3]}, pair);
    out[2 * p] = pair[0];
    out[2 * p + 1] = pair[1];
  }
}

}  // namespace sgmcmc::random
