#pragma once
// MCMC convergence diagnostics as defined by Stan and Vehtari et al. (2021):
// bulk/tail ESS, rank-normalised split-R-hat, quantiles, MCSE, summaries.

#include <sgmcmc/modules/diagnostics/autocovariance.hpp>
#include <sgmcmc/modules/diagnostics/chains.hpp>
#include <sgmcmc/modules/diagnostics/ess.hpp>
#include <sgmcmc/modules/diagnostics/normal_quantile.hpp>
#include <sgmcmc/modules/diagnostics/quantile.hpp>
#include <sgmcmc/modules/diagnostics/rank_normalize.hpp>
#include <sgmcmc/modules/diagnostics/rhat.hpp>
#include <sgmcmc/modules/diagnostics/summary.hpp>
#include <sgmcmc/modules/diagnostics/warnings.hpp>
