# Monte Carlo standard errors of a posterior mean and sd from several chains, shared by
# scripts/glm_reference.R and scripts/glm_compare.R. sims: iterations × chains.
#   mean: sd / sqrt(ESS(x)), ESS by Stan's multi-chain estimator on split chains (rstan's ess_rfun);
#   sd:   the delta method on the variance, se(sd) = se(var) / (2 sd), se(var) = sd(z) / sqrt(ESS(z)),
#         z = (x − mean)².
# Not rstan::monitor's MCSE_SD (rstan 2.21): that one takes min(ESS(x), ESS(x²)) with x² uncentred,
# and for a parameter whose mean is far from its sd under an antithetic sampler (NUTS, fixed-length
# HMC: ESS(x) above the number of draws) x² moves with x and its ESS is as large, so the sd's error
# comes out too small — 1.55 times for NUTS on the probit model, 2.2 times for fixed-length HMC: two
# 4 × 10,000-draw NUTS runs of that model differed by 2.0 to 3.0 of its MCSE_SDs on three of six
# parameters (docs/benchmarks.md, "GLM against Stan").
glm_mcse <- function(sims) {
  sims <- as.matrix(sims)
  split <- rstan:::split_chains(sims)
  m <- mean(sims); s <- sd(as.vector(sims))
  z <- (sims - m)^2
  ess_mean <- rstan:::ess_rfun(split)
  ess_var <- rstan:::ess_rfun(rstan:::split_chains(z))
  c(mean = m, mcse_mean = s / sqrt(ess_mean), sd = s, mcse_sd = sd(as.vector(z)) / sqrt(ess_var) / (2 * s), ess_mean = ess_mean,
    ess_var = ess_var)
}
