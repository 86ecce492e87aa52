// The reproducibility tiers (modules/simd/reproducibility.hpp; README "Reproducibility"): Eigen's
// dense products block by fixed cache sizes in every build, and a portable build's products give the
// bits recorded here on every x86-64 machine. scripts/test.sh runs this in both tiers: the optimised
// build is the default (native) one, the sanitizer build is portable.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include <Eigen/Core>

#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/modules/simd/reproducibility.hpp>

using namespace sgmcmc;

namespace {

std::uint64_t fnv1a(const Eigen::MatrixXd& m) {
  std::uint64_t h = 14695981039346656037ull;
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    std::uint64_t b;
    std::memcpy(&b, m.data() + i, sizeof b);
    for (int k = 0; k < 8; ++k) h = (h ^ ((b >> (8 * k)) & 0xff)) * 1099511628211ull;
  }
  return h;
}

// C = A B with an inner dimension of 700: long enough that Eigen's GEMM cuts it into blocks whose
// length follows the L1 size it assumes (computeProductBlockingSizes), so the summation order does.
Eigen::MatrixXd blocked_product() {
  random::Stream rng(5, 0);
  Eigen::MatrixXd a(64, 700), b(700, 48);
  for (Eigen::Index i = 0; i < a.size(); ++i) a.data()[i] = rng.normal();
  for (Eigen::Index i = 0; i < b.size(); ++i) b.data()[i] = rng.normal();
  Eigen::MatrixXd c;
  c.noalias() = a * b;
  return c;
}

// Sets other cache sizes for a scope, then the fixed ones again.
struct OtherCacheSizes {
  OtherCacheSizes() { Eigen::setCpuCacheSizes(16 * 1024, simd::fixed_l2, simd::fixed_l3); }
  ~OtherCacheSizes() { simd::fix_dense_blocking(); }
};

}  // namespace

TEST_CASE("every build blocks Eigen's products by the fixed cache sizes, not the ones it detects") {
  // Catches: a program in which the fixed sizes were never set (the initialiser dropped, or run after
  // a product): Eigen would block by this machine's caches (its detected L3 here is 256 MiB).
  CHECK(simd::dense_blocking_fixed);
  CHECK(Eigen::l1CacheSize() == simd::fixed_l1);
  CHECK(Eigen::l2CacheSize() == simd::fixed_l2);
  CHECK(Eigen::l3CacheSize() == simd::fixed_l3);
}

TEST_CASE("the blocked product's bits depend on the cache sizes Eigen assumes (what the fixed sizes prevent)") {
  // Shows the next test can fail: two machines whose L1 differ (32 KiB against 16 KiB) would sum the
  // inner dimension in different blocks and disagree in the last bits.
  const std::uint64_t fixed = fnv1a(blocked_product());
  std::uint64_t other;
  {
    OtherCacheSizes guard;
    other = fnv1a(blocked_product());
  }
  CHECK(other != fixed);
  CHECK(fnv1a(blocked_product()) == fixed);  // the fixed sizes are back
}

TEST_CASE("a portable build gives the recorded bits on every x86-64 machine") {
  // The value was computed by portable builds with GCC 12 (-O2, -O3) and Clang 14 (-O1), Eigen 3.4.0;
  // a native build uses wider vectors and FMA and gets other bits (measured: AVX2+FMA adca76fe21f2f424).
  // Catches, in the portable tier: blocking that follows the detected caches, an instruction set or
  // FMA that leaked into the build's flags, a compiler that reassociates the sums.
  if constexpr (!simd::portable_build) {
    MESSAGE("native build (", std::string(simd::compiled_isa), "): bits are this instruction set's; the portable check runs in the portable build");
    CHECK(std::string(simd::compiled_isa) != "");
    return;
  }
  CHECK(std::string(simd::compiled_isa) == "sse2");
  CHECK(fnv1a(blocked_product()) == 0xadc87c30874dbf7eull);
}
