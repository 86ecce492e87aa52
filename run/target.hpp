#pragma once
// The `target` section of a run config (DESIGN.md §5.1): one potential chosen at run time. The
// alternatives live in a std::variant, so a gradient call is a switch, not a virtual call.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>

#include <fmt/format.h>

#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/models/banana.hpp>
#include <sgmcmc/models/bnn.hpp>
#include <sgmcmc/models/bpmf.hpp>
#include <sgmcmc/models/dirichlet.hpp>
#include <sgmcmc/models/double_well.hpp>
#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/models/gradient_noise.hpp>
#include <sgmcmc/models/linear.hpp>
#include <sgmcmc/models/logistic.hpp>
#include <sgmcmc/models/data/text.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/models/vmf_mixture_posterior.hpp>
#include <sgmcmc/models/uniform.hpp>
#include <sgmcmc/models/vmf_mixture.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/run/fields.hpp>
#include <sgmcmc/run/manifold_spec.hpp>

namespace sgmcmc::run {

/// The prior precisions of the bnn and bpmf targets to and from JSON (run records: a chain's state).
inline json precisions_json(const models::BnnPrecisions& p) { return {{"layer1", p.layer1}, {"layer2", p.layer2}}; }
inline json precisions_json(const models::BpmfPrecisions& p) {
  return {{"user", p.user}, {"item", p.item}, {"user_bias", p.user_bias}, {"item_bias", p.item_bias}};
}
inline void restore_precisions(models::BnnPrecisions& p, const json& j, const std::string& path) {
  Fields f(j, path);
  p.layer1 = f.number("layer1", Range::positive);
  p.layer2 = f.number("layer2", Range::positive);
  f.finish();
}
inline void restore_precisions(models::BpmfPrecisions& p, const json& j, const std::string& path) {
  Fields f(j, path);
  p.user = f.number("user", Range::positive);
  p.item = f.number("item", Range::positive);
  p.user_bias = f.number("user_bias", Range::positive);
  p.item_bias = f.number("item_bias", Range::positive);
  f.finish();
}

struct Target {
  using Model = std::variant<models::Gaussian, models::DoubleWell, models::Banana, models::Linear, models::VmfMixture,
                             models::Dirichlet, models::Uniform, models::Minibatch<models::VmfMixturePosterior>,
                             models::Minibatch<models::LogisticRegression>, models::Minibatch<models::Bnn>,
                             models::Minibatch<models::Bpmf>>;
  Model model;
  double grad_noise = 0.0;        ///< σ of additive N(0, σ²I) gradient noise
  std::uint64_t gibbs_every = 0;  ///< bnn, bpmf: a Gibbs step on the prior precisions after steps k, 2k, ... (0: never)
  json resolved;                  ///< the section with defaults filled in
  mutable Eigen::VectorXd noise_scratch;  ///< the gradient noise's draws (scratch: one target per chain, never shared)

  Target() = default;
  /// A copy owns its prior precisions (bnn, bpmf), which the models keep behind a shared_ptr: every
  /// chain gets its own copy of the target, and one chain's Gibbs step must neither race with another
  /// chain's thread nor change another chain's potential. Moves keep the pointer (one owner).
  Target(const Target& o) : model(o.model), grad_noise(o.grad_noise), gibbs_every(o.gibbs_every), resolved(o.resolved) {
    own_precisions();
  }
  Target(Target&&) = default;
  Target& operator=(const Target& o) {
    if (this != &o) *this = Target(o);
    return *this;
  }
  Target& operator=(Target&&) = default;

  /// Called by the driver after every step t (1-based, over the chain's life). Every gibbs_every-th
  /// step resamples the precisions given x (models' `gibbs`), drawing from substream t / gibbs_every of
  /// the chain's stream: a pure function of (seed, chain, Gibbs step), so nothing but the precisions
  /// needs saving for an exact resume, and the chain's own stream (minibatches, noise) is untouched.
  void after_step(const Eigen::VectorXd& x, std::uint64_t t, const random::Stream& rng) {
    if (gibbs_every == 0 || t % gibbs_every != 0) return;
    random::Stream g = random::substream(rng.seed(), rng.stream_id(), t / gibbs_every);
    std::visit([&](const auto& m) {
      if constexpr (requires { m.model.gibbs(x, g); }) m.model.gibbs(x, g);
    }, model);
  }
  /// The target's own state between steps, for a run record: {"precisions": {...}} (bnn, bpmf), or null.
  json state() const {
    return std::visit([](const auto& m) -> json {
      if constexpr (requires { *m.model.precisions; }) return json{{"precisions", precisions_json(*m.model.precisions)}};
      else return nullptr;
    }, model);
  }
  /// Restores state() (nullptr: absent from the record, allowed when no Gibbs step ever changed the
  /// precisions, i.e. gibbs_every = 0: they are the config's prior_precision).
  void restore(const json* j, const std::string& path) {
    std::visit([&](auto& m) {
      if constexpr (requires { *m.model.precisions; }) {
        if (!j) {
          if (gibbs_every > 0) fail(path, "required field is missing (the precisions drawn by the Gibbs steps, gibbs_every > 0)");
          return;
        }
        Fields f(*j, path);
        restore_precisions(*m.model.precisions, f.get("precisions"), f.at("precisions"));
        f.finish();
      } else if (j && !j->is_null()) {
        fail(path, fmt::format("target '{}' has no state of its own, got {}", resolved["name"].get<std::string>(), describe(*j)));
      }
    }, model);
  }
  /// Per-chain diagnostics of the target: the current precisions and the Gibbs steps done (bnn, bpmf).
  json diagnostics(std::uint64_t steps_done) const {
    json d = json::object();
    std::visit([&](const auto& m) {
      if constexpr (requires { *m.model.precisions; }) {
        d["precisions"] = precisions_json(*m.model.precisions);
        d["gibbs_steps"] = gibbs_every ? steps_done / gibbs_every : 0;
      }
    }, model);
    return d;
  }

  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R& rng) const {
    std::visit([&](const auto& m) { m.gradient(x, g, rng); }, model);
    models::add_gradient_noise(g, grad_noise, rng, noise_scratch);
  }
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
    std::visit([&](const auto& m) { m.exact_gradient(x, g); }, model);
  }
  double value(const Eigen::VectorXd& x) const {
    return std::visit([&](const auto& m) { return m.value(x); }, model);
  }
  /// The stochastic gradient with its empirical-Fisher variance (minibatch targets only); additive
  /// gradient noise adds σ² to every coordinate's variance.
  template <class R>
  void gradient_and_variance(const Eigen::VectorXd& x, Eigen::VectorXd& g, Eigen::VectorXd& var, R& rng) const {
    std::visit([&](const auto& m) {
      if constexpr (PotentialWithNoiseEstimate<std::decay_t<decltype(m)>>) m.gradient_and_variance(x, g, var, rng);
      else throw Error("/sampler/noise_estimate: empirical_fisher needs a minibatch target");
    }, model);
    models::add_gradient_noise(g, grad_noise, rng, noise_scratch);
    if (grad_noise > 0) var.array() += grad_noise * grad_noise;
  }
  bool supports_noise_estimate() const {
    return std::visit([](const auto& m) { return PotentialWithNoiseEstimate<std::decay_t<decltype(m)>>; }, model);
  }

  /// Dirichlet-type targets: the Gamma shapes SCIR's exact CIR transition needs.
  template <class R>
  const Eigen::VectorXd& concentration(R& rng) const {
    if (const auto* d = std::get_if<models::Dirichlet>(&model)) return d->concentration(rng);
    throw Error("/target/name: this sampler needs a Dirichlet-type target (dirichlet)");
  }
  /// Makes this copy own its prior precisions (AnyTarget's copies: one per chain).
  void own_state() { own_precisions(); }
  bool singular_at_faces() const { return is_singular_dirichlet(); }
  bool is_singular_dirichlet() const {
    const auto* d = std::get_if<models::Dirichlet>(&model);
    return d && d->singular_at_faces();
  }

 private:
  void own_precisions() {
    std::visit([](auto& m) {
      if constexpr (requires { *m.model.precisions; })
        m.model.precisions = std::make_shared<std::remove_cvref_t<decltype(*m.model.precisions)>>(*m.model.precisions);
    }, model);
  }
};

/// The dimension a target fixes by itself (double_well: 1, banana: 2, gaussian: its mean or cov), if any.
inline std::optional<Eigen::Index> natural_dim(const json& j) {
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string()) return std::nullopt;
  const std::string name = j["name"];
  if (name == "double_well") return 1;
  if (name == "banana") return 2;
  if (name == "logistic" && j.contains("data") && j["data"].is_string()) {  // the CSV's feature columns
    const std::string path = j["data"].get<std::string>();
    try {
      data::require_file(path, "CSV data");  // a missing file is named before anything else is checked
    } catch (const Error& e) {
      fail("/target/data", e.what());
    }
    const std::size_t cols = data::csv_columns(path);
    if (cols >= 2) return static_cast<Eigen::Index>(cols - 1);
  }
  if ((name == "bnn" || name == "bpmf") && j.contains("data") && j["data"].is_string()) {  // sizes from the data file
    const std::string path = j["data"].get<std::string>();
    try {
      data::require_file(path, name == "bnn" ? "CSV data" : "ratings CSV");
      const auto count = [&](const char* key, std::int64_t fallback) {
        return j.contains(key) && j[key].is_number_integer() && j[key].get<std::int64_t>() >= 1 ? j[key].get<std::int64_t>() : fallback;
      };
      if (name == "bnn") {
        const auto d = data::load_class_csv(path);
        const Eigen::Index H = count("hidden", 50), K = std::max<Eigen::Index>(count("classes", d.classes()), d.classes());
        return d.dim() * H + H + H * K + K;
      }
      const auto r = data::load_ratings_csv(path);
      return (count("latent", 20) + 1) * (Eigen::Index{r.n_users} + Eigen::Index{r.n_items});
    } catch (const Error& e) {
      fail("/target/data", e.what());
    }
  }
  if (name == "gaussian") {
    if (j.contains("mean") && j["mean"].is_array()) return static_cast<Eigen::Index>(j["mean"].size());
    if (j.contains("cov") && j["cov"].is_array()) return static_cast<Eigen::Index>(j["cov"].size());
  }
  return std::nullopt;
}

/// Builds the target for points of `dim` coordinates on the manifold `m`.
inline Target parse_target(const json& j, const ManifoldSpec& manifold, const std::string& path = "/target") {
  const Eigen::Index dim = manifold.ambient_size();
  Fields f(j, path);
  Target t;
  const std::string name = f.string("name");
  json out = {{"name", name}};
  auto fixed_dim = [&](Eigen::Index d) {
    if (dim != d) fail(path, fmt::format("target '{}' is {}-dimensional but the manifold has {} coordinates", name, d, dim));
  };
  if (name == "gaussian") {
    Eigen::VectorXd mean = Eigen::VectorXd::Zero(dim);
    if (const json* m = f.find("mean")) mean = as_vector(*m, f.at("mean"), dim);
    out["mean"] = vector_json(mean);
    const json* c = f.find("cov");
    if (!c) {
      t.model = models::Gaussian::isotropic(mean, 1.0);
      out["cov"] = 1.0;
    } else if (c->is_number()) {
      t.model = models::Gaussian::isotropic(mean, as_number(*c, f.at("cov"), Range::positive));
      out["cov"] = *c;
    } else if (c->is_array() && !c->empty() && (*c)[0].is_number()) {
      const Eigen::VectorXd diag = as_vector(*c, f.at("cov"), dim);
      if (!(diag.array() > 0).all()) fail(f.at("cov"), "expected positive variances on the diagonal");
      t.model = models::Gaussian::dense(mean, diag.asDiagonal().toDenseMatrix());
      out["cov"] = *c;
    } else {
      const Eigen::MatrixXd cov = as_matrix(*c, f.at("cov"));
      try {
        t.model = models::Gaussian::dense(mean, cov);
      } catch (const Error& e) {
        fail(f.at("cov"), std::string(e.what()).substr(std::string("cov: ").size()));
      }
      out["cov"] = *c;
    }
  } else if (name == "double_well") {
    fixed_dim(1);
    t.model = models::DoubleWell{};
  } else if (name == "banana") {
    fixed_dim(2);
    t.model = models::Banana{};
  } else if (name == "linear") {
    const json& b = f.get("b");
    Eigen::VectorXd v;
    if (b.is_array() && !b.empty() && b[0].is_array()) {  // a matrix as a list of rows: flattened column-major
      const Eigen::MatrixXd m = as_matrix(b, f.at("b"));
      if (m.size() != dim) fail(f.at("b"), fmt::format("expected {} entries (the manifold's coordinates), got {}", dim, m.size()));
      v = Eigen::Map<const Eigen::VectorXd>(m.data(), m.size());
    } else {
      v = as_vector(b, f.at("b"), dim);
    }
    t.model = models::Linear{v};
    out["b"] = b;
  } else if (name == "vmf") {
    if (manifold.kind != "sphere") fail(f.at("name"), "vmf lives on a sphere (manifold.name = sphere)");
    const Eigen::VectorXd mu = as_vector(f.get("mu"), f.at("mu"), dim);
    if (std::abs(mu.norm() - 1.0) > 1e-8) fail(f.at("mu"), fmt::format("expected a unit vector, got norm {}", mu.norm()));
    const double kappa = f.number("kappa", Range::non_negative);
    t.model = models::von_mises_fisher(mu, kappa);
    out["mu"] = vector_json(mu);
    out["kappa"] = kappa;
  } else if (name == "vmf_mixture") {
    if (manifold.kind != "sphere") fail(f.at("name"), "vmf_mixture lives on a sphere (manifold.name = sphere)");
    const json& mus = f.get("mus");
    if (!mus.is_array() || mus.empty()) fail(f.at("mus"), "expected a non-empty list of unit vectors");
    const auto k = static_cast<Eigen::Index>(mus.size());
    models::VmfMixture m{Eigen::MatrixXd(dim, k), Eigen::VectorXd(k), Eigen::VectorXd::Zero(k)};
    for (Eigen::Index i = 0; i < k; ++i) {
      const std::string p = fmt::format("{}/{}", f.at("mus"), i);
      m.mus.col(i) = as_vector(mus[static_cast<std::size_t>(i)], p, dim);
      if (std::abs(m.mus.col(i).norm() - 1.0) > 1e-8) fail(p, "expected a unit vector");
    }
    const json& kappas = f.get("kappas");
    if (kappas.is_number()) m.kappas.setConstant(as_number(kappas, f.at("kappas"), Range::non_negative));
    else m.kappas = as_vector(kappas, f.at("kappas"), k);
    if ((m.kappas.array() < 0).any()) fail(f.at("kappas"), "expected numbers >= 0");
    Eigen::VectorXd w = Eigen::VectorXd::Ones(k);
    if (const json* wj = f.find("weights")) w = as_vector(*wj, f.at("weights"), k);
    if (!(w.array() > 0).all()) fail(f.at("weights"), "expected positive weights");
    m.log_weights = w.array().log();
    t.model = m;
    out["mus"] = mus;
    out["kappas"] = vector_json(m.kappas);
    out["weights"] = vector_json(w);
  } else if (name == "dirichlet") {
    if (manifold.kind != "simplex") fail(f.at("name"), "dirichlet lives on a simplex (manifold.name = simplex)");
    const Eigen::VectorXd alpha = as_vector(f.get("alpha"), f.at("alpha"), dim);
    if (!(alpha.array() > 0).all()) fail(f.at("alpha"), "expected positive concentrations");
    t.model = models::Dirichlet{alpha};
    out["alpha"] = vector_json(alpha);
  } else if (name == "uniform") {
    if (manifold.kind == "euclidean") fail(f.at("name"), "there is no uniform law on euclidean space");
    t.model = models::Uniform{};
  } else if (name == "vmf_mixture_posterior") {
    // SGGMC §5.2: the means of a two-component vMF mixture on S¹ given N data points, on S¹ × S¹.
    const auto& fs = manifold.resolved;
    const bool torus = manifold.kind == "product" && fs["factors"].size() == 2 && fs["factors"][0]["name"] == "sphere" &&
                       fs["factors"][0]["n"] == 2 && fs["factors"][1]["name"] == "sphere" && fs["factors"][1]["n"] == 2;
    if (!torus) fail(f.at("name"), "vmf_mixture_posterior lives on S¹×S¹: manifold {\"name\": \"product\", \"factors\": [{\"name\": \"sphere\", \"n\": 2}, {\"name\": \"sphere\", \"n\": 2}]}");
    const auto n_data = f.count("n_data", 100, 1);
    Eigen::VectorXd angles(2);
    angles << -M_PI / 24, M_PI / 8;
    if (const json* a = f.find("angles")) angles = as_vector(*a, f.at("angles"), 2);
    const double kappa = f.number("kappa", 20.0, Range::non_negative);
    const auto data_seed = f.count("data_seed", 0, 0);
    const auto batch = f.count("batch_size", 10, 1);
    if (batch > n_data) fail(f.at("batch_size"), fmt::format("expected at most n_data = {}, got {}", n_data, batch));
    const bool replace = f.boolean("with_replacement", false);
    t.model = models::Minibatch<models::VmfMixturePosterior>{
        models::VmfMixturePosterior::generate(n_data, angles[0], angles[1], kappa, data_seed), batch,
        replace ? models::Sampling::with_replacement : models::Sampling::without_replacement, {}};
    out.update({{"n_data", n_data}, {"angles", vector_json(angles)}, {"kappa", kappa}, {"data_seed", data_seed},
                {"batch_size", batch}, {"with_replacement", replace}});
  } else if (name == "logistic") {
    // Bayesian logistic regression on a CSV (features, then a 0/1 label): models/logistic.hpp.
    if (manifold.kind != "euclidean") fail(f.at("name"), "logistic lives on euclidean space (manifold.name = euclidean)");
    const std::string path = f.string("data");
    data::Dataset<double> d;
    try {
      d = data::load_labelled_csv(path);
    } catch (const Error& e) {
      fail(f.at("data"), e.what());
    }
    if (d.dim() != dim)
      fail(f.at("data"), fmt::format("{} has {} feature columns but the manifold has {} coordinates", path, d.dim(), dim));
    const double prior_sd = f.number("prior_sd", 1.0, Range::positive);
    const auto batch = f.count("batch_size", std::min<std::uint64_t>(100, d.size()), 1);
    if (batch > d.size()) fail(f.at("batch_size"), fmt::format("expected at most the {} examples of {}, got {}", d.size(), path, batch));
    const bool replace = f.boolean("with_replacement", false);
    t.model = data::minibatch(models::LogisticRegression{std::make_shared<const data::Dataset<double>>(std::move(d)), prior_sd},
                              batch, replace ? models::Sampling::with_replacement : models::Sampling::without_replacement);
    out.update({{"data", path}, {"prior_sd", prior_sd}, {"batch_size", batch}, {"with_replacement", replace}});
  } else if (name == "bnn") {
    // The Bayesian neural net (models/bnn.hpp; SGHMC paper §4.2): d–hidden–classes, sigmoid, softmax,
    // N(0, 1/λ_l) priors starting at λ_l = prior_precision; gibbs_every k > 0 resamples λ_1, λ_2 under
    // their Gamma(1, 1) hyperprior after every k-th step (App. H.1: k = 100), else they stay fixed.
    if (manifold.kind != "euclidean") fail(f.at("name"), "bnn lives on euclidean space (manifold.name = euclidean)");
    const std::string path = f.string("data");
    data::Dataset<double> d;
    try {
      d = data::load_class_csv(path);
    } catch (const Error& e) {
      fail(f.at("data"), e.what());
    }
    const auto hidden = f.count("hidden", 50, 1);
    const auto classes = f.count("classes", static_cast<std::uint64_t>(d.classes()), 2);
    if (classes < static_cast<std::uint64_t>(d.classes()))
      fail(f.at("classes"), fmt::format("{} has labels up to {}, so at least {} classes", path, d.classes() - 1, d.classes()));
    const double lambda = f.number("prior_precision", 1.0, Range::positive);
    const auto batch = f.count("batch_size", std::min<std::uint64_t>(100, d.size()), 1);
    if (batch > d.size()) fail(f.at("batch_size"), fmt::format("expected at most the {} examples of {}, got {}", d.size(), path, batch));
    const bool replace = f.boolean("with_replacement", false);
    const auto threads = f.count("threads", 1, 1);
    t.gibbs_every = f.count("gibbs_every", 0, 0);
    models::Bnn m;
    m.data = std::make_shared<const data::Dataset<float>>(d.cast<float>());
    m.hidden = static_cast<Eigen::Index>(hidden), m.classes = static_cast<Eigen::Index>(classes);
    m.precisions = std::make_shared<models::BnnPrecisions>(models::BnnPrecisions{lambda, lambda});
    m.chunks = m.threads = static_cast<int>(threads);
    if (m.dim() != dim)
      fail(f.at("data"), fmt::format("a {}–{}–{} net on {} has {} weights but the manifold has {} coordinates", d.dim(), hidden,
                                     classes, path, m.dim(), dim));
    t.model = data::minibatch(std::move(m), batch, replace ? models::Sampling::with_replacement : models::Sampling::without_replacement);
    out.update({{"data", path}, {"hidden", hidden}, {"classes", classes}, {"prior_precision", lambda}, {"batch_size", batch},
                {"with_replacement", replace}, {"threads", threads}, {"gibbs_every", t.gibbs_every}});
  } else if (name == "bpmf") {
    // BPMF with biases (models/bpmf.hpp; SGHMC paper §4.3): latent D, observation precision τ, μ the
    // data's mean, the four block precisions starting at prior_precision; gibbs_every k > 0 resamples
    // them under their Gamma(1, 1) hyperpriors after every k-th step (App. H.2), else they stay fixed.
    if (manifold.kind != "euclidean") fail(f.at("name"), "bpmf lives on euclidean space (manifold.name = euclidean)");
    const std::string path = f.string("data");
    data::Ratings r;
    try {
      r = data::load_ratings_csv(path);
    } catch (const Error& e) {
      fail(f.at("data"), e.what());
    }
    const auto latent = f.count("latent", 20, 1);
    const double tau = f.number("tau", 3.0, Range::positive);
    const double lambda = f.number("prior_precision", 1.0, Range::positive);
    const auto batch = f.count("batch_size", std::min<std::uint64_t>(1000, r.size()), 1);
    if (batch > r.size()) fail(f.at("batch_size"), fmt::format("expected at most the {} ratings of {}, got {}", r.size(), path, batch));
    const bool replace = f.boolean("with_replacement", false);
    const double mu = f.number("mean", r.mean(), Range::any);  // μ: default the data's mean rating
    t.gibbs_every = f.count("gibbs_every", 0, 0);
    models::Bpmf m{std::make_shared<const data::Ratings>(std::move(r)), static_cast<Eigen::Index>(latent), tau, mu,
                   std::make_shared<models::BpmfPrecisions>(models::BpmfPrecisions{lambda, lambda, lambda, lambda})};
    if (m.dim() != dim)
      fail(f.at("data"), fmt::format("{} users and {} items at latent {} give {} coordinates but the manifold has {}", m.users(),
                                     m.items(), latent, m.dim(), dim));
    t.model = data::minibatch(std::move(m), batch, replace ? models::Sampling::with_replacement : models::Sampling::without_replacement);
    out.update({{"data", path}, {"latent", latent}, {"tau", tau}, {"prior_precision", lambda}, {"mean", mu}, {"batch_size", batch},
                {"with_replacement", replace}, {"gibbs_every", t.gibbs_every}});
  } else if (name == "matrix_vmf") {
    if (manifold.kind != "stiefel") fail(f.at("name"), "matrix_vmf lives on a Stiefel manifold (manifold.name = stiefel)");
    const Eigen::MatrixXd F = as_matrix(f.get("F"), f.at("F"));
    if (F.rows() != manifold.rows || F.cols() != manifold.cols)
      fail(f.at("F"), fmt::format("expected an {}×{} matrix, got {}×{}", manifold.rows, manifold.cols, F.rows(), F.cols()));
    t.model = models::matrix_von_mises_fisher(F);
    out["F"] = f.get("F");
  } else {
    fail(f.at("name"), fmt::format("unknown target '{}' (known: gaussian, double_well, banana, linear, vmf, vmf_mixture, "
                                   "dirichlet, uniform, matrix_vmf, vmf_mixture_posterior, logistic, bnn, bpmf)", name));
  }
  if (name != "bnn" && name != "bpmf" && f.find("gibbs_every"))
    fail(f.at("gibbs_every"), fmt::format("only the bnn and bpmf targets have prior precisions for a Gibbs step; target '{}' has none", name));
  t.grad_noise = f.number("grad_noise", 0.0, Range::non_negative);
  out["grad_noise"] = t.grad_noise;
  f.finish();
  t.resolved = out;
  return t;
}

}  // namespace sgmcmc::run
