// Seconds per epoch of SGHMC (ABOBA, scalar friction, V̂ = 0) on the library's real data models, for the
// comparison with a PyTorch peer (bench/peers/torch_epochs.py; driver scripts/bench_peers.sh; issue #16):
//   bnn       784–100–10 net on Fashion-MNIST, batch 500, η = 0.1/N, α = 0.1, h = √η, C = α/h
//             (experiments/real/bnn.cpp); f64 (models::Bnn) or f32 (models::BasicBnn<float>)
//   logistic  synthetic X ~ N(0, 1), β ~ N(0, 0.3²), y ~ Bernoulli(σ(Xβ)), batch 100, prior sd 1
//   bpmf      MovieLens ratings, D = 20, τ = 3, batch 1000, η = 3·10⁻⁵ (bpmf_eta), α = 0.1, h = √η,
//             C = α/h
// One warm-up epoch, then K timed epochs (one epoch = ⌊N/batch⌋ steps), each the wall time of
// chain.run(Retention::none(), StopAfter{steps}) — the way experiments/real/bnn.cpp times a pass.
// With --check-dir the program also writes the equivalence check the peer must reproduce: a fixed θ₀,
// one batch's indices and the library's stochastic gradient there (prior + (N/n)·Σ_batch), plus a JSON
// header with every setting the peer needs (so both sides run the same configuration from one place).
// Usage: bench_epochs bnn|logistic|bpmf --out JSON [--precision f64|f32] [--threads T] [--epochs K]
//        [--quick] [--check-dir DIR] [--data PATH] [--dim D] [--eta η] [--label NAME]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/models/bnn.hpp>
#include <sgmcmc/models/bpmf.hpp>
#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/data/idx.hpp>
#include <sgmcmc/data/ratings.hpp>
#include <sgmcmc/models/logistic.hpp>
#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/run/json_file.hpp>
#include <sgmcmc/samplers/sghmc.hpp>

using namespace sgmcmc;
using json = nlohmann::json;

namespace {

struct Options {
  std::string model, precision = "f64", out, check_dir, data, label = "default";
  int threads = 1, epochs = 3;
  double eta = 0;  ///< bpmf: the learning rate η (0: the default below)
  Eigen::Index dim = 50;
  bool quick = false;
};

constexpr std::size_t quick_steps = 20;  // --quick: an "epoch" of 20 steps, for smoke tests only
constexpr std::uint64_t chain_seed = 11, check_seed = 97, data_seed = 2024;
// BPMF's η: SGHMC's tuned 10⁻⁴ (docs/reproductions.md) was for batches of 4000; at 1000 the N/n-scaled
// gradient is 4× larger and the chain diverged within the first pass, 3·10⁻⁵ (the grid's next value) ran
// 30 passes.
constexpr double bpmf_eta = 3e-5;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void write_raw(const std::string& path, const void* data, std::size_t bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!f) throw Error(fmt::format("{}: could not write {} bytes", path, bytes));
}

// The SGHMC sampler every model runs: ABOBA, scalar friction C, V̂ = 0, constant step h.
sghmc::Sampler<Euclidean> make_sampler(Eigen::Index dim, double h, double c) {
  return {{Euclidean(dim), sghmc::Friction(c), 0.0}, splitting::aboba, schedule::StepSize::constant(h)};
}

// One warm-up epoch, then K timed epochs on the same chain (it keeps going: later epochs see a
// trained-in state, as in a real run). Throws if the chain diverges.
template <class Model>
json time_epochs(const Model& model, Eigen::VectorXd x0, std::size_t batch, double h, double c, const Options& o) {
  const std::size_t N = model.size();
  const std::uint64_t steps = o.quick ? quick_steps : N / batch;
  random::Stream rng(chain_seed, 0);
  const auto dim = static_cast<Eigen::Index>(x0.size());  // before x0 is moved from (argument order is unspecified)
  Chain chain(make_sampler(dim, h, c), models::minibatch(model, batch, models::Sampling::without_replacement),
              std::move(x0), std::move(rng));
  std::vector<double> seconds;
  for (int e = 0; e <= o.epochs; ++e) {
    const auto t0 = std::chrono::steady_clock::now();
    const ChainStatus status = chain.run(Retention::none(), StopAfter{steps});
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!status.ok()) throw Error(fmt::format("{}: the chain failed in epoch {}: {}", o.model, e, status.error));
    if (!chain.position().allFinite()) throw Error(fmt::format("{}: the chain diverged in epoch {}", o.model, e));
    if (e > 0) seconds.push_back(s);  // epoch 0 is the warm-up (first-touch of buffers, thread pool start)
    std::fprintf(stderr, "  %s %s threads %d (%s build): epoch %d%s %.3f s\n", o.model.c_str(), o.precision.c_str(), o.threads,
                 o.label.c_str(), e, e == 0 ? " (warm-up)" : "", s);
  }
  // The model's share of an epoch: the same number of stochastic gradients (batches drawn as the chain
  // draws them, prior term included) at the chain's last position, without the sampler's update and
  // noise. What a float model can save is bounded by this share (docs/benchmarks.md).
  const auto potential = models::minibatch(model, batch, models::Sampling::without_replacement);
  random::Stream grad_rng(chain_seed, 1);
  const Eigen::VectorXd at = chain.position();
  Eigen::VectorXd g(at.size());
  std::vector<double> gradient_seconds;
  for (int e = 0; e < o.epochs; ++e) {
    const auto t0 = std::chrono::steady_clock::now();
    for (std::uint64_t k = 0; k < steps; ++k) potential.gradient(at, g, grad_rng);
    gradient_seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  if (!g.allFinite()) throw Error(fmt::format("{}: a non-finite gradient at the chain's last position", o.model));
  const double model_share = median(gradient_seconds) / median(seconds);
  std::fprintf(stderr, "  gradients alone: %.3f s per epoch (%.0f %% of the epoch)\n", median(gradient_seconds), 100 * model_share);
  return {{"seconds_per_epoch", seconds}, {"median", median(seconds)}, {"steps_per_epoch", steps}, {"N", N},
          {"batch", batch}, {"h", h}, {"friction", c}, {"quick", o.quick},
          {"gradient_seconds_per_epoch", gradient_seconds}, {"gradient_median", median(gradient_seconds)},
          {"model_share", model_share}};
}

// The equivalence check: θ₀, the indices of batch 0 of stream (check_seed, 0) without replacement and
// the library's minibatch gradient there, through the potential's public parts (the same sum
// Minibatch::gradient makes: prior gradient, then the batch term scaled by N/n).
template <class Model>
void write_check(const Model& model, const Eigen::VectorXd& theta, std::size_t batch, json header, const Options& o) {
  const auto p = models::minibatch(model, batch, models::Sampling::without_replacement);
  std::vector<std::size_t> idx;
  models::batch_indices(0, batch, model.size(), models::Sampling::without_replacement, check_seed, 0, idx);
  Eigen::VectorXd g = Eigen::VectorXd::Zero(theta.size());
  p.model.add_prior_gradient(theta, g);
  p.add_batch(theta, idx, g, p.batch_scale());
  const std::string tag = header["tag"].get<std::string>();
  const std::string stem = std::filesystem::absolute(fmt::format("{}/check_{}_{}", o.check_dir, tag, o.precision)).string();
  const std::vector<std::int64_t> idx64(idx.begin(), idx.end());
  write_raw(stem + ".theta.f64", theta.data(), sizeof(double) * static_cast<std::size_t>(theta.size()));
  write_raw(stem + ".idx.i64", idx64.data(), sizeof(std::int64_t) * idx64.size());
  write_raw(stem + ".grad.f64", g.data(), sizeof(double) * static_cast<std::size_t>(g.size()));
  header["precision"] = o.precision;
  header["dim"] = theta.size();
  header["batch"] = batch;
  header["N"] = model.size();
  header["scale"] = p.batch_scale();
  header["theta"] = stem + ".theta.f64";
  header["indices"] = stem + ".idx.i64";
  header["gradient"] = stem + ".grad.f64";
  header["gradient_max_abs"] = g.cwiseAbs().maxCoeff();
  run::write_json_file(header, stem + ".json", 1);
  std::fprintf(stderr, "  wrote %s.json (max |g| = %.6g)\n", stem.c_str(), g.cwiseAbs().maxCoeff());
}

// A fixed, non-trivial point: every coordinate N(0, sd²) (weights and biases alike).
Eigen::VectorXd check_point(Eigen::Index dim, double sd) {
  random::Stream rng(check_seed, 1);
  Eigen::VectorXd th(dim);
  rng.normals(th);
  return sd * th;
}

// The BNN at float (models::BasicBnn<float>) or double (models::Bnn) arithmetic; the sampler's θ is
// double either way.
template <class S>
json run_bnn(const Options& o) {
  using Model = models::BasicBnn<S>;
  const std::string dir = o.data.empty() ? data::fashion_mnist_dir : o.data;
  auto train = std::make_shared<const data::Dataset<float>>(data::load_fashion_mnist(dir, "train"));
  Model m;
  m.data = train;
  m.hidden = 100, m.classes = 10;
  m.chunks = m.threads = o.threads;  // what the CLI's `threads` field sets
  constexpr std::size_t batch = 500;
  const double N = double(train->size()), eta = 0.1 / N, alpha = 0.1, h = std::sqrt(eta), c = alpha / h;
  const json header = {{"model", "bnn"}, {"tag", "bnn"}, {"data", std::filesystem::absolute(dir).string()},
                       {"in", m.in()}, {"hidden", m.hidden},
                       {"classes", m.classes}, {"prior_precisions", {1.0, 1.0}}, {"h", h}, {"friction", c}};
  if (!o.check_dir.empty()) {
    Model one = m;  // the check on one part: the batch sum in one order (chunks only reorders it)
    one.chunks = one.threads = 1;
    write_check(one, check_point(m.dim(), 0.1), batch, header, o);
  }
  random::Stream init(chain_seed, 0);
  json r = time_epochs(m, m.initial_point(init), batch, h, c, o);
  r["d"] = m.dim();
  r["config"] = header;
  return r;
}

json run_logistic(const Options& o) {
  const Eigen::Index d = o.dim;
  const std::size_t N = d <= 50 ? 100000 : 20000;  // d = 50: N = 10⁵; d = 1000: N = 2·10⁴ (160 MB)
  // Synthetic data from one seeded stream: X ~ N(0, 1), β ~ N(0, 0.3²), y ~ Bernoulli(σ(Xβ)).
  auto set = std::make_shared<data::Dataset<double>>();
  {
    random::Stream rng(data_seed, static_cast<std::uint32_t>(d));
    Eigen::VectorXd beta(d);
    rng.normals(beta);
    beta *= 0.3;
    set->x.resize(d, static_cast<Eigen::Index>(N));
    rng.normals(set->x.data(), set->x.size());
    set->y.resize(static_cast<Eigen::Index>(N));
    for (Eigen::Index i = 0; i < static_cast<Eigen::Index>(N); ++i)
      set->y[i] = rng.uniform() < 1.0 / (1.0 + std::exp(-beta.dot(set->x.col(i)))) ? 1 : 0;
    set->source = fmt::format("synthetic logistic (N = {}, d = {}, seed = {})", N, d, data_seed);
  }
  const models::LogisticRegression m{set, 1.0};
  constexpr std::size_t batch = 100;
  // A sane SGHMC run: the posterior's curvature is ~N/4 per direction, so h = 0.1/√N keeps h·√λ ≲ 0.05.
  const double h = 0.1 / std::sqrt(double(N)), c = 10.0;
  const std::string tag = fmt::format("logistic_d{}", d);
  json header = {{"model", "logistic"}, {"tag", tag}, {"d", d}, {"prior_sd", m.prior_sd}, {"h", h}, {"friction", c}};
  if (!o.check_dir.empty()) {
    // The data for the peer: float64, row-major N × d (the d × N column-major matrix's memory), then
    // the N labels as float64.
    const std::string path = std::filesystem::absolute(fmt::format("{}/{}.f64", o.check_dir, tag)).string();
    std::vector<double> buf(set->x.data(), set->x.data() + set->x.size());
    for (Eigen::Index i = 0; i < set->y.size(); ++i) buf.push_back(double(set->y[i]));
    write_raw(path, buf.data(), sizeof(double) * buf.size());
    header["data"] = path;
    write_check(m, check_point(d, 0.1), batch, header, o);
  }
  json r = time_epochs(m, Eigen::VectorXd::Zero(d), batch, h, c, o);
  r["d"] = d;
  r["config"] = header;
  return r;
}

json run_bpmf(const Options& o) {
  if (o.data.empty()) throw Error("bpmf: --data RATINGS_CSV is required (scripts/data.sh movielens prints it)");
  auto ratings = std::make_shared<const data::Ratings>(data::load_ratings_csv(o.data));
  const models::Bpmf m{ratings, 20, 3.0, ratings->mean(), std::make_shared<models::BpmfPrecisions>()};
  constexpr std::size_t batch = 1000;
  const double eta = o.eta > 0 ? o.eta : bpmf_eta, alpha = 0.1, h = std::sqrt(eta), c = alpha / h;
  const json header = {{"model", "bpmf"}, {"tag", "bpmf"}, {"data", std::filesystem::absolute(o.data).string()},
                       {"users", m.users()}, {"items", m.items()},
                       {"latent", m.latent}, {"tau", m.tau}, {"mean", m.mean}, {"prior_precisions", {1.0, 1.0, 1.0, 1.0}},
                       {"h", h}, {"friction", c}};
  if (!o.check_dir.empty()) write_check(m, check_point(m.dim(), 0.1), batch, header, o);
  random::Stream init(chain_seed, 0);
  json r = time_epochs(m, m.initial_point(init), batch, h, c, o);
  r["d"] = m.dim();
  r["config"] = header;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Seconds per epoch of SGHMC on the library's BNN, logistic regression and BPMF (bench/peers/README.md)"};
  Options o;
  app.add_option("MODEL", o.model, "bnn, logistic or bpmf")->required()->check(CLI::IsMember({"bnn", "logistic", "bpmf"}));
  app.add_option("--out", o.out, "the JSON to write")->required();
  app.add_option("--precision", o.precision, "f64, or f32 (bnn only: models::BasicBnn<float>)")
      ->check(CLI::IsMember({"f64", "f32"}));
  app.add_option("--threads", o.threads, "the model's threads and chunks (bnn)")->check(CLI::Range(1, 64));
  app.add_option("--epochs", o.epochs, "timed epochs after the warm-up one")->check(CLI::Range(1, 1000));
  app.add_option("--dim", o.dim, "logistic: d (50 → N = 100,000; 1000 → N = 20,000)")->check(CLI::Range(1, 100000));
  app.add_option("--eta", o.eta, fmt::format("bpmf: the learning rate η = h² (default {})", bpmf_eta))
      ->check(CLI::PositiveNumber);
  app.add_option("--data", o.data, "bnn: the Fashion-MNIST folder; bpmf: ratings.csv");
  app.add_option("--check-dir", o.check_dir, "write the equivalence check (and logistic's data) into this folder");
  app.add_option("--label", o.label, "the build's name in the output (default, portable)");
  app.add_flag("--quick", o.quick, "20 steps per epoch: a smoke test, not a measurement");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    if (o.precision == "f32" && o.model != "bnn") throw Error("--precision f32: only the bnn has a float model");
    json r = o.model == "bnn" ? (o.precision == "f32" ? run_bnn<float>(o) : run_bnn<double>(o))
             : o.model == "logistic" ? run_logistic(o)
                                     : run_bpmf(o);
    r["side"] = "sgmcmc";
    r["build"] = o.label;
    r["model"] = o.model == "logistic" ? fmt::format("logistic_d{}", o.dim) : o.model;
    r["precision"] = o.precision;
    r["threads"] = o.threads;
    run::write_json_file(r, o.out, 1);
    std::fprintf(stderr, "  median %.4f s per epoch -> %s\n", r["median"].get<double>(), o.out.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_epochs: error: %s\n", e.what());
    return 1;
  }
}
