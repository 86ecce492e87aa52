#pragma once
// The library's targets, registered in the order `unknown target ... (known: ...)` and --help list
// them. A target of one's own is its own entry (run/targets/*.hpp show the pattern), registered the
// same way in one's own executable.
#include <sgmcmc/run/registry.hpp>
#include <sgmcmc/run/targets/banana.hpp>
#include <sgmcmc/run/targets/bnn.hpp>
#include <sgmcmc/run/targets/bpmf.hpp>
#include <sgmcmc/run/targets/dirichlet.hpp>
#include <sgmcmc/run/targets/double_well.hpp>
#include <sgmcmc/run/targets/gaussian.hpp>
#include <sgmcmc/run/targets/glm.hpp>
#include <sgmcmc/run/targets/linear.hpp>
#include <sgmcmc/run/targets/logistic.hpp>
#include <sgmcmc/run/targets/matrix_vmf.hpp>
#include <sgmcmc/run/targets/poisson.hpp>
#include <sgmcmc/run/targets/uniform.hpp>
#include <sgmcmc/run/targets/vmf.hpp>
#include <sgmcmc/run/targets/vmf_mixture_posterior.hpp>

namespace sgmcmc::run {

inline void add_builtin_targets(Registry& r) {
  r.add(gaussian_target());
  r.add(double_well_target());
  r.add(banana_target());
  r.add(linear_target());
  r.add(vmf_target());
  r.add(vmf_mixture_target());
  r.add(dirichlet_target());
  r.add(uniform_target());
  r.add(matrix_vmf_target());
  r.add(vmf_mixture_posterior_target());
  r.add(logistic_target());
  r.add(bnn_target());
  r.add(bpmf_target());
  r.add(poisson_target());
  r.add(glm_target());
}

}  // namespace sgmcmc::run
