// The Bayesian neural net of the SGHMC paper §4.2 / App. H.1 / Fig. 4 on Fashion-MNIST (the paper used
// MNIST; the full 70k MNIST is not available here, and Fashion-MNIST has the same 784/10 shape but is
// harder): 784–100–10, sigmoid hidden layer, softmax, Gamma(1, 1) hyperpriors on the two layer
// precisions resampled by a Gibbs step every 100 steps, minibatches of 500. Test error against passes
// over the 60,000 training images and against wall time, for SGHMC, SGLD, SGD and SGD with momentum,
// and cyclical SGHMC (Zhang et al. 2020, cSG-MCMC: cosine cycles whose first part is SGD with momentum;
// the variants are listed at all_methods).
// Samplers report the running posterior-predictive mean (class probabilities averaged over the draws
// taken at every evaluation after burn-in, or in cSGHMC's sampling stages); the optimisers report
// their current point. Each is scored by test error, negative log-likelihood and expected calibration
// error (data/classification_scores.hpp).
// The batch gradient is cut into 2 fixed parts computed on `--threads` threads and summed in part
// order (models/bnn.hpp), so the numbers do not depend on the thread count.
// Every run goes through the library's driver (driver/chain.hpp); the Gibbs step, the held-out
// evaluations and their clock are observers of it (driver/evaluation.hpp).
// Usage: bnn_experiment FASHION_MNIST_DIR OUT_JSON [--epochs E] [--threads T] [--methods M,...] [--time-epoch] [--quick]
//   --time-epoch: time one pass of SGHMC on 1 and on 2 threads, write that to OUT_JSON and stop.
//   --quick: 2 passes.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/models/bnn.hpp>
#include <sgmcmc/data/classification_scores.hpp>
#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/data/idx.hpp>
#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/driver/evaluation.hpp>
#include <sgmcmc/run/json_file.hpp>
#include <sgmcmc/samplers/sghmc.hpp>
#include <sgmcmc/samplers/sgld.hpp>

#include "baselines.hpp"
#include "resources.hpp"

using namespace sgmcmc;
using json = nlohmann::json;
using Set = std::shared_ptr<const data::Dataset<float>>;

namespace {

constexpr std::size_t batch = 500;
// sghmc, sgld: the SGHMC paper's samplers with its Gibbs step on the layer precisions λ. csghmc:
// cSG-MCMC's cyclical SGHMC at the fixed prior λ = 1 (as that paper's fixed Gaussian prior, and as
// the optimisers); csghmc_gibbs: the same cycles with the Gibbs step in the sampling stages;
// sghmc_fixed_prior: SGHMC at λ = 1 (isolates the cycles' effect from the prior's); sgd, sgd_momentum:
// the optimisers at λ = 1, learning rates tuned on a validation split.
const std::vector<std::string> all_methods = {"sghmc", "sgld", "csghmc", "csghmc_gibbs", "sghmc_fixed_prior", "sgd", "sgd_momentum"};
constexpr int chunks = 2;

models::Bnn make_model(const Set& train, int threads) {
  models::Bnn m;
  m.data = train;
  m.hidden = 100, m.classes = 10;
  m.chunks = chunks, m.threads = threads;
  return m;
}

// A chain on minibatches of `model`: the initial weights are the first draws of the seed's stream, and
// the chain's engine continues that stream.
template <class S>
auto make_chain(const S& sampler, const models::Bnn& model, std::uint64_t seed) {
  random::Stream rng(seed, 0);
  Eigen::VectorXd x0 = model.initial_point(rng);
  return Chain(sampler, models::minibatch(model, batch, models::Sampling::without_replacement), std::move(x0), std::move(rng));
}

// Runs one method for `epochs` passes; evaluates every `eval_every` steps (evaluation time is not
// counted in "seconds"). Samplers average the predictive probabilities over evaluations after burn-in;
// under a cyclical schedule with exploration (`cycles`), over evaluations in the sampling stages only,
// and the Gibbs step on λ runs only there too (an exploration stage is a noiseless optimiser, and a
// Gibbs step given an optimiser's weights locks λ: see the optimisers' note in main).
template <class S>
json run_method(const std::string& method, const S& sampler, const Set& train, const Set& test, double epochs,
                bool averaging, double burn_in_epochs, int threads, std::uint64_t seed, bool gibbs = true,
                const schedule::StepSize* cycles = nullptr) {
  const auto model = make_model(train, threads);
  auto chain = make_chain(sampler, model, seed);
  const double steps_per_epoch = double(train->size()) / double(batch);
  const auto steps = static_cast<std::uint64_t>(epochs * steps_per_epoch);
  if (steps == 0) throw Error(fmt::format("{}: {} passes make no step (batches of {})", method, epochs, batch));
  const auto burn_in = static_cast<std::uint64_t>(burn_in_epochs * steps_per_epoch);
  const std::uint64_t eval_every = 40;  // a third of a pass
  const std::uint64_t gibbs_every = gibbs ? 100 : 0;  // App. H.1: λ_l every 100 steps
  Eigen::MatrixXd avg;
  double kept = 0;
  json curve = json::array();
  StopOnNonFinite divergence;
  // The Gibbs step on λ_l draws from the chain's own stream, as the published runs did (the library's
  // run/targets/gibbs.hpp draws from a substream: every number after the first Gibbs step would change).
  const auto sampling = [&](std::uint64_t step) {  // step: steps done; the last one was step − 1 (0-based)
    return cycles ? !cycles->explores(step - 1) : step > burn_in;
  };
  auto gibbs_step = [&](const StepEvent& e) {
    if (gibbs_every != 0 && e.step % gibbs_every == 0 && !divergence.diverged && (!cycles || sampling(e.step)))
      model.gibbs(e.position, chain.rng);
    return Control::proceed;
  };
  SamplingClock clock;
  Eigen::MatrixXd now;
  data::ClassificationScores last;
  auto evaluate = [&](const StepEvent& e) {
    if (divergence.diverged) return;
    const bool average = averaging && sampling(e.step);
    if (average) {
      model.error_rate(e.position, *test, &avg, kept);
      kept += 1;
    } else {
      model.error_rate(e.position, *test, &now, 0);
    }
    // A sampler's score is its predictive mean's once it has one (before: the current point's).
    last = data::score_classifier(kept > 0 ? avg : now, test->y);
    curve.push_back({{"pass", double(e.step) / steps_per_epoch}, {"seconds", clock.seconds()}, {"error", last.error},
                     {"nll", last.nll}, {"ece", last.ece}, {"averaged", kept > 0}});
  };
  clock.restart();
  const ChainStatus status =
      chain.run(Retention::none(), StopAfter{steps}, divergence, gibbs_step, Every{eval_every, evaluate, &clock, steps});
  const double seconds = clock.seconds();
  if (!status.ok()) {  // too large a learning rate: recorded, and never chosen by the tuning
    std::fprintf(stderr, "%-13s diverged: %s\n", method.c_str(), status.error.c_str());
    return {{"method", method}, {"curve", curve}, {"final_error", nullptr}, {"diverged", true}, {"error", status.error},
            {"seconds", seconds}, {"steps", chain.steps_done}, {"predictive_draws", kept}};
  }
  std::fprintf(stderr, "%-13s test error %.4f, NLL %.4f, ECE %.4f  (%.1f s sampling, %llu steps, %.0f predictive draws)\n",
               method.c_str(), last.error, last.nll, last.ece, seconds, static_cast<unsigned long long>(steps), kept);
  return {{"method", method}, {"curve", curve}, {"final_error", last.error}, {"final_nll", last.nll}, {"final_ece", last.ece},
          {"seconds", seconds}, {"steps", steps}, {"predictive_draws", kept}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The Bayesian neural net of the SGHMC paper (§4.2) on Fashion-MNIST: test error against passes and "
               "seconds for SGHMC, SGLD, cyclical SGHMC, SGD and SGD with momentum"};
  std::string data_dir, out_path;
  double epochs = 20;
  int threads = 2;
  bool time_epoch = false, quick = false;
  app.add_option("FASHION_MNIST_DIR", data_dir, "folder of the Fashion-MNIST IDX files (scripts/data.sh fashion-mnist)")->required();
  app.add_option("OUT_JSON", out_path, "where to write the results")->required();
  // Not CLI::PositiveNumber: its message prints the whole range of a double.
  const CLI::Validator positive(
      [](std::string& s) { return std::atof(s.c_str()) > 0 ? std::string() : "expected a positive number, got " + s; }, "POSITIVE");
  app.add_option("--epochs", epochs, "passes over the training images")->check(positive);
  app.add_option("--threads", threads, "threads for the batch gradient's parts (the numbers do not depend on it)")->check(positive);
  app.add_flag("--time-epoch", time_epoch, "time one pass of SGHMC on 1 and on 2 threads, write that to OUT_JSON and stop");
  app.add_flag("--quick", quick, "2 passes (overrides --epochs)");
  std::vector<std::string> methods = all_methods;
  app.add_option("--methods", methods, "the methods to run, comma-separated (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember(all_methods));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (quick) epochs = 2;
  try {
    const Set train = std::make_shared<const data::Dataset<float>>(data::load_fashion_mnist(data_dir, "train"));
    const Set test = std::make_shared<const data::Dataset<float>>(data::load_fashion_mnist(data_dir, "t10k"));
    std::fprintf(stderr, "%s: %zu training, %zu test images of %ld pixels\n", data_dir.c_str(), train->size(), test->size(),
                 static_cast<long>(train->dim()));
    const Euclidean space(make_model(train, 1).dim());
    // One learning rate η and momentum decay α for every method, in the paper's momentum
    // parametrisation (§3.3, Eq. 15): SGHMC with h = √η, C = α/h, V̂ = 0; SGLD with step η/α (its drift
    // per step is SGD-with-momentum's terminal speed); SGD at η/α; SGD with momentum (η, α).
    // η = 0.1/N (1.7·10⁻⁶ here, the order of App. H.1's 2·10⁻⁶), α = 0.1: the settings of
    // tests/data/bnn_stat.cpp, not tuned on the test set.
    const double N = double(train->size()), eta = 0.1 / N, alpha = 0.1, h = std::sqrt(eta);
    const sghmc::Sampler<Euclidean> sghmc_s{{space, sghmc::Friction(alpha / h), 0.0}, splitting::aboba, schedule::StepSize::constant(h)};
    if (time_epoch) {
      json out = {{"experiment", "bnn_time_epoch"}, {"batch_size", batch}, {"chunks", chunks}, {"runs", json::array()}};
      for (int t : {1, 2, 1, 2}) {
        auto chain = make_chain(sghmc_s, make_model(train, t), 11);
        const auto t0 = std::chrono::steady_clock::now();
        const ChainStatus status = chain.run(Retention::none(), StopAfter{train->size() / batch});
        const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!status.ok()) throw Error(status.error);
        const double checksum = chain.position().sum();
        std::fprintf(stderr, "threads %d: %.2f s per epoch (checksum %.17g)\n", t, sec, checksum);
        out["runs"].push_back({{"threads", t}, {"seconds_per_epoch", sec}, {"checksum", checksum}});
      }
      run::write_json_file(out, out_path, 1);
      return 0;
    }
    const double burn_in = std::min(5.0, epochs / 4);
    json out = {{"experiment", "bnn"}, {"data", data_dir}, {"train", train->size()}, {"test", test->size()},
                {"architecture", {784, 100, 10}}, {"batch_size", batch}, {"epochs", epochs}, {"eta", eta}, {"alpha", alpha},
                {"burn_in_epochs", burn_in}, {"gibbs_every", 100}, {"threads", threads}, {"chunks", chunks},
                {"methods", json::array()}};
    const auto wanted = [&](const std::string& m) { return std::find(methods.begin(), methods.end(), m) != methods.end(); };
    if (wanted("sghmc")) out["methods"].push_back(run_method("sghmc", sghmc_s, train, test, epochs, true, burn_in, threads, 11));
    const sgld::Sampler<Euclidean> sgld_s{space, schedule::StepSize::constant(eta / alpha), 0.0};
    if (wanted("sgld")) out["methods"].push_back(run_method("sgld", sgld_s, train, test, epochs, true, burn_in, threads, 12));
    // Cyclical SGHMC (cSG-MCMC, Zhang et al. 2020, Eq. 1 and §3): M = 4 cosine cycles over the run, the
    // first β = 0.8 of each an exploration stage (SGD with momentum: no noise, no draws), the rest
    // sampling. Peak step a = 2h, so the cycle's mean step is SGHMC's h; the same friction C. Chosen
    // before the run, not tuned on the test set.
    const auto total_steps = static_cast<std::uint64_t>(epochs * double(train->size()) / double(batch));
    const int cycle_count = 4;
    const double explore = 0.8;
    const schedule::StepSize cycles =
        schedule::StepSize::cyclical(2 * h, (total_steps + cycle_count - 1) / cycle_count, explore);
    const sghmc::Sampler<Euclidean> csghmc_s{{space, sghmc::Friction(alpha / h), 0.0}, splitting::aboba, cycles};
    if (wanted("csghmc"))
      out["methods"].push_back(run_method("csghmc", csghmc_s, train, test, epochs, true, 0, threads, 15, false, &cycles));
    if (wanted("csghmc_gibbs"))
      out["methods"].push_back(run_method("csghmc_gibbs", csghmc_s, train, test, epochs, true, 0, threads, 15, true, &cycles));
    if (wanted("sghmc_fixed_prior"))
      out["methods"].push_back(run_method("sghmc_fixed_prior", sghmc_s, train, test, epochs, true, burn_in, threads, 11, false));
    out["csghmc"] = {{"cycles", cycle_count}, {"cycle_steps", cycles.cycle}, {"explore", explore}, {"peak_step", 2 * h},
                     {"friction", alpha / h}};
    // The optimisers find the MAP with the layer precisions fixed at the Gamma(1, 1) hyperprior's mean
    // λ = 1: a Gibbs step on λ given a noiseless optimiser's weights locks it — from the N(0, 0.01²)
    // start, λ_1 ≈ 8·10³, which holds the weights near zero (measured: validation error 0.42–0.70
    // after 5 passes at every learning rate below). The samplers' injected noise avoids that trap.
    // The optimisers also get their own learning rate: at the samplers' η they are unstable (no injected
    // noise, no predictive averaging). Each takes the rate of a grid (η/α for SGD and η for momentum,
    // times 1, 1/3, …, 1/100) with the lowest error on a validation split of the training images (10%,
    // seeded) after `tune_epochs` passes over the rest; the test set plays no part in the choice.
    if (wanted("sgd") || wanted("sgd_momentum")) {
      const double tune_epochs = std::min(5.0, epochs);
      const auto [fit_part, valid_part] = data::split(*train, 0.1, 7);
      const Set fit = std::make_shared<const data::Dataset<float>>(fit_part);
      const Set valid = std::make_shared<const data::Dataset<float>>(valid_part);
      json tuning = json::object();
      const auto tune = [&](const std::string& name, double base, double decay) {
        double best = 2.0, best_rate = base;
        json tries = json::array();
        for (const double f : {1.0, 0.3, 0.1, 0.03, 0.01}) {
          const json r = run_method(name + " (tuning)", experiments::Sgd{base * f, decay}, fit, valid, tune_epochs, false, 0,
                                    threads, 20, false);
          tries.push_back({{"learning_rate", base * f}, {"valid_error", r["final_error"]}});  // null: diverged
          if (r["final_error"].is_null()) continue;
          if (const double e = r["final_error"]; e < best) best = e, best_rate = base * f;
        }
        tuning[name] = {{"chosen", best_rate}, {"epochs", tune_epochs}, {"grid", tries}};
        return best_rate;
      };
      if (wanted("sgd")) {
        const double sgd_rate = tune("sgd", eta / alpha, 0.0);
        out["methods"].push_back(run_method("sgd", experiments::Sgd{sgd_rate, 0.0}, train, test, epochs, false, 0, threads, 13, false));
      }
      if (wanted("sgd_momentum")) {
        const double momentum_rate = tune("sgd_momentum", eta, alpha);
        out["methods"].push_back(
            run_method("sgd_momentum", experiments::Sgd{momentum_rate, alpha}, train, test, epochs, false, 0, threads, 14, false));
      }
      out["optimiser_tuning"] = tuning;
      out["optimiser_precisions"] = "fixed at 1 (no Gibbs step)";
    }
    out["peak_rss_mb"] = experiments::peak_rss_mb();
    run::write_json_file(out, out_path, 1);
    std::fprintf(stderr, "wrote %s (peak RSS %.0f MB)\n", out_path.c_str(), experiments::peak_rss_mb());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bnn_experiment: error: %s\n", e.what());
    return 1;
  }
}
