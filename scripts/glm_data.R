# The data sets of the glm target's Stan references (issue #35, "Show"; docs/data.md, "GLM reference
# data"): R data sets shipped with Debian's r-base-core (datasets) and r-cran-mass, and two generated
# ones (set.seed: R's Mersenne Twister, inversion normals), written as headed CSVs to OUTDIR.
# Continuous predictors are standardised (mean 0, sd 1) so that one hand-chosen step size fits every
# slope; 0/1 dummies are kept as they are.
# Usage: Rscript scripts/glm_data.R OUTDIR
args <- commandArgs(trailingOnly = TRUE)
out <- args[1]
dir.create(out, showWarnings = FALSE, recursive = TRUE)
z <- function(x) as.numeric(scale(x))
put <- function(d, name) {
  write.csv(d, file.path(out, name), row.names = FALSE, quote = FALSE)
  cat(sprintf("%s: %d rows, columns %s\n", name, nrow(d), paste(names(d), collapse = ",")))
}
suppressPackageStartupMessages(library(MASS))

# Bernoulli: Pima Indians diabetes (MASS::Pima.tr and Pima.te, 200 + 332 women), diabetic or not.
pima <- rbind(Pima.tr, Pima.te)
put(data.frame(diabetic = as.integer(pima$type == "Yes"), npreg = z(pima$npreg), glu = z(pima$glu), bmi = z(pima$bmi),
               ped = z(pima$ped), age = z(pima$age)), "pima.csv")

# Binomial: generated, N = 400, 3 predictors (x2 correlated with x1, r = 0.6), 5 to 20 trials a row.
set.seed(35001)
n <- 400
x1 <- rnorm(n); x2 <- 0.6 * x1 + 0.8 * rnorm(n); x3 <- runif(n, -1, 1)
trials <- sample(5:20, n, replace = TRUE)
put(data.frame(successes = rbinom(n, trials, plogis(-0.4 + 0.7 * x1 - 0.5 * x2 + 0.3 * x3)), trials = trials,
               x1 = round(x1, 6), x2 = round(x2, 6), x3 = round(x3, 6)), "binomial_sim.csv")

# Poisson: generated, N = 600, 3 predictors (x1, x2 correlated, r = 0.5), bounded so that the identity
# and sqrt links also fit with a mean well above 0.
set.seed(35002)
n <- 600
x1 <- runif(n, -1, 1); x2 <- 0.5 * x1 + sqrt(0.75) * runif(n, -1, 1); x3 <- rbinom(n, 1, 0.4)
put(data.frame(count = rpois(n, exp(1.6 + 0.4 * x1 - 0.3 * x2 + 0.25 * x3)), x1 = round(x1, 6), x2 = round(x2, 6), x3 = x3),
    "poisson_sim.csv")

# Negative binomial: days absent from school (MASS::quine, 146 children), dummies for ethnicity,
# sex, age group (F0 the baseline) and learner status.
put(data.frame(days = quine$Days, eth_n = as.integer(quine$Eth == "N"), sex_m = as.integer(quine$Sex == "M"),
               age_f1 = as.integer(quine$Age == "F1"), age_f2 = as.integer(quine$Age == "F2"),
               age_f3 = as.integer(quine$Age == "F3"), lrn_sl = as.integer(quine$Lrn == "SL")), "quine.csv")

# Gaussian and Student: Boston house values (MASS::Boston, 506 tracts), median value in $1000s.
put(data.frame(medv = Boston$medv, lstat = z(Boston$lstat), rm = z(Boston$rm), ptratio = z(Boston$ptratio),
               dis = z(Boston$dis), nox = z(Boston$nox)), "boston.csv")

# Gamma: New York ozone, May to September 1973 (datasets::airquality, the 111 complete days), ppb.
aq <- na.omit(airquality)
put(data.frame(ozone = aq$Ozone, solar = z(aq$Solar.R), wind = z(aq$Wind), temp = z(aq$Temp)), "airquality.csv")

# Small versions, one per family (N = 40, two predictors with two decimals, x2 correlated with x1),
# for tests/glm/stan_reference_stat.cpp, which keeps their numbers (scripts/glm_test_numbers.R prints
# them): small_<family>.csv.
small <- function(k, family) {
  set.seed(35100 + k)
  n <- 40
  x1 <- round(rnorm(n), 2); x2 <- round(0.5 * x1 + 0.87 * rnorm(n), 2)
  eta <- function(a, b1, b2) a + b1 * x1 + b2 * x2
  d <- switch(family,
    bernoulli = data.frame(y = rbinom(n, 1, plogis(eta(0.3, 1, -0.7)))),
    binomial = { t <- sample(3:12, n, replace = TRUE); data.frame(y = rbinom(n, t, plogis(eta(-0.2, 0.8, -0.5))), trials = t) },
    poisson = data.frame(y = rpois(n, exp(eta(1, 0.4, -0.3)))),
    negative_binomial = data.frame(y = rnbinom(n, mu = exp(eta(1.2, 0.5, -0.4)), size = 3)),
    gaussian = data.frame(y = round(eta(2, 1, -0.5) + rnorm(n, 0, 1.2), 2)),
    student = data.frame(y = round(eta(2, 1, -0.5) + rt(n, 4), 2)),
    gamma = data.frame(y = signif(rgamma(n, shape = 4, rate = 4 / exp(eta(0.8, 0.3, -0.2))), 4)))
  put(cbind(d, x1 = x1, x2 = x2), sprintf("small_%s.csv", family))
}
families <- c("bernoulli", "binomial", "poisson", "negative_binomial", "gaussian", "student", "gamma")
for (k in seq_along(families)) small(k, families[k])
