# The numbers tests/glm/stan_reference_stat.cpp keeps (issue #35, "Show"): for each small model of
# scripts/glm_models.tsv (small_<family>[_<link>]: 40 rows, two predictors), its data, the Stan reference's
# mean, sd and their MCSEs (OUTDIR/<model>_ref.csv, written by scripts/glm_reference.R), and Stan's
# log density and gradient (rstan's log_prob and grad_log_prob, the Jacobian included) at two points,
# printed as the test's C++ initializers.
# Usage: Rscript scripts/glm_data.R DATADIR && for m in small_bernoulli ...; do
#          Rscript scripts/glm_reference.R DATADIR OUTDIR $m; done && Rscript scripts/glm_test_numbers.R DATADIR OUTDIR
args <- commandArgs(trailingOnly = TRUE)
datadir <- args[1]; out <- args[2]
suppressPackageStartupMessages(library(rstan))
cache <- Sys.getenv("GLM_STAN_CACHE", out)  # where the compiled programs are kept (OUTDIR by default)
if (!file.exists(rstan_options("boost_lib"))) rstan_options(boost_lib = "/usr/include")
here <- dirname(sub("--file=", "", grep("--file=", commandArgs(FALSE), value = TRUE)))
models <- read.delim(file.path(here, "glm_models.tsv"), stringsAsFactors = FALSE, quote = "")
models <- models[grepl("^small_", models$model), ]
links <- list(bernoulli = c("logit", "probit", "cloglog"), binomial = c("logit", "probit", "cloglog"),
              poisson = c("log", "identity", "sqrt"), negative_binomial = "log", gaussian = c("identity", "log"),
              student = "identity", gamma = c("log", "inverse"))
num <- function(v) paste(sprintf("%.17g", v), collapse = ", ")  # the points: the doubles Stan was given
short <- function(v, digits = 15) paste(format(v, digits = digits, trim = TRUE), collapse = ", ")  # data; moments to 6 digits
str <- function(s) sprintf("\"%s\"", s)
rstan_options(auto_write = TRUE)
for (i in seq_len(nrow(models))) {
  m <- models[i, ]
  d <- read.csv(file.path(datadir, m$data))
  X <- as.matrix(d[, c("x1", "x2")])
  data <- list(N = nrow(X), K = 2L, X = X, Y = d$y, link = match(m$link, links[[m$family]]))
  if (m$family %in% c("bernoulli", "binomial", "poisson", "negative_binomial")) data$Y <- as.integer(d$y)
  if (m$family == "binomial") data$trials <- as.integer(d$trials)
  model <- stan_model(file = file.path(cache, "stan", sprintf("glm_%s.stan", m$family)))
  fit <- sampling(model, data = data, chains = 0)
  ref <- read.csv(file.path(out, sprintf("%s_ref.csv", m$model)), stringsAsFactors = FALSE)
  # The priors as the glm target reads them, brms's defaults made explicit.
  prior <- regmatches(m$prior, gregexpr('"[^"]*"', m$prior))[[1]]
  prior <- gsub('"', "", prior)
  keys <- prior[c(TRUE, FALSE)]; values <- prior[c(FALSE, TRUE)]
  if (m$family == "negative_binomial") { keys <- c(keys, "shape"); values <- c(values, "gamma(0.01, 0.01)") }
  if (m$family == "student") { keys <- c(keys, "nu"); values <- c(values, "gamma(2, 0.1)") }
  aux <- ref$parameter[-(1:3)]
  points <- lapply(c(0, 0.7), function(s) {
    p <- ref$mean + s * ref$sd * rep(c(1, -1), length.out = nrow(ref))
    pars <- list(b = array(p[2:3]), Intercept = p[1] + sum(colMeans(X) * p[2:3]))
    for (k in seq_along(aux)) pars[[aux[k]]] <- p[3 + k]
    u <- unconstrain_pars(fit, pars)
    g <- grad_log_prob(fit, u, adjust_transform = TRUE)
    # Stan's order (b, Intercept, log aux) to the glm model's θ = (α_c, b, log aux).
    list(p = p, lp = attr(g, "log_prob"), grad = c(g[3], g[1:2], g[-(1:3)]))
  })
  cat(sprintf("    // %s: %s %s, N = %d; reference: 4 x 10,000 NUTS draws\n", m$model, m$family, m$link, nrow(d)))
  cat(sprintf("    {%s, %s, {%s},\n", str(m$family), str(m$link), paste(sprintf("{%s, %s}", str(keys), str(values)), collapse = ", ")))
  cat(sprintf("     {%s},\n     {%s},\n     {%s},\n     {%s},\n", short(d$x1), short(d$x2), short(d$y), if (m$family == "binomial") short(d$trials) else ""))
  moments <- apply(ref[, c("mean", "mcse_mean", "sd", "mcse_sd")], 1, function(v) paste(sapply(v, function(x) short(x, 6)), collapse = ", "))
  cat(sprintf("     {%s},\n", paste(sprintf("{%s, %s}", str(ref$parameter), moments), collapse = ",\n      ")))
  cat(sprintf("     {%s}},\n", paste(sapply(points, function(q) sprintf("{{%s}, %s, {%s}}", num(q$p), num(q$lp), num(q$grad))), collapse = ",\n      ")))
}
