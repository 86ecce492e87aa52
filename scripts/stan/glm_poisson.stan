// brms: brm(y ~ x_1 + ... + x_K, family = poisson(link), prior = prior(double_exponential(0, 1), class = b))
// (Intercept flat), written as brms writes it (rstan 2.21's syntax; brms's laplace is Stan's
// double_exponential). link: 1 log, 2 identity, 3 sqrt (mu = eta^2).
data {
  int<lower=1> N;  // total number of observations
  int Y[N];  // response variable
  int<lower=1> K;  // number of population-level effects (without the intercept)
  matrix[N, K] X;  // population-level design matrix (without the intercept)
  int<lower=1, upper=3> link;
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
}
transformed parameters {
  real lprior = 0;  // prior contributions to the log posterior
  lprior += double_exponential_lpdf(b | 0, 1);
}
model {
  // likelihood including constants
  if (link == 1) {
    target += poisson_log_glm_lpmf(Y | Xc, Intercept, b);
  } else {
    vector[N] mu = Intercept + Xc * b;
    if (link == 3) mu = square(mu);
    target += poisson_lpmf(Y | mu);
  }
  // priors including constants
  target += lprior;
}
generated quantities {
  // actual population-level intercept
  real b_Intercept = Intercept - dot_product(means_X, b);
}
