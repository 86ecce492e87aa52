// brms: brm(y ~ x_1 + ... + x_K, family = student(), prior = c(prior(normal(0, 10), class = b),
//   prior(cauchy(0, 5), class = sigma))) with brms's default prior on nu, gamma(2, 0.1) (Intercept
// flat), written as brms writes it (rstan 2.21's syntax). One difference from brms, on purpose: brms
// declares real<lower=1> nu (and divides its prior by gamma_lccdf(1 | 2, 0.1)); the glm target samples
// nu on (0, inf), so this reference does too (docs/glm.md). Identity link only.
data {
  int<lower=1> N;  // total number of observations
  vector[N] Y;  // response variable
  int<lower=1> K;  // number of population-level effects (without the intercept)
  matrix[N, K] X;  // population-level design matrix (without the intercept)
  int<lower=1, upper=1> link;
}
transformed data {
  matrix[N, K] Xc;  // centered version of X
  vector[K] means_X;  // column means of X before centering
  for (i in 1:K) {
    means_X[i] = mean(X[, i]);
    Xc[, i] = X[, i] - means_X[i];
  }
}
parameters {
  vector[K] b;  // population-level effects
  real Intercept;  // temporary intercept for centered predictors
  real<lower=0> sigma;  // dispersion parameter
  real<lower=0> nu;  // degrees of freedom or shape
}
transformed parameters {
  real lprior = 0;  // prior contributions to the log posterior
  lprior += normal_lpdf(b | 0, 10);
  lprior += cauchy_lpdf(sigma | 0, 5) - 1 * cauchy_lccdf(0 | 0, 5);
  lprior += gamma_lpdf(nu | 2, 0.1);
}
model {
  // likelihood including constants
  vector[N] mu = Intercept + Xc * b;
  target += student_t_lpdf(Y | nu, mu, sigma);
  // priors including constants
  target += lprior;
}
generated quantities {
  // actual population-level intercept
  real b_Intercept = Intercept - dot_product(means_X, b);
}
