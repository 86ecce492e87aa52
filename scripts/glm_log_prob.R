# Our log density against Stan's, point by point (issue #35, "Show"; docs/benchmarks.md, "GLM against
# Stan"): at draws of an `sgmcmc run` with "log_density": true (draws_csv: the reported draw, brms's
# scale, and lp__ = −U, every constant kept), Stan's log_prob of the same model
# (scripts/stan/glm_<family>.stan, compiled by scripts/glm_reference.R into OUTDIR/stan/) on the
# unconstrained scale with the Jacobian — both are the log posterior up to the evidence only, with all
# constants, so they must agree to rounding, not only up to a constant. Also the gradient's norm from
# Stan, for the record.
# Usage: Rscript scripts/glm_log_prob.R DATADIR OUTDIR MODEL DRAWS_CSV [POINTS]   (POINTS default 200)
# Prints the largest |lp_ours − lp_stan| and its relative size, and writes OUTDIR/<MODEL>_log_prob.csv.
args <- commandArgs(trailingOnly = TRUE)
datadir <- args[1]; out <- args[2]; name <- args[3]; draws <- args[4]
points <- if (length(args) >= 5) as.integer(args[5]) else 200L
suppressPackageStartupMessages(library(rstan))
cache <- Sys.getenv("GLM_STAN_CACHE", out)  # where the compiled programs are kept (OUTDIR by default)
if (!file.exists(rstan_options("boost_lib"))) rstan_options(boost_lib = "/usr/include")
here <- dirname(sub("--file=", "", grep("--file=", commandArgs(FALSE), value = TRUE)))
models <- read.delim(file.path(here, "glm_models.tsv"), stringsAsFactors = FALSE, quote = "")
m <- models[models$model == name, ]
links <- list(bernoulli = c("logit", "probit", "cloglog"), binomial = c("logit", "probit", "cloglog"),
              poisson = c("log", "identity", "sqrt"), negative_binomial = "log", gaussian = c("identity", "log"),
              student = "identity", gamma = c("log", "inverse"))
d <- read.csv(file.path(datadir, m$data))
X <- as.matrix(d[, setdiff(names(d), c(m$response, m$trials)), drop = FALSE])
y <- d[[m$response]]
data <- list(N = nrow(X), K = ncol(X), X = X, Y = y, link = match(m$link, links[[m$family]]))
if (m$family %in% c("bernoulli", "binomial", "poisson", "negative_binomial")) data$Y <- as.integer(y)
if (m$family == "binomial") data$trials <- as.integer(d[[m$trials]])
rstan_options(auto_write = TRUE)
model <- stan_model(file = file.path(cache, "stan", sprintf("glm_%s.stan", m$family)))
fit <- sampling(model, data = data, chains = 0)
ours <- read.csv(draws, check.names = FALSE)
ours <- ours[round(seq(1, nrow(ours), length.out = min(points, nrow(ours)))), ]
aux <- intersect(c("sigma", "shape", "nu"), names(ours))
means <- colMeans(X)
rows <- lapply(seq_len(nrow(ours)), function(i) {
  b <- as.numeric(ours[i, paste0("b_", colnames(X))])
  # Stan's parameters: b, the centred design's Intercept = b_Intercept + means · b, the auxiliaries.
  pars <- list(b = array(b), Intercept = ours[i, "b_Intercept"] + sum(means * b))
  for (a in aux) pars[[a]] <- ours[i, a]
  u <- unconstrain_pars(fit, pars)
  lp <- log_prob(fit, u, adjust_transform = TRUE, gradient = TRUE)
  c(lp_ours = ours[i, "lp__"], lp_stan = as.numeric(lp), grad_norm = sqrt(sum(attr(lp, "gradient")^2)))
})
t <- as.data.frame(do.call(rbind, rows))
t$difference <- t$lp_ours - t$lp_stan
write.csv(t, file.path(out, sprintf("%s_log_prob.csv", name)), row.names = FALSE)
worst <- which.max(abs(t$difference))
cat(sprintf("%s: log density at %d of our draws: max |lp_ours - lp_stan| = %.3g (at lp %.6f; relative %.2g); mean difference %.3g\n",
            name, nrow(t), abs(t$difference[worst]), t$lp_stan[worst], abs(t$difference[worst] / t$lp_stan[worst]), mean(t$difference)))
