// brms: brm(y ~ x_1 + ... + x_K, family = negbinomial(), prior = c(prior(normal(0, 2), class = b),
//   prior(student_t(3, 2.3, 2.5), class = Intercept))) with brms's default prior on shape,
// gamma(0.01, 0.01), written as brms writes it (rstan 2.21's syntax). Log link only.
data {
  int<lower=1> N;  // total number of observations
  int Y[N];  // response variable
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
  real<lower=0> shape;  // shape parameter
}
transformed parameters {
  real lprior = 0;  // prior contributions to the log posterior
  lprior += normal_lpdf(b | 0, 2);
  lprior += student_t_lpdf(Intercept | 3, 2.3, 2.5);
  lprior += gamma_lpdf(shape | 0.01, 0.01);
}
model {
  // likelihood including constants
  target += neg_binomial_2_log_glm_lpmf(Y | Xc, Intercept, b, shape);
  // priors including constants
  target += lprior;
}
generated quantities {
  // actual population-level intercept
  real b_Intercept = Intercept - dot_product(means_X, b);
}
