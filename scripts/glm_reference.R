# Stan NUTS references for the glm target (issue #35, "Show"; docs/benchmarks.md, "GLM against Stan"),
# through Debian's r-cran-rstan: the Stan program scripts/stan/glm_<family>.stan (written as brms
# writes the model, independently of models/glm/) on one model of scripts/glm_models.tsv, CHAINS chains
# of 1000 warm-up + KEPT kept iterations on 2 cores (the compilation untimed; compiled models are
# cached in $GLM_STAN_CACHE/stan/, by default OUTDIR/stan/). Starts every chain near the data's mean
# response (the intercept at the link of mean(y), slopes near 0), so that links with a bounded mean
# (identity, sqrt, inverse) start inside their support.
# Usage: Rscript scripts/glm_reference.R DATADIR OUTDIR MODEL [KEPT [CHAINS [SEED]]]
#   (defaults 10000, 4, 1). Writes OUTDIR/<MODEL>_ref.csv: per parameter (brms's names: b_Intercept,
#   b_<predictor>, sigma, shape, nu) the mean, its MCSE, the sd, its MCSE (scripts/glm_mcse.R), the
#   ESS of x and of (x − mean)², rstan::monitor's bulk ESS and R-hat; OUTDIR/<MODEL>_ref_draws.rds
#   (the kept draws, iterations × chains × parameters); and OUTDIR/<MODEL>_ref_seconds.txt (the
#   sampling wall time, warm-up included).
args <- commandArgs(trailingOnly = TRUE)
datadir <- args[1]; out <- args[2]; name <- args[3]
kept <- if (length(args) >= 4) as.integer(args[4]) else 10000L
chains <- if (length(args) >= 5) as.integer(args[5]) else 4L
seed <- if (length(args) >= 6) as.integer(args[6]) else 1L
suppressPackageStartupMessages(library(rstan))
cache <- Sys.getenv("GLM_STAN_CACHE", out)  # where the compiled programs are kept (OUTDIR by default)
here <- dirname(sub("--file=", "", grep("--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "glm_mcse.R"))
if (!file.exists(rstan_options("boost_lib"))) rstan_options(boost_lib = "/usr/include")
models <- read.delim(file.path(here, "glm_models.tsv"), stringsAsFactors = FALSE, quote = "")
m <- models[models$model == name, ]
if (nrow(m) != 1) stop("no model ", name, " in glm_models.tsv")
links <- list(bernoulli = c("logit", "probit", "cloglog"), binomial = c("logit", "probit", "cloglog"),
              poisson = c("log", "identity", "sqrt"), negative_binomial = "log", gaussian = c("identity", "log"),
              student = "identity", gamma = c("log", "inverse"))
link <- match(m$link, links[[m$family]])
d <- read.csv(file.path(datadir, m$data))
X <- as.matrix(d[, setdiff(names(d), c(m$response, m$trials)), drop = FALSE])
y <- d[[m$response]]
data <- list(N = nrow(X), K = ncol(X), X = X, Y = y, link = link)
if (m$family %in% c("bernoulli", "binomial", "poisson", "negative_binomial")) data$Y <- as.integer(y)
if (m$family == "binomial") data$trials <- as.integer(d[[m$trials]])

# The program, compiled once into OUTDIR/stan/ (rstan's auto_write keeps the .rds beside it).
dir.create(out, showWarnings = FALSE, recursive = TRUE)
dir.create(file.path(cache, "stan"), showWarnings = FALSE, recursive = TRUE)
stan_file <- file.path(cache, "stan", sprintf("glm_%s.stan", m$family))
source_file <- file.path(here, "stan", sprintf("glm_%s.stan", m$family))
if (!file.exists(stan_file) || !identical(readLines(stan_file), readLines(source_file))) file.copy(source_file, stan_file, overwrite = TRUE)
rstan_options(auto_write = TRUE)
model <- stan_model(file = stan_file)

# Starting points: the intercept at the link of the mean response (the rate per trial for binomial).
ybar <- if (m$family == "binomial") sum(y) / sum(data$trials) else mean(y)
g <- switch(m$link, logit = qlogis(ybar), probit = qnorm(ybar), cloglog = log(-log1p(-ybar)), log = log(ybar),
            identity = ybar, sqrt = sqrt(ybar), inverse = 1 / ybar)
init <- function(chain_id) {
  set.seed(1000 + chain_id)
  i <- list(b = array(rnorm(ncol(X), 0, 0.01 * abs(g) + 1e-4)), Intercept = g * (1 + rnorm(1, 0, 0.01)))
  if (m$family %in% c("gaussian", "student")) i$sigma <- sd(y)
  if (m$family %in% c("negative_binomial", "gamma")) i$shape <- 1
  if (m$family == "student") i$nu <- 10
  i
}
inits <- lapply(seq_len(chains), init)
seconds <- system.time(fit <- sampling(model, data = data, chains = chains, warmup = 1000, iter = 1000 + kept, seed = seed,
                                       cores = min(2, chains), refresh = 0, init = inits))[["elapsed"]]
aux <- intersect(c("sigma", "shape", "nu"), fit@model_pars)
pars <- c("b_Intercept", "b", aux)
sims <- as.array(fit, pars = pars)
mon <- monitor(sims, warmup = 0, print = FALSE)
names <- c("b_Intercept", paste0("b_", colnames(X)), aux)
sampler <- get_sampler_params(fit, inc_warmup = FALSE)
divergent <- sum(sapply(sampler, function(s) sum(s[, "divergent__"])))
e <- t(sapply(seq_len(dim(sims)[3]), function(k) glm_mcse(sims[, , k])))
table <- data.frame(parameter = names, mean = e[, "mean"], mcse_mean = e[, "mcse_mean"], sd = e[, "sd"], mcse_sd = e[, "mcse_sd"],
                    ess_mean = e[, "ess_mean"], ess_var = e[, "ess_var"], ess_bulk = mon[, "Bulk_ESS"], rhat = mon[, "Rhat"])
dimnames(sims)[[3]] <- names
saveRDS(sims, file.path(out, sprintf("%s_ref_draws.rds", name)))
write.csv(table, file.path(out, sprintf("%s_ref.csv", name)), row.names = FALSE)
cat(sprintf("%.3f\n", seconds), file = file.path(out, sprintf("%s_ref_seconds.txt", name)))
cat(sprintf("%s: NUTS %d x (1000 + %d), %.1f s wall, min bulk ESS %.0f, max Rhat %.4f, %d divergent\n", name, chains, kept, seconds,
            min(table$ess_bulk), max(table$rhat), divergent))
print(table, digits = 4, row.names = FALSE)
