// brms: brm(y ~ x_1 + ... + x_K, family = gaussian(link),
//   prior = prior(student_t(3, 0, 9.2), class = sigma)) (b and Intercept flat), written as brms writes
// it (rstan 2.21's syntax): sigma's half Student-t normalised above 0 by its lccdf. link: 1 identity, 2 log.
data {
  int<lower=1> N;  // total number of observations
  vector[N] Y;  // response variable
  int<lower=1> K;  // number of population-level effects (without the intercept)
  matrix[N, K] X;  // population-level design matrix (without the intercept)
  int<lower=1, upper=2> link;
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
}
transformed parameters {
  real lprior = 0;  // prior contributions to the log posterior
  lprior += student_t_lpdf(sigma | 3, 0, 9.2) - 1 * student_t_lccdf(0 | 3, 0, 9.2);
}
model {
  // likelihood including constants
  if (link == 1) {
    target += normal_id_glm_lpdf(Y | Xc, Intercept, b, sigma);
  } else {
    vector[N] mu = exp(Intercept + Xc * b);
    target += normal_lpdf(Y | mu, sigma);
  }
  // priors including constants
  target += lprior;
}
generated quantities {
  // actual population-level intercept
  real b_Intercept = Intercept - dot_product(means_X, b);
}
