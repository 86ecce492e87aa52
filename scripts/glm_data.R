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
