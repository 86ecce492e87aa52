// brms: brm(y ~ x_1 + ... + x_K, family = Gamma(link), prior = c(prior(normal(0, 1), class = b),
//   prior(gamma(0.01, 0.01), class = shape))) (Intercept flat; shape's prior is brms's default, given
// explicitly to the glm target, whose default for gamma's shape is flat), written as brms writes it
// (rstan 2.21's syntax): the mean mu, shape alpha, Stan's gamma(alpha, alpha / mu). link: 1 log, 2 inverse.
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
  real<lower=0> shape;  // shape parameter
}
transformed parameters {
  real lprior = 0;  // prior contributions to the log posterior
  lprior += normal_lpdf(b | 0, 1);
  lprior += gamma_lpdf(shape | 0.01, 0.01);
}
model {
  // likelihood including constants
  vector[N] mu = Intercept + Xc * b;
  if (link == 1) {
    mu = exp(mu);
  } else {
    mu = inv(mu);
  }
  target += gamma_lpdf(Y | shape, shape ./ mu);
  // priors including constants
  target += lprior;
}
generated quantities {
  // actual population-level intercept
  real b_Intercept = Intercept - dot_product(means_X, b);
}
