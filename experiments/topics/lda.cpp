// Online LDA on the SpamAssassin "three different groups" set (in place of the complete recipe's
// 20News-different; docs/data.md), all SpamAssassin mails, or the pooled corpora (all mails, Brown
// paragraphs, KJV chapters; in place of Wikipedia): held-out perplexity against documents processed for SGRLD
// (expanded mean, Fisher metric), SGLD, SGHMC and SGRHMC (Fisher metric, complete recipe §3.3), each at a
// small grid of step sizes (the papers tune each sampler), K = 50 topics, minibatches of 50 documents
// (complete recipe Fig. 3's shape). Two perplexities: from the current sample, and averaged over the
// posterior samples collected after a burn-in of a third of the run (one every 10 steps; Patterson &
// Teh §4, complete recipe App. F.2). Writes
// OUT/lda_<set>.json; experiments/topics/plot.py draws OUT/lda_<set>.png.
//   lda_experiment DATA_ROOT OUT [--quick] [--set three-groups|all-spam|pooled] [--brown DIR] [--kjv FILE] [--methods sgrld,sgld,sghmc,sgrhmc]
//                  [--scheme semi_implicit|euler]   (the momentum samplers' integrator; default semi_implicit)
//                  [--seed S] [--tag NAME]   (S, default 1: the chains' random stream, not the data split;
//                                             NAME: write OUT/lda_<set>_<NAME>.json)
//                  [--settings sgrld:0.03,sgld:0.03]   (only these grid points; runs are deterministic, so a
//                                             subset reproduces the full run's rows to the digit)
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/models/text/lda.hpp>
#include <sgmcmc/driver/chain.hpp>
#include <sgmcmc/driver/evaluation.hpp>
#include <sgmcmc/run/json_file.hpp>
#include <sgmcmc/samplers/expanded_mean.hpp>

#include "spam_corpus.hpp"

using namespace sgmcmc;
using namespace sgmcmc::text;

namespace {
// The four samplers of the grid: expanded_mean::Langevin (SGRLD, SGLD) and Hamiltonian (SGRHMC, SGHMC).
enum class Method { sgrld, sgld, sghmc, sgrhmc };
const char* name(Method m) {
  switch (m) {
    case Method::sgrld: return "sgrld";
    case Method::sgld: return "sgld";
    case Method::sghmc: return "sghmc";
    case Method::sgrhmc: return "sgrhmc";
  }
  return "?";
}
bool has_momentum(Method m) { return m == Method::sghmc || m == Method::sgrhmc; }
expanded_mean::Metric metric(Method m) {
  return m == Method::sgrld || m == Method::sgrhmc ? expanded_mean::Metric::fisher : expanded_mean::Metric::identity;
}

/// A row-form sampler whose chain starts at a given expanded mean θ (the Chain's x0 is vec θ, K×W
/// column-major) through `start`, not at `init`'s lift θ = Wπ of a point π: the experiment starts from
/// θ_kw ~ Gamma(1, 1), which breaks the topics' label symmetry.
template <class S>
struct StartAtExpandedMean : S {
  template <class R>
  typename S::State init(Eigen::VectorXd theta, R& rng) const {
    const Eigen::MatrixXd rows = Eigen::Map<const Eigen::MatrixXd>(theta.data(), this->rows, theta.size() / this->rows);
    return S::start(rows, rng);
  }
};
}  // namespace

int main(int argc, char** argv) try {
  CLI::App app{"Online LDA: held-out perplexity against documents processed for SGRLD, SGLD, SGHMC, SGRHMC "
               "(writes OUT/lda_<set>.json; experiments/topics/plot.py draws it)",
               "lda_experiment"};
  std::string root_arg, out_arg, brown_arg, kjv_arg, scheme_name = "semi_implicit";
  bool quick = false;
  std::string set = "three-groups", methods = "sgrld,sgld,sghmc,sgrhmc", tag, settings;
  std::uint64_t seed = 1;
  app.add_option("SPAM_DATA_DIR", root_arg, "the SpamAssassin corpus (scripts/text_data.sh spam-assassin)")->required();
  app.add_option("OUT", out_arg, "folder for lda_<set>.json")->required();
  app.add_flag("--quick", quick, "120 steps, one step size per sampler");
  app.add_option("--set", set, "the corpus")->capture_default_str()->check(CLI::IsMember({"three-groups", "all-spam", "pooled"}));
  app.add_option("--brown", brown_arg, "the Brown corpus of the pooled set (default: beside the SpamAssassin data)");
  app.add_option("--kjv", kjv_arg, "the King James Bible of the pooled set (default: beside the SpamAssassin data)");
  app.add_option("--methods", methods, "comma-separated samplers to run")->capture_default_str();
  app.add_option("--scheme", scheme_name, "the momentum samplers' integrator")->capture_default_str()->check(CLI::IsMember({"semi_implicit", "euler"}));
  app.add_option("--seed", seed, "the chains' random stream (not the data split)")->capture_default_str();
  app.add_option("--tag", tag, "write OUT/lda_<set>_<NAME>.json");
  app.add_option("--settings", settings,
                 "only these grid points, e.g. sgrld:0.03,sgld:0.03 (runs are deterministic: a subset reproduces the full "
                 "run's rows to the digit)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  const std::filesystem::path root = root_arg, out = out_arg, brown = brown_arg, kjv = kjv_arg;
  const recipe::Scheme scheme = scheme_name == "euler" ? recipe::Scheme::euler : recipe::Scheme::semi_implicit;
  std::filesystem::create_directories(out);
  const auto file = experiments::result_file(out, "lda", set, tag);
  const auto data = experiments::load_spam_corpus(root, set, 5000, brown, kjv);
  const auto& vocab = data.vocab;
  auto train = std::make_shared<Corpus>(data.train);
  const Corpus& test = data.test;
  fmt::print("{}: {} documents ({}); vocabulary {} words\ntrain: {} docs, {} tokens, {} non-zeros; {}\ntest: {} docs, {} tokens; {}\n",
             set, data.documents, data.load.summary(), vocab.size(), train->size(), train->tokens(), train->nonzeros(),
             data.train_report.summary(), test.size(), test.tokens(), data.test_report.summary());

  lda::Model model;
  model.corpus = train;
  model.K = 50, model.alpha = 0.01, model.beta = 0.01, model.batch_size = 50;  // Patterson & Teh's α, β; paper's K, batch
  model.gibbs_sweeps = 20, model.gibbs_burn_in = 10;
  model.validate();
  const int steps = quick ? 120 : 1500, every = quick ? 20 : 50;
  struct Setting {
    Method method;
    double a;
    double friction = 1.0;  // SGHMC's C (SGRHMC's friction is the metric's D = diag θ)
  };
  // ε_t = a (1000 + t)^(-0.6) / 1000^(-0.6): Patterson & Teh's ε = a(1 + t/b)^(-c) with b = 1000, c = 0.6.
  // SGHMC/SGRHMC use h = ε_t itself as the Euler step of their SDE (SGRLD/SGLD: dt = ε/2).
  // Each sampler's grid reaches past its best value where the sampler stays stable (SGRLD 0.03, SGLD 0.03,
  // SGRHMC 0.05 were added after a = 0.01 / 0.03 came out best).
  std::vector<Setting> grid = {{Method::sgrld, 0.03},   {Method::sgrld, 0.01},   {Method::sgrld, 0.003},  {Method::sgrld, 0.001},
                               {Method::sgld, 0.03},    {Method::sgld, 0.01},    {Method::sgld, 0.001},   {Method::sgld, 1e-4},
                               {Method::sgrhmc, 0.05},  {Method::sgrhmc, 0.03},  {Method::sgrhmc, 0.02},  {Method::sgrhmc, 0.01},
                               {Method::sgrhmc, 0.003},
                               {Method::sghmc, 0.01},   {Method::sghmc, 0.001},  {Method::sghmc, 1e-4},
                               // SGHMC's friction: its chains at C = 1 stay near random topics; h·C ≤ 1 keeps the
                               // semi-implicit friction factor 1 − hC in [0, 1).
                               {Method::sghmc, 0.01, 10}, {Method::sghmc, 0.01, 100},
                               {Method::sghmc, 0.001, 10}, {Method::sghmc, 0.001, 100}};
  if (quick) grid = {{Method::sgrld, 0.003}, {Method::sgld, 0.001}, {Method::sgrhmc, 0.003}, {Method::sghmc, 0.001}};
  const int burn_in = steps / 3, thin = 10;
  nlohmann::json j;
  j["set"] = set;
  j["note"] = experiments::set_note(set) + "; vocabulary fitted on training documents";
  j["documents"] = data.documents;
  j["train_documents"] = train->size();
  j["test_documents"] = test.size();
  j["vocabulary"] = vocab.size();
  j["K"] = model.K, j["batch_size"] = model.batch_size, j["alpha"] = model.alpha, j["beta"] = model.beta;
  j["gibbs_sweeps"] = model.gibbs_sweeps, j["gibbs_burn_in"] = model.gibbs_burn_in;
  j["steps"] = steps, j["burn_in"] = burn_in, j["thin"] = thin, j["seed"] = seed;
  j["perplexity_note"] =
      "perplexity: current sample; perplexity_avg: predictive probability averaged over the samples taken every thin steps after "
      "burn_in (null before)";
  j["report"] = data.report();
  const double random_pp = lda::perplexity(lda::random_topics(model.K, model.vocabulary_size(), 1), test, model.alpha, 7).perplexity;
  j["random_topics_perplexity"] = random_pp;
  fmt::print("random topics: perplexity {:.1f}\n", random_pp);
  j["methods"] = methods;
  if (!settings.empty()) j["settings_only"] = settings;
  for (const auto& g : grid) {
    if (("," + methods + ",").find("," + std::string(name(g.method)) + ",") == std::string::npos) continue;
    if (!settings.empty() && ("," + settings + ",").find(fmt::format(",{}:{:g},", name(g.method), g.a)) == std::string::npos) continue;
    const auto step_size = schedule::StepSize::polynomial(g.a * std::pow(1000.0, 0.6), 1000.0, 0.6);
    nlohmann::json run;
    run["sampler"] = name(g.method);
    run["step_a"] = g.a;
    if (g.method == Method::sghmc) run["friction"] = g.friction;
    if (has_momentum(g.method)) run["scheme"] = scheme == recipe::Scheme::euler ? "euler" : "semi_implicit";
    // One chain of a sampler from θ_kw ~ Gamma(1, 1), on the driver loop: StopAfter ends it, the posterior
    // average takes the Retention's kept draws, Every evaluates; both observers' time is excluded from the
    // sampling clock.
    const auto run_chain = [&](const auto& sampler) {
      random::Stream rng(seed, 0);
      const Eigen::MatrixXd theta0 = expanded_mean::random_rows(model.K, model.vocabulary_size(), rng);
      Chain chain(sampler, model, Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(theta0.data(), theta0.size())), rng);
      std::vector<double> docs_seen, pp, secs;
      nlohmann::json pp_avg = nlohmann::json::array();
      lda::PosteriorPerplexity averaged(test, model.alpha, 7, 30, 10);
      SamplingClock clock;
      const auto average = [&](const StepEvent& e) {
        if (e.kept) clock.excluding([&] { averaged.add(chain.sampler.topics(chain.state)); });
        return Control::proceed;
      };
      const auto evaluate = [&](const StepEvent& e) {
        const double elapsed = clock.seconds();
        const auto r = lda::perplexity(chain.sampler.topics(chain.state), test, model.alpha, 7, 30, 10);
        const auto documents = static_cast<std::size_t>(e.step) * model.batch_size;  // one minibatch per step
        docs_seen.push_back(static_cast<double>(documents));
        pp.push_back(r.perplexity);
        secs.push_back(elapsed);
        const double avg = averaged.value();
        if (averaged.samples > 0) pp_avg.push_back(avg);
        else pp_avg.push_back(nullptr);
        fmt::print("{} a={:g}{} step {:4d} docs {:6d} perplexity {:8.1f} averaged {:8.1f} ({} samples; {:.1f} s)\n", name(g.method),
                   g.a, g.method == Method::sghmc ? fmt::format(" C={:g}", g.friction) : "", e.step, documents, r.perplexity, avg,
                   averaged.samples, elapsed);
      };
      std::string failure;
      try {
        const ChainStatus status = chain.run(Retention{static_cast<std::uint64_t>(burn_in), static_cast<std::uint64_t>(thin)},
                                             StopAfter{static_cast<std::uint64_t>(steps)}, average,
                                             Every{static_cast<std::uint64_t>(every), evaluate, &clock});
        if (!status.ok()) failure = fmt::format("lda {}", status.error);
      } catch (const Error& e) {  // the samplers throw on a non-finite θ or r, naming the step
        failure = fmt::format("lda {}", e.what());
      }
      run["documents"] = docs_seen, run["perplexity"] = pp, run["perplexity_avg"] = pp_avg, run["seconds"] = secs;
      run["reflections"] = chain.state.reflections, run["samples_averaged"] = averaged.samples;
      if (!failure.empty()) run["failure"] = failure, fmt::print("  stopped: {}\n", failure);
      if ((g.method == Method::sgrld || g.method == Method::sgrhmc) && g.a == 0.003) {  // Table S.1's presentation
        nlohmann::json topics = nlohmann::json::array();
        for (Eigen::Index k = 0; k < 8; ++k) topics.push_back(lda::top_words(chain.sampler.topics(chain.state), k, vocab, 10));
        run["top_words"] = topics;
      }
    };
    if (has_momentum(g.method)) {
      StartAtExpandedMean<expanded_mean::Hamiltonian> sampler{{model.K, metric(g.method), step_size}};
      sampler.scheme = scheme;
      sampler.friction = g.friction;
      run_chain(sampler);
    } else {
      run_chain(StartAtExpandedMean<expanded_mean::Langevin>{{model.K, metric(g.method), step_size}});
    }
    j["runs"].push_back(run);
    run::write_json_file(j, file.string(), 1);  // partial results survive an interruption
  }
  run::write_json_file(j, file.string(), 1);
  fmt::print("wrote {}\n", file.string());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "lda_experiment: %s\n", e.what());
  return 1;
}
