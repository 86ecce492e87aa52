// require() and fail() (modules/error.hpp): a passing check formats nothing, a failing one throws
// sgmcmc::Error with the formatted message. Catches: a require that formats its message before
// testing the condition (an SGLD step once spent most of its time doing so), a message lost or
// mangled on the way to the exception.
#include <doctest/doctest.h>

#include <string>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/recipe/checks.hpp>

namespace {
int formatted = 0;  // how many times a Counted was formatted
struct Counted {
  int value;
};
}  // namespace

template <>
struct fmt::formatter<Counted> : fmt::formatter<int> {
  auto format(const Counted& c, fmt::format_context& ctx) const {
    ++formatted;
    return fmt::formatter<int>::format(c.value, ctx);
  }
};

TEST_CASE("require formats its message only when the check fails") {
  formatted = 0;
  for (int i = 0; i < 100; ++i) sgmcmc::require(i >= 0, "index {} is negative", Counted{i});
  CHECK(formatted == 0);
  try {
    sgmcmc::require(false, "index {} of {} is negative", Counted{-3}, 7);
    FAIL("require(false, ...) did not throw");
  } catch (const sgmcmc::Error& e) {
    CHECK(std::string(e.what()) == "index -3 of 7 is negative");
  }
  CHECK(formatted == 1);
}

TEST_CASE("require with a plain message and fail") {
  CHECK_NOTHROW(sgmcmc::require(true, "never seen"));
  CHECK_THROWS_WITH_AS(sgmcmc::require(false, "a {} plain message"), "a {} plain message", sgmcmc::Error);
  CHECK_THROWS_WITH_AS(sgmcmc::fail("{}: {}", "field", 2.5), "field: 2.5", sgmcmc::Error);
}

TEST_CASE("a point in a recipe check's message is printed only when the check fails") {
  const Eigen::VectorXd z = Eigen::Vector2d(0.5, -1.25);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen;
  const Eigen::MatrixXd psd = Eigen::Matrix2d{{2, 0.5}, {0.5, 1}};
  CHECK_NOTHROW(sgmcmc::recipe::check_psd(psd, z, 1e-12, "D", eigen));
  const Eigen::MatrixXd indefinite = Eigen::Matrix2d{{1, 0}, {0, -1}};
  CHECK_THROWS_WITH_AS(sgmcmc::recipe::check_psd(indefinite, z, 1e-12, "D", eigen),
                       doctest::Contains("D: not positive semidefinite at z = (0.5, -1.25)"), sgmcmc::Error);
}
