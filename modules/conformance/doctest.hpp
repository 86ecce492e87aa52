#pragma once
// doctest front end of the manifold conformance kit (manifold_laws.hpp): one CHECK per law, with a
// message naming the manifold, the law and the first failing case.
// @code
//   #include <doctest/doctest.h>
//   #include <sgmcmc/modules/conformance/doctest.hpp>
//   TEST_CASE("my manifold obeys the manifold laws") {
//     sgmcmc::conformance::check_manifold_laws(MyManifold{4}, /*rng_seed=*/1);
//     sgmcmc::conformance::check_uniform_law(MyManifold{4}, /*rng_seed=*/2);  // compact M, uniform random_point
//   }
// @endcode
#include <cstdint>

#include <doctest/doctest.h>

#include <sgmcmc/modules/conformance/manifold_laws.hpp>

namespace sgmcmc::conformance {

/// One doctest CHECK per law of the report.
inline void check_report(const Report& report) {
  for (const auto& law : report.laws)
    CHECK_MESSAGE(law.passed, report.manifold << ": " << law.law << ": " << law.message);
}

/// Runs manifold_laws and CHECKs each law; returns the report for further inspection.
template <Manifold M>
Report check_manifold_laws(const M& manifold, std::uint64_t rng_seed, const LawOptions& options = {}) {
  Report report = manifold_laws(manifold, rng_seed, options);
  check_report(report);
  return report;
}

/// Runs the statistical uniform_law and CHECKs each of its laws; returns the report.
template <Manifold M>
Report check_uniform_law(const M& manifold, std::uint64_t rng_seed, const UniformLawOptions& options = {}) {
  Report report = uniform_law(manifold, rng_seed, options);
  check_report(report);
  return report;
}

}  // namespace sgmcmc::conformance
