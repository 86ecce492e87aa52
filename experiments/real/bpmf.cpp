// BPMF on MovieLens latest-small (SGHMC paper §4.3, App. H.2; the paper used ml-1M, not available
// here): test RMSE against passes over the training ratings for SGHMC, SGLD, SGD, SGD with momentum,
// and the user + item bias baseline; on a seeded random 90/10 split and on the time-ordered split
// (train on the first 90% of ratings by time, streamed in time order; test on the last 10%).
// Samplers report the RMSE of the running posterior-predictive mean (average of predictions over
// the draws after burn-in); the optimisers report the RMSE of their current point.
// Every run goes through the library's driver (driver/chain.hpp); the Gibbs step, the predictive averaging
// and the held-out evaluations are observers of it (driver/evaluation.hpp).
// Usage: bpmf_experiment RATINGS_CSV OUT_JSON [--quick]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/models/bpmf.hpp>
#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/data/ratings.hpp>
#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/driver/evaluation.hpp>
#include <sgmcmc/run/json_file.hpp>
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

// Runs one method for `epochs` passes; records (pass, seconds, test RMSE) every `eval_every` steps
// (evaluation time is not counted in "seconds"). Samplers (`averaging`) predict with the running mean of
// the predictions of every draw after the first `burn_in` steps.
template <class S>
json run_method(const std::string& method, const S& sampler, const Setup& setup, double tau, std::size_t batch, double epochs,
                bool averaging, std::uint64_t burn_in, int gibbs_every, std::uint64_t seed, double precision = 1.0) {
  const models::Bpmf model{setup.train, 20, tau, setup.train->mean(),
                           std::make_shared<models::BpmfPrecisions>(models::BpmfPrecisions{precision, precision, precision, precision})};
  random::Stream rng(seed, 0);
  Eigen::VectorXd x0 = model.initial_point(rng);  // the first draws of the stream; the chain continues it
  Chain chain(sampler, models::minibatch(model, batch, setup.sampling), std::move(x0), std::move(rng));
  const auto steps = static_cast<std::uint64_t>(epochs * static_cast<double>(setup.train->size()) / static_cast<double>(batch));
  if (steps == 0) throw Error(fmt::format("{}: {} passes make no step (batches of {})", method, epochs, batch));
  const std::uint64_t eval_every = std::max<std::uint64_t>(1, steps / 60);
  Eigen::VectorXd pred, avg = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(setup.test->size()));
  double kept = 0;
  json curve = json::array();
  StopOnNonFinite divergence;  // diverged: this step size is too large for the method
  // The Gibbs step on the precisions draws from the chain's own stream, as the published runs did (the
  // library's run/targets/gibbs.hpp draws from a substream: every number after the first Gibbs step would change).
  auto gibbs_step = [&](const StepEvent& e) {
    if (gibbs_every > 0 && e.step % static_cast<std::uint64_t>(gibbs_every) == 0 && !divergence.diverged)
      model.gibbs(e.position, chain.rng);
    return Control::proceed;
  };
  auto average = [&](const StepEvent& e) {  // posterior-predictive mean over every kept draw (after burn-in)
    if (!e.kept || divergence.diverged) return Control::proceed;
    predict_all(model, *setup.test, e.position, pred);
    kept += 1;
    avg += (pred - avg) / kept;
    return Control::proceed;
  };
  SamplingClock clock;
  auto evaluate = [&](const StepEvent& e) {
    if (divergence.diverged) return;
    if (!averaging || kept == 0) predict_all(model, *setup.test, e.position, pred);
    const double err = models::rmse(*setup.test, averaging && kept > 0 ? avg : pred);
    curve.push_back({{"pass", double(e.step) * double(batch) / double(setup.train->size())}, {"seconds", clock.seconds()},
                     {"rmse", err}});
  };
  const Retention keep = averaging ? Retention{burn_in, 1} : Retention::none();
  clock.restart();
  const ChainStatus status =
      chain.run(keep, StopAfter{steps}, divergence, gibbs_step, average, Every{eval_every, evaluate, &clock, steps});
  const double seconds = clock.seconds();
  if (!status.ok()) {
    std::fprintf(stderr, "%-14s %-12s diverged at step %llu\n", setup.name.c_str(), method.c_str(),
                 static_cast<unsigned long long>(chain.steps_done - 1));
    return {{"method", method}, {"curve", curve}, {"final_rmse", nullptr}, {"diverged", true}, {"steps", chain.steps_done}};
  }
  const double final_rmse = curve.back()["rmse"];
  std::fprintf(stderr, "%-14s %-12s RMSE %.4f  (%.1f s, %llu steps)\n", setup.name.c_str(), method.c_str(), final_rmse, seconds,
               static_cast<unsigned long long>(steps));
  return {{"method", method}, {"curve", curve}, {"final_rmse", final_rmse}, {"diverged", false}, {"seconds", seconds},
          {"steps", steps}};
}

struct Run {
  double tau;
  std::size_t batch;
  double epochs;
  double burn_in_fraction;
};

// One method at learning rate η, in the paper's momentum parametrisation (§3.3): SGHMC with h = sqrt(η),
// friction C = α/h, V̂ = 0; SGLD with step size η/α (SGD-with-momentum's terminal speed, so its drift per
// step matches); SGD at η; SGD with momentum α at η.
// The optimisers (no Gibbs step) keep every block precision fixed at `precision`: a Gibbs step on λ given
// a noiseless optimiser's small initial factors locks λ high and the factors at zero (the model
// collapses to the bias model), so their λ is a tuned constant instead.
json run_named(const std::string& method, double eta, const Setup& s, const Run& run, std::uint64_t seed,
               double precision = 1.0) {
  constexpr double alpha = 0.1;
  const Euclidean space(models::Bpmf{s.train, 20, run.tau, 0.0, {}}.dim());
  const auto steps = static_cast<std::uint64_t>(run.epochs * double(s.train->size()) / double(run.batch));
  const auto burn_in = static_cast<std::uint64_t>(run.burn_in_fraction * double(steps));
  json r;
  if (method == "sghmc") {
    const double h = std::sqrt(eta);
    const sghmc::Sampler<Euclidean> smp{{space, sghmc::Friction(alpha / h), 0.0}, splitting::aboba, schedule::StepSize::constant(h)};
    r = run_method(method, smp, s, run.tau, run.batch, run.epochs, true, burn_in, 100, seed);
  } else if (method == "sgld") {
    const sgld::Sampler<Euclidean> smp{space, schedule::StepSize::constant(eta / alpha), 0.0};
    r = run_method(method, smp, s, run.tau, run.batch, run.epochs, true, burn_in, 100, seed);
  } else if (method == "sgd") {
    r = run_method(method, experiments::Sgd{eta, 0.0}, s, run.tau, run.batch, run.epochs, false, 0, 0, seed, precision);
    r["precision"] = precision;
  } else {
    r = run_method(method, experiments::Sgd{eta, alpha}, s, run.tau, run.batch, run.epochs, false, 0, 0, seed, precision);
    r["precision"] = precision;
  }
  r["learning_rate"] = eta;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"BPMF on MovieLens (SGHMC paper §4.3): test RMSE against passes for SGHMC, SGLD, SGD, SGD with momentum "
               "and the bias model, on a random and a time-ordered split. Environment: BPMF_TAU, BPMF_BATCH, BPMF_EPOCHS"};
  std::string ratings_csv, out_path;
  bool quick = false;
  app.add_option("RATINGS_CSV", ratings_csv, "userId,movieId,rating,timestamp (scripts/data.sh movielens)")->required();
  app.add_option("OUT_JSON", out_path, "where to write the results")->required();
  app.add_flag("--quick", quick, "10 passes instead of 1000");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    const auto all = data::load_ratings_csv(ratings_csv);
    std::fprintf(stderr, "%s: %zu ratings, %u users, %u items\n", ratings_csv.c_str(), all.size(), all.n_users, all.n_items);
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
    const auto env = [](const char* name, double fallback) { return std::getenv(name) ? std::atof(std::getenv(name)) : fallback; };
    const Run run{env("BPMF_TAU", 3.0), static_cast<std::size_t>(env("BPMF_BATCH", 4000)),
                  env("BPMF_EPOCHS", quick ? 10 : 1000), 0.1};
    // Each method gets its own learning rate: the one of this grid with the lowest RMSE on a validation
    // split of the training ratings (10%, split the same way as the test set); one shared η made either
    // the optimisers diverge or the samplers mix too slowly to average out their draws.
    const std::vector<double> grid = {1e-6, 3e-6, 1e-5, 3e-5, 1e-4, 3e-4};
    const std::vector<std::string> methods_list = {"sghmc", "sgld", "sgd", "sgd_momentum"};
    json out = {{"experiment", "bpmf"}, {"data", ratings_csv}, {"ratings", all.size()}, {"users", all.n_users}, {"items", all.n_items},
                {"latent", 20}, {"tau", run.tau}, {"batch_size", run.batch}, {"epochs", run.epochs},
                {"burn_in_fraction", run.burn_in_fraction}, {"gibbs_every", "100 (samplers); optimisers: fixed precisions from the grid {1, 10, 100}"}, {"momentum_decay", 0.1},
                {"learning_rate_grid", grid}, {"splits", json::array()}};
    for (const auto& s : setups) {
      const auto biases = models::fit_biases(*s.train);
      Eigen::VectorXd pred(static_cast<Eigen::Index>(s.test->size()));
      const double mu = s.train->mean();
      for (std::size_t k = 0; k < s.test->size(); ++k)
        pred[static_cast<Eigen::Index>(k)] = mu + biases[s.test->user[k]] + biases[s.train->n_users + s.test->item[k]];
      const double bias_rmse = models::rmse(*s.test, pred);
      std::fprintf(stderr, "%-14s %-12s RMSE %.4f\n", s.name.c_str(), "bias", bias_rmse);
      auto [fit, valid] = s.sampling == models::Sampling::time_ordered ? data::split_by_time(*s.train, 0.1)
                                                                        : data::split(*s.train, 0.1, 2);
      const Setup tuning{s.name + " (valid)", std::make_shared<const data::Ratings>(std::move(fit)),
                         std::make_shared<const data::Ratings>(std::move(valid)), s.sampling};
      json methods = json::array(), tuned = json::object();
      std::uint64_t seed = 11;
      for (const auto& m : methods_list) {
        // (validation RMSE, η, λ) of the settings that did not diverge. Optimisers: λ from a grid too.
        std::vector<std::tuple<double, double, double>> ranked;
        json tries = json::array();
        const bool optimiser = m == "sgd" || m == "sgd_momentum";
        for (const double lambda : optimiser ? std::vector<double>{1, 10, 100} : std::vector<double>{1})
          for (const double eta : grid) {
            if (optimiser && eta > 3e-5) continue;  // diverged for both optimisers on both splits
            const json r = run_named(m, eta, tuning, run, seed, lambda);
            const bool ok = !r["diverged"].get<bool>();
            tries.push_back({{"learning_rate", eta}, {"precision", optimiser ? json(lambda) : json("gibbs")},
                             {"valid_rmse", ok ? r["final_rmse"] : json(nullptr)}});
            if (ok) ranked.emplace_back(r["final_rmse"].get<double>(), eta, lambda);
          }
        std::sort(ranked.begin(), ranked.end());
        // The best setting on validation; should it diverge on the whole training set (more ratings per
        // user in a time window), the next best, and so on — each attempt is recorded.
        json final_run, attempts = json::array();
        for (const auto& [valid_rmse, eta, lambda] : ranked) {
          final_run = run_named(m, eta, s, run, seed, lambda);
          attempts.push_back({{"learning_rate", eta}, {"diverged", final_run["diverged"]}});
          if (!final_run["diverged"].get<bool>()) break;
        }
        if (ranked.empty()) final_run = {{"method", m}, {"diverged", true}, {"final_rmse", nullptr}, {"curve", json::array()}};
        tuned[m] = {{"grid", tries}, {"final_attempts", attempts}};
        methods.push_back(final_run);
        ++seed;
      }
      out["splits"].push_back({{"split", s.name}, {"train", s.train->size()}, {"test", s.test->size()},
                               {"bias_baseline_rmse", bias_rmse}, {"tuning", tuned}, {"methods", methods}});
    }
    out["peak_rss_mb"] = experiments::peak_rss_mb();
    run::write_json_file(out, out_path, 1);
    std::fprintf(stderr, "wrote %s (peak RSS %.0f MB)\n", out_path.c_str(), experiments::peak_rss_mb());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bpmf_experiment: error: %s\n", e.what());
    return 1;
  }
}
