// brms: brm(y | trials(n) ~ x_1 + ... + x_K, family = binomial(link),
//   prior = prior(student_t(3, 0, 2.5), class = Intercept)) (b flat, brms's default), written as brms
// writes it (rstan 2.21's syntax). link: 1 logit, 2 probit, 3 cloglog.
data {
  int<lower=1> N;  // total number of observations
  int Y[N];  // response variable
  int trials[N];  // number of trials
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
  lprior += student_t_lpdf(Intercept | 3, 0, 2.5);
}
model {
  // likelihood including constants
  vector[N] mu = Intercept + Xc * b;
  if (link == 1) {
    target += binomial_logit_lpmf(Y | trials, mu);
  } else {
    if (link == 2) {
      for (n in 1:N) mu[n] = Phi(mu[n]);
    } else {
      for (n in 1:N) mu[n] = inv_cloglog(mu[n]);
    }
    target += binomial_lpmf(Y | trials, mu);
  }
  // priors including constants
  target += lprior;
}
generated quantities {
  // actual population-level intercept
  real b_Intercept = Intercept - dot_product(means_X, b);
}
