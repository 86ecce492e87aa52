# A Stan NUTS reference for Bayesian logistic regression, θ ~ N(0, I), y ~ Bernoulli(σ(Xθ)), through
# Debian's r-cran-rstan: 4 chains of 1000 warm-up + 1000 kept iterations on 2 cores (the model's
# compilation untimed). Used by scripts/bench_nuts.sh and scripts/bench_precondition.sh.
# The likelihood is Stan's bernoulli_logit_glm, its fastest form for this model (an analytic gradient:
# 5x faster per gradient than `bernoulli_logit(X * theta)` at N = 10^5, d = 50, same value and
# gradient), so NUTS's wall time is the best plain Stan program's.
# Usage: Rscript scripts/nuts_reference.R DATA_CSV OUTDIR [SEED]   (DATA_CSV: feature columns, then the
# 0/1 label; SEED, default 1, Stan's seed)
# Writes OUTDIR/nuts_reference.csv (the draws, one column per coefficient) and OUTDIR/nuts_seconds.txt
# (the sampling wall time, warm-up included); with another SEED, nuts_reference_seed<SEED>.csv and
# nuts_seconds_seed<SEED>.txt: an independent second reference, to pool with the first or to measure
# the reference's own Monte Carlo error against (docs/benchmarks.md, "Against NUTS").
args <- commandArgs(trailingOnly = TRUE)
suppressPackageStartupMessages(library(rstan))
# Debian's r-cran-bh keeps Boost in /usr/include (libboost-dev) rather than in the BH package.
if (!file.exists(rstan_options("boost_lib"))) rstan_options(boost_lib = "/usr/include")
d <- read.csv(args[1]); X <- as.matrix(d[, -ncol(d)]); y <- d[, ncol(d)]
code <- "data { int N; int D; matrix[N, D] X; int<lower=0, upper=1> y[N]; real<lower=0> s; }
         parameters { vector[D] theta; }
         model { theta ~ normal(0, s); y ~ bernoulli_logit_glm(X, 0, theta); }"
model <- stan_model(model_code = code)
data <- list(N = nrow(X), D = ncol(X), X = X, y = y, s = 1)
seed <- if (length(args) >= 3) as.integer(args[3]) else 1L
suffix <- if (seed == 1L) "" else sprintf("_seed%d", seed)
seconds <- system.time(fit <- sampling(model, data = data, chains = 4, iter = 2000, seed = seed, cores = 2, refresh = 0))[["elapsed"]]
write.csv(as.matrix(fit, pars = "theta"), file.path(args[2], sprintf("nuts_reference%s.csv", suffix)), row.names = FALSE)
s <- summary(fit, pars = "theta")$summary
cat(sprintf("%.3f\n", seconds), file = file.path(args[2], sprintf("nuts_seconds%s.txt", suffix)))
cat(sprintf("NUTS: %.1f s wall (4 chains, 2 cores), min bulk n_eff %.0f, max Rhat %.4f; posterior sds %.3g to %.3g (ratio %.0f)\n",
            seconds, min(s[, "n_eff"]), max(s[, "Rhat"]), min(s[, "sd"]), max(s[, "sd"]), max(s[, "sd"]) / min(s[, "sd"])))
