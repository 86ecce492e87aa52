// BPMF on MovieLens latest-small (SGHMC paper §4.3, App. H.2; the paper used ml-1M, not available
// here): test RMSE against passes over the training ratings for SGHMC, SGLD, SGD, SGD with momentum,
// and the user + item bias baseline; on a seeded random 90/10 split and on the time-ordered split
// (train on the first 90% of ratings by time, streamed in time order; test on the last 10%).
// Samplers report the RMSE of the running posterior-predictive mean (average of predictions over
// the draws after burn-in); the optimisers report the RMSE of their current point.
// Usage: bpmf_experiment RATINGS_CSV OUT_JSON [--quick]
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/models/bpmf.hpp>
#include <sgmcmc/models/data/dataset.hpp>
#include <sgmcmc/models/data/ratings.hpp>
#include <sgmcmc/samplers/sghmc.hpp>
#include <sgmcmc/samplers/sgld.hpp>

#include "baselines.hpp"
#include "resources.hpp"

using namespace sgmcmc;
using json = nlohmann::json;

namespace {

struct Setup {
  std::string name;
  std::shared_ptr<const data::Ratings> train, test;
  models::Sampling sampling;
};

void predict_all(const models::Bpmf& m, const data::Ratings& r, const Eigen::VectorXd& th, Eigen::VectorXd& out) {
  out.resize(static_cast<Eigen::Index>(r.size()));
  for (std::size_t k = 0; k < r.size(); ++k) out[static_cast<Eigen::Index>(k)] = m.predict(th, r.user[k], r.item[k]);
}

// Runs one method for `epochs` passes; records (pass, seconds, test RMSE) every `eval_every` steps.
template <class S>
json run_method(const std::string& method, const S& sampler, const Setup& setup, std::size_t batch, double epochs,
                bool averaging, std::uint64_t burn_in, int gibbs_every, std::uint64_t seed) {
  models::Bpmf model{setup.train, 20, 3.0, setup.train->mean(), std::make_shared<models::BpmfPrecisions>()};
  const auto pot = data::minibatch(model, batch, setup.sampling);
  random::Stream rng(seed, 0);
  auto state = sampler.init(model.initial_point(rng), rng);
  const auto steps = static_cast<std::uint64_t>(epochs * static_cast<double>(setup.train->size()) / static_cast<double>(batch));
  const std::uint64_t eval_every = std::max<std::uint64_t>(1, steps / 60);
  Eigen::VectorXd pred, avg = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(setup.test->size()));
  double kept = 0, seconds = 0;
  json curve = json::array();
  auto t0 = std::chrono::steady_clock::now();
  for (std::uint64_t t = 0; t < steps; ++t) {
    sampler.step(state, pot, rng, t);
    if (gibbs_every > 0 && (t + 1) % static_cast<std::uint64_t>(gibbs_every) == 0) model.gibbs(sampler.position(state), rng);
    if (averaging && t >= burn_in) {  // posterior-predictive mean over every draw after burn-in
      predict_all(model, *setup.test, sampler.position(state), pred);
      kept += 1;
      avg += (pred - avg) / kept;
    }
    if ((t + 1) % eval_every == 0 || t + 1 == steps) {
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!averaging || kept == 0) predict_all(model, *setup.test, sampler.position(state), pred);
      const double e = models::rmse(*setup.test, averaging && kept > 0 ? avg : pred);
      curve.push_back({{"pass", double(t + 1) * double(batch) / double(setup.train->size())}, {"seconds", seconds}, {"rmse", e}});
      t0 = std::chrono::steady_clock::now();
    }
  }
  const double final_rmse = curve.back()["rmse"];
  std::fprintf(stderr, "%-14s %-12s RMSE %.4f  (%.1f s, %llu steps)\n", setup.name.c_str(), method.c_str(), final_rmse, seconds,
               static_cast<unsigned long long>(steps));
  return {{"method", method}, {"curve", curve}, {"final_rmse", final_rmse}, {"seconds", seconds}, {"steps", steps}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s RATINGS_CSV OUT_JSON [--quick]\n", argv[0]);
    return 2;
  }
  const bool quick = argc > 3 && std::string(argv[3]) == "--quick";
  try {
    const auto all = data::load_ratings_csv(argv[1]);
    std::fprintf(stderr, "%s: %zu ratings, %u users, %u items\n", argv[1], all.size(), all.n_users, all.n_items);
    std::vector<Setup> setups;
    {
      auto [train, test] = data::split(all, 0.1, 1);
      setups.push_back({"random 90/10", std::make_shared<const data::Ratings>(std::move(train)),
                        std::make_shared<const data::Ratings>(std::move(test)), models::Sampling::without_replacement});
    }
    {
      auto [train, test] = data::split_by_time(all, 0.1);
      setups.push_back({"time-ordered", std::make_shared<const data::Ratings>(std::move(train)),
                        std::make_shared<const data::Ratings>(std::move(test)), models::Sampling::time_ordered});
    }
    const std::size_t batch = 4000;
    const double eta_random = std::getenv("BPMF_ETA") ? std::atof(std::getenv("BPMF_ETA")) : 3e-6;
    const double eta_time = std::getenv("BPMF_ETA_TIME") ? std::atof(std::getenv("BPMF_ETA_TIME")) : 1e-6;
    const double epochs = quick ? 10 : 100;
    const std::uint64_t burn_in = quick ? 50 : 500;
    json out = {{"experiment", "bpmf"}, {"data", argv[1]}, {"ratings", all.size()}, {"users", all.n_users}, {"items", all.n_items},
                {"latent", 20}, {"tau", 3.0}, {"batch_size", batch}, {"epochs", epochs}, {"burn_in_steps", burn_in},
                {"gibbs_every", 100}, {"splits", json::array()}};
    for (const auto& s : setups) {
      const auto biases = models::fit_biases(*s.train);
      Eigen::VectorXd pred(static_cast<Eigen::Index>(s.test->size()));
      const double mu = s.train->mean();
      for (std::size_t k = 0; k < s.test->size(); ++k)
        pred[static_cast<Eigen::Index>(k)] = mu + biases[s.test->user[k]] + biases[s.train->n_users + s.test->item[k]];
      const double bias_rmse = models::rmse(*s.test, pred);
      std::fprintf(stderr, "%-14s %-12s RMSE %.4f\n", s.name.c_str(), "bias", bias_rmse);
      json methods = json::array();
      const Euclidean space(models::Bpmf{s.train, 20, 3.0, 0.0, {}}.dim());
      // One learning rate η for every method, in the paper's momentum parametrisation (§3.3): SGHMC
      // with h = sqrt(η), friction C = α/h (α = 0.1), V̂ = 0; SGLD with step size η/… so that its
      // drift per step matches SGD's; SGD and SGD with momentum (α = 0.1) with the same η.
      const double eta = s.sampling == models::Sampling::time_ordered ? eta_time : eta_random, alpha = 0.1;
      const double h = std::sqrt(eta);
      const sghmc::Sampler<Euclidean> sghmc_s{{space, sghmc::Friction(alpha / h), 0.0}, splitting::aboba, schedule::StepSize::constant(h)};
      methods.push_back(run_method("sghmc", sghmc_s, s, batch, epochs, true, burn_in, 100, 11));
      // SGLD's step is the SGD step of the same size plus noise; η/α is SGD-with-momentum's terminal speed.
      const sgld::Sampler<Euclidean> sgld_s{space, schedule::StepSize::constant(eta / alpha), 0.0};
      methods.push_back(run_method("sgld", sgld_s, s, batch, epochs, true, burn_in, 100, 12));
      // Plain SGD at η/α (momentum's terminal speed) diverged on MovieLens; it runs at η.
      methods.push_back(run_method("sgd", experiments::Sgd{eta, 0.0}, s, batch, epochs, false, 0, 100, 13));
      methods.push_back(run_method("sgd_momentum", experiments::Sgd{eta, alpha}, s, batch, epochs, false, 0, 100, 14));
      out["splits"].push_back({{"split", s.name}, {"train", s.train->size()}, {"test", s.test->size()},
                               {"bias_baseline_rmse", bias_rmse}, {"methods", methods}});
    }
    out["peak_rss_mb"] = experiments::peak_rss_mb();
    std::ofstream(argv[2]) << out.dump(1) << '\n';
    std::fprintf(stderr, "wrote %s (peak RSS %.0f MB)\n", argv[2], experiments::peak_rss_mb());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bpmf_experiment: error: %s\n", e.what());
    return 1;
  }
}
