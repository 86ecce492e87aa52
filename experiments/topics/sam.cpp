// The spherical admixture model (SAM) on SpamAssassin (issue #6; SGGMC paper, Liu, Zhu & Song 2016,
// §5.3 / Fig. 5): held-out log-perplexity against wall-clock seconds and against documents processed
// for SGGMC and gSGNHT (minibatch 50 and full batch) and the GMC baselines GMC-bGibbs and GMC-apprMH.
// 20News-different is replaced by the SpamAssassin "three different groups" set, Wikipedia by all
// SpamAssassin mails (shared/DATA.md: neither 20 Newsgroups nor Wikipedia is available here).
//
// Pipeline: mails → tokens → top-V vocabulary of the training documents → tf-idf rows with unit norm
// (points of S^{V−1}; idf fitted on the training documents). Seeded 80/20 train/test split; step sizes are
// chosen on a seeded 80/20 validation split of the training documents (never on the test set).
// Each method runs for a wall-clock budget (only the sampler's own time is counted; evaluation is
// excluded); at a fixed interval of sampler time the current β is evaluated and, after a burn-in of the
// first 20% of the budget, kept: the reported log-perplexity is the authors' `lbaylog` (sam.hpp's
// log_perplexity) over all kept β so far, accumulated incrementally (checked against log_perplexity).
// Writes OUT/sam_<set>.json; experiments/topics/plot.py draws OUT/sam_<set>.png.
//   sam_experiment SPAM_DATA_DIR OUT [--quick] [--set three-groups|all-spam] [--threads T] [--topics K]
//                  [--budget SECONDS] [--validation-budget SECONDS] [--no-tune]
//                  [--choices PREVIOUS.json] [--only SUBSTRING] [--gamma VALUE] [--tag NAME] [--friction-alpha A]
//                  [--seed S] [--set pooled [--brown DIR] [--kjv FILE]]
// The SG methods are validated over γ × α, α = C·h their friction (SGGMC) or diffusion (gSGNHT) times the step,
// on the grid α ∈ {0.01 (the authors'), 0.1, 1, 10}; --friction-alpha A fixes α = A instead. --choices takes each
// method's γ (and α) from an earlier run's JSON (e.g. the small set's validated choices for the large set);
// --only runs the methods whose name contains SUBSTRING; --gamma fixes γ for all methods run (α: the grid's
// first value); --seed S (default 1) changes the initial topics and every chain's random stream (the data
// split and the validation split stay fixed); --tag writes OUT/sam_<set>_<tag>.json instead of OUT/sam_<set>.json.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/models/text/loaders.hpp>

#include "spam_corpus.hpp"
#include <sgmcmc/compositions/sam.hpp>
#include <sgmcmc/samplers/hmc.hpp>
#include <sgmcmc/samplers/sghmc.hpp>
#include <sgmcmc/samplers/sgnht.hpp>

#include "../real/resources.hpp"

using namespace sgmcmc;
using namespace sgmcmc::text;
using M = Power<Sphere>;
using Clock = std::chrono::steady_clock;

namespace {

/// The held-out log-perplexity of sam.hpp's log_perplexity, accumulated one kept β at a time: the same
/// S θ draws from Dir(α) (the first S draws of Stream(seed, 0), as log_perplexity draws them), per test
/// document the log-sum-exp over all kept (β, θ) pairs. add() also returns the current β's own value.
struct PerplexityAccumulator {
  const Sam* sam;
  const SamDocuments* test;
  Eigen::MatrixXd T;  // K × S
  std::vector<double> lse;
  std::size_t kept = 0;
  double logc;
  std::uint64_t seed;

  PerplexityAccumulator(const Sam& s, const SamDocuments& t, int S, std::uint64_t sd)
      : sam(&s), test(&t), T(s.topics, S), lse(t.size(), -std::numeric_limits<double>::infinity()),
        logc(log_vmf_normalizer(static_cast<double>(s.vocabulary()), s.hyper.kappa1)), seed(sd) {
    random::Stream rng(seed, 0);
    const Eigen::VectorXd a = Eigen::VectorXd::Constant(s.topics, s.hyper.alpha);
    for (int i = 0; i < S; ++i) T.col(i) = random::dirichlet(rng, a);
  }
  /// The log-perplexity of `beta` alone; if `keep`, β joins the average.
  double add(const Eigen::VectorXd& beta, bool keep) {
    const auto B = sam->topic_matrix(beta);
    const Eigen::MatrixXd gram = B.transpose() * B;
    const auto S = T.cols();
    Eigen::VectorXd inv_norm(S), b(sam->topics);
    for (Eigen::Index s = 0; s < S; ++s) inv_norm[s] = 1.0 / std::sqrt(T.col(s).dot(gram * T.col(s)));
    double sum = 0;
    for (std::size_t d = 0; d < test->size(); ++d) {
      test->project(B, d, b);
      double hi = -std::numeric_limits<double>::infinity();
      for (Eigen::Index s = 0; s < S; ++s) hi = std::max(hi, sam->hyper.kappa1 * T.col(s).dot(b) * inv_norm[s]);
      double acc = 0;
      for (Eigen::Index s = 0; s < S; ++s) acc += std::exp(sam->hyper.kappa1 * T.col(s).dot(b) * inv_norm[s] - hi);
      const double own = hi + std::log(acc);
      sum += own;
      if (keep) {
        const double m = std::max(lse[d], own);
        lse[d] = m + std::log(std::exp(lse[d] - m) + std::exp(own - m));
      }
    }
    if (keep) ++kept;
    return -sum / static_cast<double>(test->size()) + std::log(static_cast<double>(S)) - logc;
  }
  double value() const {
    double sum = 0;
    for (double l : lse) sum += l;
    return -sum / static_cast<double>(test->size()) + std::log(static_cast<double>(kept) * static_cast<double>(T.cols())) - logc;
  }
};

enum class Kind { sggmc, gsgnht, gmc_bgibbs, gmc_apprmh };

struct Method {
  std::string name;
  Kind kind;
  std::size_t batch;            // SG methods: minibatch size, 0 = full batch
  std::vector<double> gammas;   // the grid: h = sqrt(γ / D) (the authors' parametrisation, eps = sqrt(gamma/D))
  std::vector<double> alphas;   // SG methods: the grid of α = C·h; empty for the GMC baselines
  ThetaGmc theta;               // per-document θ sampler
  int leapfrog = 1;             // GMC baselines: leapfrog steps per β trajectory
};

struct Settings {
  SamHyper hyper;
  Eigen::Index K = 20;
  // The SG methods' grid of α = C·h (SGGMC friction C = α/h, gSGNHT diffusion A = α/h); the first is the
  // authors' btAl = 0.01. At κ1 = 3e4 their chains run hot with it (docs/reproductions.md), so α is validated.
  std::vector<double> friction_grid = {0.01, 0.1, 1.0, 10.0};
  std::uint64_t seed = 1;
  int eval_thetas = 200;         // the authors' ts_thN
  unsigned threads = 1;
  double burn_in_fraction = 0.2;
  int evaluations = 40;          // evaluation points over the budget
};

/// One chain of a method: step() advances one iteration; x() is the current β.
struct Chain {
  std::function<void(std::uint64_t)> step;
  std::function<const Eigen::VectorXd&()> x;
  std::function<nlohmann::json()> stats;
  double documents_per_step;
};

struct RunResult {
  nlohmann::json curve;
  double final_log_perplexity = std::numeric_limits<double>::quiet_NaN();
  std::string failure;
};

/// The θ step controller: the per-document GMC's step is scaled after every iteration toward an
/// acceptance in [0.6, 0.8] (×0.8 below, ×1.1 above; within [1e-6, 1e-2]). The θ posterior sharpens as the
/// topics separate (at the initial topics 1e-3 is accepted 98% of the time; at fitted ones a few %), and a
/// rejected θ chain leaves the gradient at its plug-in start. Each θ chain is MH-corrected for any step,
/// and the step depends only on the chain's past (never on the thread count).
void adapt_theta_step(Sam& sam, std::uint64_t accepted, std::uint64_t proposals) {
  if (proposals == 0) return;
  const double a = static_cast<double>(accepted) / static_cast<double>(proposals);
  double& h = sam.theta.step_size;
  if (a < 0.6) h = std::max(1e-6, 0.8 * h);
  else if (a > 0.8) h = std::min(1e-2, 1.1 * h);
}

/// Builds the chain of `m` at step parameter γ on `sam`'s documents, started at β0 with seed `seed`.
/// Holds everything by shared_ptr so the returned closures own their state.
Chain make_chain(const Method& m, double gamma, double alpha, const std::shared_ptr<const Sam>& sam_in, const Settings& st,
                 const Eigen::VectorXd& beta0, std::uint64_t seed) {
  const double D = static_cast<double>(sam_in->documents->size());
  const double h = std::sqrt(gamma / D);
  auto rng = std::make_shared<random::Stream>(seed, 1);
  auto sam = std::make_shared<Sam>(*sam_in);  // own copy: own scratch and worker pool
  sam->theta = m.theta;
  sam->batch_size = m.batch;
  sam->threads = st.threads;
  Chain c;
  if (m.kind == Kind::sggmc || m.kind == Kind::gsgnht) {
    c.documents_per_step = m.batch == 0 ? D : static_cast<double>(m.batch);
    const double C = alpha / h;
    if (m.kind == Kind::sggmc) {
      auto sampler = std::make_shared<sghmc::Sampler<M>>(sghmc::Dynamics<M>{sam->manifold(), sghmc::Friction(C)}, splitting::aboba,
                                                          schedule::StepSize::constant(h));
      auto state = std::make_shared<sghmc::Sampler<M>::State>(sampler->init(beta0, *rng));
      c.step = [=](std::uint64_t t) { sampler->step(*state, *sam, *rng, t); };
      c.x = [=]() -> const Eigen::VectorXd& { return state->x; };
    } else {
      auto sampler = std::make_shared<sgnht::Sampler<M>>(sgnht::Dynamics<M>{sam->manifold(), C}, splitting::aboba,
                                                          schedule::StepSize::constant(h));
      auto state = std::make_shared<sgnht::Sampler<M>::State>(sampler->init(beta0, *rng));
      c.step = [=](std::uint64_t t) { sampler->step(*state, *sam, *rng, t); };
      c.x = [=]() -> const Eigen::VectorXd& { return state->x; };
    }
    auto acc = std::make_shared<std::pair<std::uint64_t, std::uint64_t>>(0, 0);
    auto step = c.step;
    c.step = [=](std::uint64_t t) {
      step(t);
      acc->first += sam->last.accepted, acc->second += sam->last.proposals;
      adapt_theta_step(*sam, sam->last.accepted, sam->last.proposals);
    };
    c.stats = [=] {
      return nlohmann::json{{"step_size", h}, {"friction_or_diffusion", C}, {"theta_step_final", sam->theta.step_size},
                            {"theta_acceptance", acc->second ? double(acc->first) / double(acc->second) : 0.0}};
    };
  } else {
    c.documents_per_step = D;
    auto gmc = std::make_shared<hmc::Sampler<M>>(
        hmc::Sampler<M>{sam->manifold(), schedule::StepSize::constant(h), m.leapfrog, hmc::Gradient::exact, true});
    auto state = std::make_shared<hmc::State>(gmc->init(beta0, *rng));
    auto cond = std::make_shared<SamConditional>(SamConditional{sam.get(), {}});
    auto theta_acc = std::make_shared<std::pair<std::uint64_t, std::uint64_t>>(0, 0);
    c.step = [=](std::uint64_t t) {
      cond->redraw(state->x, *rng);  // the Gibbs block: θ | β for every document
      theta_acc->first += cond->thetas.accepted, theta_acc->second += cond->thetas.proposals;
      adapt_theta_step(*sam, cond->thetas.accepted, cond->thetas.proposals);
      gmc->step(*state, *cond, *rng, t);  // β | θ by one GMC trajectory with its MH test
    };
    c.x = [=]() -> const Eigen::VectorXd& { return state->x; };
    c.stats = [=] {
      return nlohmann::json{{"step_size", h}, {"leapfrog_steps", gmc->leapfrog_steps}, {"theta_step_final", sam->theta.step_size},
                            {"beta_acceptance", state->proposals ? double(state->accepted) / double(state->proposals) : 0.0},
                            {"divergent", state->divergent},
                            {"theta_acceptance", theta_acc->second ? double(theta_acc->first) / double(theta_acc->second) : 0.0}};
    };
  }
  return c;
}

/// Runs `chain` for `budget` seconds of sampler time, evaluating on `test` every budget/evaluations s.
RunResult run_chain(Chain& chain, const Sam& sam, const SamDocuments& test, const Settings& st, double budget, bool verbose,
                    const std::string& label) {
  PerplexityAccumulator acc(sam, test, st.eval_thetas, 77);
  const double every = budget / st.evaluations, burn = st.burn_in_fraction * budget;
  std::vector<double> secs, docs, iters, lp, lp_current;
  double elapsed = 0, next = every;
  std::uint64_t t = 0;
  RunResult r;
  std::vector<Eigen::VectorXd> first_kept;  // for the check against Sam::log_perplexity
  double check = std::numeric_limits<double>::quiet_NaN();
  while (elapsed < budget) {
    const auto t0 = Clock::now();
    try {
      chain.step(t);
    } catch (const std::exception& e) {
      r.failure = e.what();
      break;
    }
    elapsed += std::chrono::duration<double>(Clock::now() - t0).count();
    ++t;
    if (!chain.x().allFinite()) {
      r.failure = fmt::format("non-finite state at iteration {}", t);
      break;
    }
    if (elapsed >= next || elapsed >= budget) {
      next += every;
      const bool keep = elapsed > burn;
      const double own = acc.add(chain.x(), keep);
      if (keep && first_kept.size() < 3) {
        first_kept.push_back(chain.x());
        if (first_kept.size() == 3) {
          random::Stream er(77, 0);
          check = std::abs(sam.log_perplexity(first_kept, test, st.eval_thetas, er) - acc.value());
        }
      }
      const double avg = acc.kept ? acc.value() : own;
      secs.push_back(elapsed), iters.push_back(static_cast<double>(t));
      docs.push_back(static_cast<double>(t) * chain.documents_per_step);
      lp.push_back(avg), lp_current.push_back(own);
      if (verbose)
        fmt::print("  {:<22s} {:7.1f} s  iter {:6d}  docs {:9.0f}  log-perplexity {:10.2f} (current β {:10.2f}, {} kept)\n", label,
                   elapsed, t, docs.back(), avg, own, acc.kept);
      std::fflush(stdout);
    }
  }
  r.curve = {{"seconds", secs}, {"documents", docs}, {"iterations", iters}, {"log_perplexity", lp},
             {"log_perplexity_current", lp_current}, {"kept_samples", acc.kept}, {"iterations_total", t},
             {"sampler_seconds", elapsed}, {"accumulator_vs_log_perplexity", check}};
  if (!lp.empty()) r.final_log_perplexity = lp.back();
  if (!r.failure.empty()) r.curve["failure"] = r.failure;
  return r;
}

std::shared_ptr<SamDocuments> to_sam(const Corpus& c, const TfIdf& tfidf) {
  return std::make_shared<SamDocuments>(SamDocuments::from_corpus(c, tfidf));
}

double load_average() {
  std::ifstream in("/proc/loadavg");
  double l = 0;
  in >> l;
  return l;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: sam_experiment SPAM_DATA_DIR OUT [--quick] [--set three-groups|all-spam|pooled] [--threads T] [--topics K]\n"
                 "                      [--budget SECONDS] [--validation-budget SECONDS] [--no-tune]\n");
    return 2;
  }
  const std::filesystem::path root = argv[1], out = argv[2];
  bool quick = false, tune = true;
  std::string set = "three-groups";
  Settings st;
  double budget = -1, val_budget = -1, fixed_gamma = -1;
  std::string choices_file, only, tag;
  std::filesystem::path brown, kjv;  // the pooled set's other corpora (default: beside the SpamAssassin data)
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(fmt::format("argument {}: missing value", a));
      return argv[++i];
    };
    if (a == "--quick") quick = true;
    else if (a == "--no-tune") tune = false;
    else if (a == "--set") set = next();
    else if (a == "--threads") st.threads = static_cast<unsigned>(std::stoul(next()));
    else if (a == "--topics") st.K = std::stol(next());
    else if (a == "--budget") budget = std::stod(next());
    else if (a == "--validation-budget") val_budget = std::stod(next());
    else if (a == "--choices") choices_file = next();
    else if (a == "--only") only = next();
    else if (a == "--gamma") fixed_gamma = std::stod(next());
    else if (a == "--tag") tag = next();
    else if (a == "--friction-alpha") st.friction_grid = {std::stod(next())};
    else if (a == "--seed") st.seed = std::stoull(next());
    else if (a == "--brown") brown = next();
    else if (a == "--kjv") kjv = next();
    else throw Error(fmt::format("argument {}: unknown", a));
  }
  require(st.threads >= 1, "--threads: expected an integer >= 1");
  if (budget <= 0) budget = quick ? 8 : 90;
  if (val_budget <= 0) val_budget = quick ? 4 : 10;
  if (quick) st.evaluations = 10;
  std::filesystem::create_directories(out);
  const double load_start = load_average();
  const auto file = experiments::result_file(out, "sam", set, tag);

  // --- data ---
  const auto data = experiments::load_spam_corpus(root, set, 5000, brown, kjv);
  const Corpus& train_c = data.train;
  const Corpus& test_c = data.test;
  TfIdf tfidf{TfIdf::fit_idf(train_c)};
  const auto train = to_sam(train_c, tfidf);
  const auto test = to_sam(test_c, tfidf);
  // Validation: a seeded 80/20 split of the training documents (same vocabulary and idf).
  const auto vs = split(train_c.size(), 0.2, 2025);
  const auto fit = to_sam(train_c.subset(vs.train), tfidf);
  const auto validation = to_sam(train_c.subset(vs.test), tfidf);
  fmt::print("{}: {} documents ({}); vocabulary {} words\ntrain {} docs ({} non-zeros), test {} docs; validation split {} / {}\n", set,
             data.documents, data.load.summary(), data.vocab.size(), train->size(), train->word.size(), test->size(), fit->size(),
             validation->size());

  // --- methods (the authors' settings: changliu00/SG-Geod-MCMC MCMC/SAM_*/settings_diff_*.txt) ---
  // θ step 1e-3: at κ1 = 3e4 sam.hpp's default 0.01 is rejected every time on these documents (measured
  // acceptance 0.000 at the initial topics, and the reflections at the simplex faces make it 100× slower);
  // 1e-3 is accepted 98% of the time there (2e-3: 87%, 3e-3: 62%, 5e-3: 8%).
  ThetaGmc theta_sg;  // SGGMC / gSGNHT: thBnin 40, thN 20, thL 10
  theta_sg.burn_in = 40, theta_sg.draws = 20, theta_sg.leapfrog_steps = 10, theta_sg.step_size = 1e-3;
  ThetaGmc theta_gibbs = theta_sg;  // GMC-bGibbs: 15 burn-in, 1 draw
  theta_gibbs.burn_in = 15, theta_gibbs.draws = 1;
  ThetaGmc theta_mh = theta_sg;  // GMC-apprMH: 15 burn-in, 10 draws
  theta_mh.burn_in = 15, theta_mh.draws = 10;
  // Grids in γ, h = sqrt(γ/D): the SG methods from the authors' γ = 0.01 down (the likelihood's curvature
  // κ1·D ~ 5e7 makes h = sqrt(0.01/D) = 2.5e-3 unstable here: the quick run's log-perplexity rose); the GMC
  // baselines from the authors' eps = 2e-5 (bGibbs, L = 5) and 1e-4 (apprMH, L = 1) up (γ = eps²·D).
  // γ = 1e-2 (the top of an earlier grid) was never chosen and 1e-6 (below it) did well at α = 0.01, so the
  // SG grid spans 1e-6 .. 1e-3.
  const std::vector<double> sg_grid = {1e-6, 1e-5, 1e-4, 1e-3}, gmc_grid = {1e-6, 1e-5, 1e-4};
  const auto& fr = st.friction_grid;
  std::vector<Method> methods = {
      {"SGGMC (batch 50)", Kind::sggmc, 50, sg_grid, fr, theta_sg, 1},
      {"gSGNHT (batch 50)", Kind::gsgnht, 50, sg_grid, fr, theta_sg, 1},
      {"SGGMC (full batch)", Kind::sggmc, 0, sg_grid, fr, theta_sg, 1},
      {"gSGNHT (full batch)", Kind::gsgnht, 0, sg_grid, fr, theta_sg, 1},
      {"GMC-bGibbs", Kind::gmc_bgibbs, 0, gmc_grid, {}, theta_gibbs, 5},
      {"GMC-apprMH", Kind::gmc_apprmh, 0, gmc_grid, {}, theta_mh, 1},
  };
  nlohmann::json choices;
  if (!choices_file.empty()) {
    std::ifstream in(choices_file);
    require(static_cast<bool>(in), fmt::format("--choices: cannot read {}", choices_file));
    const auto prev = nlohmann::json::parse(in);
    // Runs written before α was validated carry no alpha_friction: they used the authors' 0.01.
    for (const auto& r : prev.at("runs"))
      choices[r.at("method").get<std::string>()] = {{"gamma", r.at("gamma")}, {"alpha", r.value("alpha_friction", 0.01)}};
    tune = false;
  }
  if (fixed_gamma > 0) tune = false;
  if (!only.empty())
    std::erase_if(methods, [&](const Method& m) { return m.name.find(only) == std::string::npos; });
  if (quick) {
    tune = false;
    for (auto& m : methods) m.theta.burn_in = std::min(m.theta.burn_in, 10), m.theta.draws = std::min(m.theta.draws, 5);
  }

  nlohmann::json j;
  j["set"] = set;
  j["quick"] = quick;
  j["note"] = experiments::set_note(set);
  j["documents"] = data.documents, j["train_documents"] = train->size(), j["test_documents"] = test->size();
  j["validation_split"] = {{"fit_documents", fit->size()}, {"validation_documents", validation->size()}, {"seed", 2025}};
  j["vocabulary"] = data.vocab.size(), j["K"] = st.K;
  j["report"] = data.report();
  j["hyper"] = {{"kappa0", st.hyper.kappa0}, {"sigma", st.hyper.sigma}, {"kappa1", st.hyper.kappa1}, {"alpha", st.hyper.alpha},
                {"m", "normalised sum of the training documents"}};
  j["settings"] = {{"friction_grid", st.friction_grid}, {"seed", st.seed},
                   {"step_size_rule", "h = sqrt(gamma / D), D = training documents of the run (authors' eps = sqrt(gamma/D)); "
                                      "SGGMC friction C = alpha/h, gSGNHT diffusion A = alpha/h (alpha per run: alpha_friction)"},
                   {"eval_thetas", st.eval_thetas}, {"budget_seconds", budget}, {"validation_budget_seconds", val_budget},
                   {"burn_in_fraction", st.burn_in_fraction}, {"evaluations", st.evaluations}, {"threads", st.threads},
                   {"hardware_threads", std::thread::hardware_concurrency()}, {"split_seed", 2024}, {"tuned", tune},
                   {"documents_processed",
                    "SG methods: iterations x batch (the documents whose theta was sampled); GMC baselines: iterations x D "
                    "(every document's theta is redrawn before each beta trajectory)"},
                   {"theta_step", "starts at 1e-3, scaled after every iteration toward acceptance in [0.6, 0.8] (x0.8 / x1.1)"},
                   {"clock", "sampler time only (steady_clock around each iteration); evaluations excluded"}};

  random::Stream init_rng(2015 + st.seed, 0);  // seed 1: the stream (2016, 0) of the first runs
  const auto base = std::make_shared<const Sam>(train, st.K, st.hyper, theta_sg, 0, st.threads);
  const Eigen::VectorXd beta0 = base->initial_topics(init_rng);
  const auto fit_sam = std::make_shared<const Sam>(fit, st.K, st.hyper, theta_sg, 0, st.threads);
  random::Stream init_fit(2015 + st.seed, 1);
  const Eigen::VectorXd beta0_fit = fit_sam->initial_topics(init_fit);
  {
    random::Stream er(77, 0);
    const double init_lp = base->log_perplexity({beta0}, *test, st.eval_thetas, er);
    j["initial_log_perplexity"] = init_lp;
    fmt::print("initial topics (m + noise): held-out log-perplexity {:.2f}\n", init_lp);
  }

  for (auto& m : methods) {
    nlohmann::json run;
    run["method"] = m.name;
    run["batch_size"] = m.batch;
    run["theta"] = {{"burn_in", m.theta.burn_in}, {"draws", m.theta.draws}, {"leapfrog_steps", m.theta.leapfrog_steps},
                    {"step_size", m.theta.step_size}};
    if (m.kind == Kind::gmc_bgibbs || m.kind == Kind::gmc_apprmh) run["leapfrog_steps"] = m.leapfrog;
    const bool sg = !m.alphas.empty();
    const std::vector<double> alphas = sg ? m.alphas : std::vector<double>{0.0};
    double chosen = m.gammas[1], chosen_alpha = alphas.front();
    if (tune) {
      nlohmann::json grid = nlohmann::json::array();
      double best = std::numeric_limits<double>::infinity();
      for (double g : m.gammas)
        for (double al : alphas) {
          Chain c = make_chain(m, g, al, fit_sam, st, beta0_fit, 10 + st.seed);
          const RunResult r = run_chain(c, *fit_sam, *validation, st, val_budget, false, m.name);
          fmt::print("validation {:<22s} gamma {:8.1e}{}: log-perplexity {:10.2f}{}\n", m.name, g,
                     sg ? fmt::format(" alpha {:5.2f}", al) : "", r.final_log_perplexity, r.failure.empty() ? "" : " (" + r.failure + ")");
          nlohmann::json point = {{"gamma", g}, {"validation_log_perplexity", r.final_log_perplexity},
                                  {"iterations", r.curve["iterations_total"]}, {"stats", c.stats()}, {"failure", r.failure}};
          if (sg) point["alpha_friction"] = al;
          grid.push_back(point);
          if (r.failure.empty() && r.final_log_perplexity < best) best = r.final_log_perplexity, chosen = g, chosen_alpha = al;
        }
      run["grid"] = grid;
      run["choice"] = "lowest validation log-perplexity after the validation budget";
    } else if (fixed_gamma > 0) {
      chosen = fixed_gamma;
      run["choice"] = "fixed by --gamma";
    } else if (choices.contains(m.name)) {
      chosen = choices[m.name]["gamma"].get<double>();
      chosen_alpha = sg ? choices[m.name]["alpha"].get<double>() : 0.0;
      run["choice"] = fmt::format("validated choice of {} (--choices)", choices_file);
    } else {
      run["choice"] = quick ? "quick mode: the grid's second value, no tuning" : "--no-tune: the grid's second value";
    }
    run["gamma"] = chosen;
    if (sg) run["alpha_friction"] = chosen_alpha;
    Chain c = make_chain(m, chosen, chosen_alpha, base, st, beta0, st.seed);
    const RunResult r = run_chain(c, *base, *test, st, budget, true, m.name);
    run["curve"] = r.curve;
    run["final_log_perplexity"] = r.final_log_perplexity;
    run["stats"] = c.stats();
    if (!r.failure.empty()) run["failure"] = r.failure;
    fmt::print("{}: gamma {:g}{}, final log-perplexity {:.2f}, {}\n", m.name, chosen,
               sg ? fmt::format(" alpha {:g}", chosen_alpha) : "", r.final_log_perplexity, c.stats().dump());
    j["runs"].push_back(run);
    std::ofstream(file) << j.dump(1) << "\n";  // partial results survive an interruption
  }
  j["peak_rss_mb"] = experiments::peak_rss_mb();
  j["load_average"] = {{"start", load_start}, {"end", load_average()}};
  std::ofstream(file) << j.dump(1) << "\n";
  fmt::print("peak RSS {:.0f} MB; wrote {}\n", experiments::peak_rss_mb(), file.string());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "sam_experiment: %s\n", e.what());
  return 1;
}
