#pragma once
// The SGLD run on N(0, I₂) whose bias is known in closed form (stationary variance 1/(1 − h/2) per
// coordinate), shared by the SG-diagnostics tests (test_cli_sg_diagnostics*.cpp).
#include <cstdint>

#include "../support/cli.hpp"

namespace sgmcmc_test::cli {

/// SGLD on N(0, I₂) at step h, thinned so that 2000 draws per chain are nearly independent.
inline json sgld_gaussian_config(double h, std::uint64_t thin) {
  return {{"sampler", {{"name", "sgld"}, {"step_size", h}}},
          {"manifold", {{"name", "euclidean"}, {"dim", 2}}},
          {"target", {{"name", "gaussian"}, {"mean", {0, 0}}, {"cov", 1}}},
          {"steps", 1000 + 2000 * thin}, {"burn_in", 1000}, {"thin", thin}, {"chains", 4}, {"seed", 17}};
}

}  // namespace sgmcmc_test::cli
