// The tuner (run/tune.hpp).
#include <sgmcmc/run/tune.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/modules/diagnostics/stein.hpp>
#include <sgmcmc/modules/diagnostics/stein_sphere.hpp>
#include <sgmcmc/modules/parallel/worker_pool.hpp>
#include <sgmcmc/modules/tuning/dual_averaging.hpp>
#include <sgmcmc/modules/tuning/successive_halving.hpp>
#include <sgmcmc/run/make_chain.hpp>

namespace sgmcmc::run {
namespace {

using Clock = std::chrono::steady_clock;

/// The arms' and the adaptation chains' random streams: above every chain's (chains are at most 4096),
/// so tuning draws nothing a chain of the run draws.
constexpr std::uint32_t arm_stream_base = 0x80000000u;
constexpr std::uint32_t adaptation_stream_base = 0xA0000000u;
constexpr std::uint32_t curvature_stream = 0xC0000000u;

/// The most KSD work per arm and round: m points cost m² d kernel terms.
constexpr double ksd_terms = 2.5e8;
/// The most numbers the arms may hold at once in their chains' positions and their gradient logs (1 GiB
/// of doubles): checked before any arm is built.
constexpr double most_numbers = static_cast<double>(std::uint64_t{1} << 27);
/// The cheapest arm needs this many steps in the first round for the tuning to mean anything; an arm
/// whose batch is so large that a round's share buys it fewer than `fewest_steps` is left out of that
/// round (the budget's verdict on it: MAMBA's equal shares favour cheap arms the same way).
constexpr std::uint64_t least_steps = 100;
constexpr std::uint64_t fewest_steps = 10;

/// The sampler section with the chosen step (and friction), parsed through the sampler's entry as
/// parse_config parses it (its temperature kept).
SamplerChoice parse_sampler(const RunConfig& c, const Registry& registry, json section) {
  Fields s(section, "/sampler");
  const std::string name = s.string("name");
  (void)s.find("temperature");  // parse_config applied it to the target already
  SamplerChoice choice = registry.sampler(name, s.at("name")).parse(s, c.manifold, c.target, RunLength{c.steps, c.burn_in});
  s.finish();
  if (c.resolved["sampler"].contains("temperature")) choice.resolved["temperature"] = c.resolved["sampler"]["temperature"];
  return choice;
}

/// Where chain `index` starts (make_chain's rule), drawn from `rng` when the config gives no init.
Eigen::VectorXd start_of(const RunConfig& c, std::size_t index, random::Stream& rng) {
  if (!c.init.empty()) return c.init[std::min(index, c.init.size() - 1)];
  Eigen::VectorXd x0 = c.manifold.manifold.random_point(rng);
  if (c.target.start && c.manifold.geometry.flat && c.target.start->size() == x0.size()) x0 += *c.target.start;
  return x0;
}

/// The potential's largest curvature near x by power iteration on finite differences of its gradient,
/// each pair of gradients drawn with the same random stream (the same minibatch and noise), so the
/// difference is the minibatch Hessian's product with v. Where the default step-size grid is anchored.
/// On the unit sphere, the Riemannian Hessian's: v tangent, Hv = P_x(∇²U v) − (xᵀ∇U) v.
double largest_curvature(const AnyTarget& target, const Eigen::VectorXd& x, std::uint64_t seed, bool sphere) {
  random::Stream rng(seed, curvature_stream);
  const Eigen::Index d = x.size();
  Eigen::VectorXd v(d), g0(d), g1(d), hv(d);
  for (Eigen::Index i = 0; i < d; ++i) v[i] = rng.normal();
  const auto tangent = [&](Eigen::VectorXd& w) {
    if (sphere) w -= x * x.dot(w);
  };
  tangent(v);
  v.normalize();
  double lambda = 0, eps = 1e-4;
  for (int it = 0; it < 30; ++it) {
    // Each gradient on a fresh copy: an estimator with a state (SAGA's table, SVRG's centre) would
    // otherwise carry the first point into the second's gradient (SAGA's L̂ came out twice the others').
    random::Stream same = rng;
    AnyTarget(target).gradient(x, g0, same);
    same = rng;
    AnyTarget(target).gradient(x + eps * v, g1, same);
    hv = (g1 - g0) / eps;
    if (sphere) {
      tangent(hv);
      hv -= x.dot(g0) * v;
    }
    if (!hv.allFinite()) break;
    const double next = std::abs(v.dot(hv));
    const double norm = hv.norm();
    if (!(norm > 0)) break;
    v = hv / norm;
    const bool settled = it > 3 && std::abs(next - lambda) <= 1e-3 * next;
    lambda = next;
    eps = 1e-3 / std::sqrt(std::max(lambda, 1e-12));  // a thousandth of the stiffest direction's scale
    (void)rng.normal();  // a new minibatch for the next product
    if (settled) break;
  }
  return lambda;
}

std::vector<double> numbers_of(const json& j, const std::string& path, bool whole) {
  if (!j.is_array() || j.empty()) fail(path, fmt::format("expected a non-empty list of numbers, got {}", describe(j)));
  if (j.size() > 64) fail(path, fmt::format("expected at most 64 values, got {}", j.size()));
  std::vector<double> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string p = fmt::format("{}/{}", path, i);
    out.push_back(whole ? static_cast<double>(as_count(j[i], p, 1)) : as_number(j[i], p, Range::positive));
  }
  return out;
}

struct Arm {
  double step = 0;
  double friction = 0;     ///< 0: not tuned
  std::uint64_t batch = 0; ///< 0: not tuned
  double cost = 1;         ///< budget units per step (batch / smallest batch)
  std::unique_ptr<AnyChain> chain;
  std::shared_ptr<GradientLog> log;
  std::string error;
  bool diverged = false;  ///< its chain failed (not merely too few steps for the round)
  json rounds = json::array();
};

/// The frame the kernel sees, one for all arms of a round: each coordinate's centre and scale, the
/// medians over the arms of their points' means and sds. In z = (x − centre)/scale the IMQ kernel's
/// unit length is one posterior sd in every coordinate (the raw coordinates of a logistic regression at
/// N = 10⁵ spread over 0.01, where a unit-length kernel sees only the mean score).
struct Frame {
  Eigen::VectorXd centre, scale;
};
Frame frame_of(const std::vector<Arm>& arms, const std::vector<std::size_t>& alive) {
  std::vector<Eigen::VectorXd> means, sds;
  for (std::size_t a : alive) {
    const Arm& arm = arms[a];
    if (!arm.error.empty() || arm.log->size < 2) continue;
    const auto p = arm.log->points.leftCols(arm.log->size);
    const Eigen::VectorXd mean = p.rowwise().mean();
    means.push_back(mean);
    sds.push_back(((p.colwise() - mean).array().square().rowwise().sum() / static_cast<double>(p.cols() - 1)).sqrt().matrix());
  }
  if (sds.empty()) return {};
  const auto median = [](const std::vector<Eigen::VectorXd>& v) {
    Eigen::VectorXd out(v.front().size());
    std::vector<double> column(v.size());
    for (Eigen::Index j = 0; j < out.size(); ++j) {
      for (std::size_t k = 0; k < v.size(); ++k) column[k] = v[k][j];
      std::nth_element(column.begin(), column.begin() + static_cast<std::ptrdiff_t>(column.size() / 2), column.end());
      out[j] = column[column.size() / 2];
    }
    return out;
  };
  Frame f{median(means), median(sds)};
  const double floor = std::max(f.scale.maxCoeff() * 1e-8, std::numeric_limits<double>::min());
  f.scale = f.scale.cwiseMax(floor);
  return f;
}

/// A U-statistic over an arm's points and its standard error from the Hoeffding projection:
/// U = mean_i h_i, h_i = (n − 1)⁻¹ Σ_{j≠i} q(i, j), se ≈ 2 sd(h)/√n (the points are a thinned chain's,
/// so this is a lower bound; what it must show is an arm whose few wild points make U large either way).
struct Scored {
  double ksd2 = std::numeric_limits<double>::infinity();
  double se = 0;
  /// What arms are ranked by: an upper bound the arm's KSD² is unlikely to exceed. A wild arm's U can
  /// be far below 0 (−653 beat 0.009 on a glm model, then diverged in the run: docs/tuning.md); its se
  /// is larger still.
  double score() const { return ksd2 + 2 * se; }
};
template <class Pair>
Scored u_statistic(Eigen::Index n, Pair&& q) {
  Eigen::VectorXd h = Eigen::VectorXd::Zero(n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = i + 1; j < n; ++j) {
      const double v = q(i, j);
      h[i] += v;
      h[j] += v;
    }
  h /= static_cast<double>(n - 1);
  const double nd = static_cast<double>(n);
  const double mean = h.mean();
  const double var = (h.array() - mean).square().sum() / (nd - 1);
  return {mean, 2 * std::sqrt(var / nd)};
}

/// An arm's score: KSD² (U-statistic) for the kernel IMQ + diagonal linear, in the round's frame z.
/// The IMQ part (Gorham & Mackey's c = 1, β = −1/2) is MAMBA's. The linear part k(z, z') = Σ_m z_m z'_m e_m e_mᵀ
/// adds Σ_m (E[z_m s_m] + 1)² = Σ_m (1 − T_m)², T_m the coordinate's configurational temperature (a
/// KSD of a sum of kernels is the sum of their KSD²s): it is what sees a posterior too wide by 9 % at
/// N = 10⁵ that the IMQ part alone ranked best (docs/tuning.md), and a chain that has not yet spread.
Scored score_of(const Arm& arm, const Frame& frame, bool sphere) {
  const Eigen::Index n = arm.log->size;
  if (n < 2) return {};
  if (sphere) {
    // On the sphere the points stay unit vectors (the operator needs them there): the IMQ kernel's
    // length is the arms' typical spread instead, at most the sphere's radius.
    const Eigen::MatrixXd x = arm.log->points.leftCols(n), s = -arm.log->gradients.leftCols(n);
    if (!x.allFinite() || !s.allFinite()) return {};
    Eigen::MatrixXd tilde(x.rows(), n);
    for (Eigen::Index i = 0; i < n; ++i) tilde.col(i) = diagnostics::sphere_score(x.col(i), s.col(i));
    const diagnostics::ImqKernel k{std::clamp(frame.scale.norm(), 1e-3, 1.0), -0.5};
    return u_statistic(n, [&](Eigen::Index i, Eigen::Index j) {
      return diagnostics::sphere_stein_kernel(x.col(i), tilde.col(i), x.col(j), tilde.col(j), k);
    });
  }
  const Eigen::MatrixXd z = (arm.log->points.leftCols(n).colwise() - frame.centre).array().colwise() / frame.scale.array();
  const Eigen::MatrixXd s = -(arm.log->gradients.leftCols(n).array().colwise() * frame.scale.array()).matrix();
  if (!z.allFinite() || !s.allFinite()) return {};
  const Eigen::MatrixXd u = (z.array() * s.array() + 1).matrix();  // u_a,m = z_m s_m + 1, mean 0 under the target
  return u_statistic(n, [&](Eigen::Index i, Eigen::Index j) {
    return diagnostics::stein_kernel(z.col(i), s.col(i), z.col(j), s.col(j)) + u.col(i).dot(u.col(j));
  });
}

std::string fmt_number(double x) { return fmt::format("{:.4g}", x); }

json arm_json(const Arm& a) {
  json j = {{"step_size", a.step}};
  if (a.friction > 0) j["friction"] = a.friction;
  if (a.batch > 0) j["batch_size"] = a.batch;
  return j;
}

/// Successive halving over the grid, scored by KSD (MAMBA).
json tune_stein(RunConfig& c, const Registry& registry, const Options& opt) {
  const TuneRequest& req = *c.tune;
  // The Stein operators the score has: the Euclidean one, and the unit sphere's (stein_sphere.hpp).
  const bool sphere = c.manifold.geometry.unit_sphere && c.manifold.geometry.factors.empty();
  if (!c.manifold.geometry.flat && !sphere)
    fail("/sampler/step_size", fmt::format("the tuner scores arms by a kernel Stein discrepancy, whose Stein operator it has for "
                                           "euclidean space and the sphere only: on manifold '{}' it needs the manifold's own divergence "
                                           "(not built). Give a step size (sgmcmc sweep compares several)", c.manifold.kind));
  if (c.target.gradient.gibbs_every > 0)
    fail("/sampler/step_size", fmt::format("target '{}' resamples its precisions by Gibbs steps, so its gradient has no fixed score to "
                                           "measure a Stein discrepancy against: give a step size, or set gibbs_every 0", c.target.kind));
  if (c.target.target.is_dirichlet_type())
    fail("/sampler/step_size", fmt::format("target '{}' gives samplers its concentrations, not a gradient to score: give a step size",
                                           c.target.kind));
  const json section_in = req.section.is_null() ? json::object() : req.section;
  Fields f(section_in, "/tune");
  const auto eta = static_cast<unsigned>(f.count("eta", 3, 2));
  if (eta > 16) fail(f.at("eta"), fmt::format("expected at most 16, got {}", eta));

  // Where the arms start, and the curvature there that anchors the default step grid. Unless the config
  // gives an init, in the posterior's bulk where the run has a point there: the control variate's
  // centre, or else (euclidean, with a value) a mode by L-BFGS; the run's chains then start there too,
  // as Stan's sampling goes on from its warm-up's end. From a start far out, short arms measure how
  // fast a setting travels to the posterior, not how well it samples it, and the fastest are too hot:
  // a gaussian glm (N = 2000, control variates, 4000 steps) came out with sds 13–30 % too wide from the
  // glm's start and 2–4 % from its centre; without control variates 3.4–17 times too wide (N = 10³–5·10³,
  // the chains still travelling after the burn-in) and 7–20 % from the mode (docs/tuning.md).
  random::Stream start_rng(c.seed, arm_stream_base - 1);
  std::optional<Eigen::VectorXd> bulk;
  std::string start = c.init.empty() ? "random" : "init";
  if (c.init.empty()) {
    if (c.target.gradient.centre) {
      bulk = *c.target.gradient.centre, start = "centre";
    } else if (c.manifold.geometry.flat && c.target.target.has_value()) {
      try {
        bulk = detail::mode_of(c.target, c.manifold, c.manifold.manifold.ambient_size());  // `"init": "mode"`'s search
        start = "mode";
      } catch (const Error&) {  // no mode to find (an improper posterior, a flat direction): a random start
      }
    }
  }
  const Eigen::VectorXd x0 = bulk ? *bulk : start_of(c, 0, start_rng);
  const double curvature = largest_curvature(c.target.target, x0, c.seed, sphere);

  json grid_in = f.find("grid") ? f.get("grid") : json::object();
  Fields g(grid_in, f.at("grid"));
  std::vector<double> steps;
  if (g.find("step_size")) {
    steps = numbers_of(g.get("step_size"), g.at("step_size"), false);
  } else {
    if (!(curvature > 0) || !std::isfinite(curvature))
      fail("/tune/grid/step_size", fmt::format("the potential's curvature at the arms' start could not be measured ({}): give the step "
                                               "sizes to try", curvature));
    // The grid's top, inside the stiffest direction's scale, where its sd is off by a few per cent:
    // Euler's (SGLD's) stationary variance there is 1/(L(1 − hL/2)), so hL = 0.1 (sd +2.6 %); the
    // momentum samplers at h√L = 0.32 measured within 5 % on the glm families. At 1/L̂ and 1/√L̂ the
    // short arms' KSD picked the tops, and the runs' sds were 8–17 % off (docs/tuning.md).
    const double anchor = req.facts.second_order ? 1 / std::sqrt(10 * curvature) : 1 / (10 * curvature);
    for (int k = 0; k <= 6; ++k) steps.push_back(anchor * std::pow(10.0, -0.5 * k));
  }
  std::vector<double> frictions = {0};
  if (req.friction) {
    if (g.find("friction")) frictions = numbers_of(g.get("friction"), g.at("friction"), false);
    else frictions = {0.2 * std::sqrt(curvature), 2 * std::sqrt(curvature)};
  } else if (g.find("friction")) {
    fail(g.at("friction"), "the friction is given in the sampler section (or the sampler has none): nothing to choose");
  }
  std::vector<std::uint64_t> batches = {0};
  if (req.batch) {
    const std::uint64_t n = c.target.examples.value_or(0);
    batches.clear();
    if (g.find("batch_size")) {
      for (double b : numbers_of(g.get("batch_size"), g.at("batch_size"), true)) {
        if (b > static_cast<double>(n)) fail(g.at("batch_size"), fmt::format("{} is more than the target's {} examples", b, n));
        batches.push_back(static_cast<std::uint64_t>(b));
      }
    } else {
      for (double fraction : {1e-3, 1e-3 * std::sqrt(10.0), 1e-2}) {
        const auto b = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::llround(fraction * static_cast<double>(n))),
                                                 std::min<std::uint64_t>(n, 10), n);
        if (std::find(batches.begin(), batches.end(), b) == batches.end()) batches.push_back(b);
      }
    }
    std::sort(batches.begin(), batches.end());
  } else if (g.find("batch_size")) {
    fail(g.at("batch_size"), "the batch size is given in the target section (or the target has none): nothing to choose");
  }
  g.finish();
  const double smallest = batches.front() > 0 ? static_cast<double>(batches.front()) : 1.0;

  // The budget by default: a quarter of one chain's steps at the grid's middle batch size, and at least
  // what gives every first-round arm `least_steps` steps at the smallest.
  const double middle = batches.front() > 0 ? static_cast<double>(batches[batches.size() / 2]) / smallest : 1.0;
  const std::size_t arm_count = steps.size() * frictions.size() * batches.size();
  const double least_budget = static_cast<double>(least_steps * arm_count * tuning::HalvingPlan{arm_count, eta, 1.0}.rounds());
  const double budget = f.number("budget", std::max(least_budget, static_cast<double>(c.steps) / 4 * middle), Range::positive);
  const double dim = static_cast<double>(x0.size());
  // A chain's vectors and a log of at least 10 points, for every arm: 48 numbers per arm and coordinate.
  if (static_cast<double>(arm_count) * 48 * dim > most_numbers)
    fail("/tune/grid", fmt::format("{} arms of dimension {} would hold {:.3g} numbers at once: at most {:.3g}; give fewer values in the grid",
                                   arm_count, x0.size(), static_cast<double>(arm_count) * 48 * dim, most_numbers));
  // Points per arm and round: m²d ≤ ksd_terms, and every arm's log (2md numbers) within the memory bound.
  const double fit = std::min(std::sqrt(ksd_terms / dim), most_numbers / (4 * dim * static_cast<double>(arm_count)));
  const std::uint64_t points_default = static_cast<std::uint64_t>(std::clamp(fit, 10.0, 500.0));
  const std::uint64_t points = f.count("points", points_default, 10);
  if (points > 10000) fail(f.at("points"), fmt::format("expected at most 10000, got {}", points));
  if (2 * static_cast<double>(points) * dim * static_cast<double>(arm_count) > most_numbers / 2)
    fail(f.at("points"), fmt::format("{} points of dimension {} for each of {} arms: at most {:.0f} fit in the tuner's memory bound",
                                     points, x0.size(), arm_count, std::floor(most_numbers / (4 * dim * static_cast<double>(arm_count)))));
  f.finish();

  std::vector<Arm> arms;
  for (std::uint64_t b : batches)
    for (double fr : frictions)
      for (double h : steps) {
        Arm a;
        a.step = h, a.friction = fr, a.batch = b;
        a.cost = b > 0 ? static_cast<double>(b) / smallest : 1.0;
        arms.push_back(std::move(a));
      }
  if (arms.size() > 4096) fail("/tune/grid", fmt::format("{} arms: at most 4096", arms.size()));
  const tuning::HalvingPlan plan{arms.size(), eta, budget};
  {
    const double first = plan.per_arm(0);  // the cheapest arm's cost is 1
    if (first < static_cast<double>(least_steps))
      fail("/tune/budget", fmt::format("a budget of {} gradient evaluations gives each of the {} arms of the first round {:.0f} steps at "
                                       "the smallest batch size: at least {} are needed. Raise /tune/budget to at least {:.0f}, or give "
                                       "fewer values in /tune/grid", fmt_number(budget), arms.size(), first, least_steps,
                                       std::ceil(static_cast<double>(least_steps) * budget / first)));
  }

  // Each arm: the run's sampler with its settings, on the target at its batch size, logging its gradients.
  for (std::size_t k = 0; k < arms.size(); ++k) {
    Arm& a = arms[k];
    json section = req.sampler;
    section["step_size"] = a.step;
    if (a.friction > 0) section["friction"] = a.friction;
    const SamplerChoice s = parse_sampler(c, registry, section);
    AnyTarget t = c.target.target;
    if (a.batch > 0) t = c.target.with_batch_size(a.batch).target.tempered(c.target.target.temperature_schedule());
    a.log = std::make_shared<GradientLog>();
    a.chain = s.build(c.manifold.manifold, t.logging_to(a.log), x0, random::Stream(c.seed, arm_stream_base + static_cast<std::uint32_t>(k)));
  }

  const unsigned threads = std::max(1u, opt.threads ? opt.threads : std::thread::hardware_concurrency());
  parallel::WorkerPool pool(std::min<unsigned>(threads, static_cast<unsigned>(arms.size())));
  json rounds = json::array();
  double spent = 0;
  const std::size_t chosen = tuning::successive_halving(
      plan,
      [&](std::size_t round, const std::vector<std::size_t>& alive, double per_arm, std::vector<double>& score) {
        auto play = [&](std::size_t i, unsigned) {
          Arm& a = arms[alive[i]];
          const auto n = static_cast<std::uint64_t>(per_arm / a.cost);
          if (n < fewest_steps) {
            a.error = fmt::format("{} steps in round {}: too few at batch size {} for the round's share of the budget", n, round + 1, a.batch);
            a.rounds.push_back({{"round", round}, {"steps", 0}, {"gradient_evaluations", 0.0}});
            return;
          }
          a.log->reset(x0.size(), static_cast<Eigen::Index>(points), std::max<std::uint64_t>(1, (n + points - 1) / points));
          Draws none;
          const ChainStatus st = a.chain->advance(n, Retention{n + a.chain->steps_done() + 1, 1}, none, nullptr, opt.stop);
          if (!st.ok()) a.error = st.error;
          else if (!a.chain->position().allFinite()) a.error = "the chain's position is not finite";
          a.diverged = !a.error.empty();
          a.rounds.push_back({{"round", round}, {"steps", n}, {"gradient_evaluations", static_cast<double>(n) * a.cost}});
        };
        pool.for_each(alive.size(), play);
        if (opt.stop && opt.stop->load()) throw Error("tuning interrupted: nothing was chosen, and no chain has started");
        const Frame frame = frame_of(arms, alive);
        for (std::size_t a : alive) {
          Arm& arm = arms[a];
          spent += arm.rounds.back()["gradient_evaluations"].get<double>();
          const Scored sc = arm.error.empty() && frame.scale.size() > 0 ? score_of(arm, frame, sphere) : Scored{};
          score[a] = sc.score();
          if (std::isfinite(score[a])) arm.rounds.back().update({{"ksd_squared", sc.ksd2}, {"se", sc.se}, {"score", score[a]}});
          else if (arm.error.empty()) arm.error = "its gradients or points are not finite", arm.diverged = true;
        }
      },
      [&](std::size_t round, const std::vector<std::size_t>& alive, const std::vector<double>&) {
        rounds.push_back({{"round", round}, {"arms", alive.size()}});
      });

  json record = {{"method", "stein"}, {"start", start}, {"eta", eta}, {"budget", budget}, {"points", points}, {"curvature", curvature},
                 {"gradient_evaluations", spent}, {"rounds", rounds.size()}};
  record["grid"] = {{"step_size", steps}};
  if (req.friction) record["grid"]["friction"] = frictions;
  if (req.batch) record["grid"]["batch_size"] = batches;
  json arms_json = json::array();
  for (const Arm& a : arms) {
    json j = arm_json(a);
    j["rounds"] = a.rounds;
    j["status"] = a.error.empty() ? "ok" : "failed: " + a.error;
    arms_json.push_back(std::move(j));
  }
  record["arms"] = std::move(arms_json);
  if (chosen >= arms.size()) {
    std::string why;
    for (const Arm& a : arms)
      if (!a.error.empty()) {
        why = a.error;
        break;
      }
    fail("/tune", fmt::format("no arm gave a usable run: every one of the {} arms failed (the first: {}). Smaller step sizes in "
                              "/tune/grid/step_size (tried {} to {}), or a start nearer the posterior (\"init\": \"mode\")",
                              arms.size(), why.empty() ? "no finite score" : why, fmt_number(steps.back()), fmt_number(steps.front())));
  }
  const Arm& best = arms[chosen];
  json choice = arm_json(best);
  choice["arm"] = chosen;
  // A margin from instability: where an arm with the same friction and batch size diverged at step h_d,
  // the run's step is at most h_d/10. The run is longer than any arm, and a chain next to the edge
  // crosses it in the end (the arm next to a diverged one, a factor √10 smaller, diverged in 4 of 28
  // glm runs: docs/tuning.md).
  double unstable = std::numeric_limits<double>::infinity();
  for (const Arm& a : arms)
    if (a.diverged && a.friction == best.friction && a.batch == best.batch) unstable = std::min(unstable, a.step);
  double step = best.step;
  if (step > unstable / 10) {
    double below = 0;
    for (double h : steps)
      if (h <= unstable / 10) below = std::max(below, h);
    step = below > 0 ? below : *std::min_element(steps.begin(), steps.end());
    choice["step_size"] = step;
    choice["margin"] = {{"from", best.step}, {"diverged_at", unstable}};
  }
  record["chosen"] = choice;

  // The run: the chosen settings, in the sections a resume reads.
  json section = req.sampler;
  section["step_size"] = step;
  if (best.friction > 0) section["friction"] = best.friction;
  c.sampler = parse_sampler(c, registry, section);
  if (best.batch > 0) {
    Rebatched r = c.target.with_batch_size(best.batch);
    c.target.target = r.target.tempered(c.target.target.temperature_schedule());
    c.target.resolved = std::move(r.resolved);
  }
  // The arms' start in the bulk is the run's init (on the reported scale, as a given init is), so the
  // tuned config runs the same draws.
  if (bulk) {
    c.init.assign(c.chains, *bulk);
    c.resolved["init"] = vector_json(c.target.target.reported(*bulk));
  }
  return record;
}

/// Whether `j` holds a non-finite number anywhere (a record writes it as null, and a restore refuses it).
bool holds_non_finite(const json& j) {
  if (j.is_number_float()) return !std::isfinite(j.get<double>());
  if (j.is_structured())
    for (const json& v : j)
      if (holds_non_finite(v)) return true;
  return false;
}

/// Dual averaging on each chain (Stan's warm-up step-size adaptation, without its metric windows);
/// the run's step is the median of the chains' adapted steps.
json tune_dual_averaging(RunConfig& c, const Registry& registry, const Options& opt) {
  const TuneRequest& req = *c.tune;
  const json section_in = req.section.is_null() ? json::object() : req.section;
  Fields f(section_in, "/tune");
  const double delta = f.number("target_accept", 0.8, Range::unit_open);
  const std::uint64_t iterations = f.count("steps", std::clamp<std::uint64_t>(c.burn_in, 200, 1000), 10);
  if (iterations > 100000) fail(f.at("steps"), fmt::format("expected at most 100000, got {}", iterations));
  f.finish();
  const auto with_step = [&](double h) {
    json section = req.sampler;
    section["step_size"] = h;
    return parse_sampler(c, registry, section);
  };
  struct Adapted {
    double first = 0, adapted = 0, mean_accept = 0;
    std::string error;
    Eigen::VectorXd end;  ///< where the chain's adaptation ended: where its run starts
  };
  std::vector<Adapted> out(c.chains);
  auto adapt = [&](std::size_t i, unsigned) {
    random::Stream rng(c.seed, adaptation_stream_base + static_cast<std::uint32_t>(i));
    const Eigen::VectorXd x0 = start_of(c, i, rng);
    std::unique_ptr<AnyChain> chain = with_step(1.0).build(c.manifold.manifold, c.target.target, x0, rng);
    Draws draws;
    // The state the next iteration starts from: the last one that holds only finite numbers. A step
    // whose trajectory diverged leaves its momentum non-finite, and no chain can be restored from that
    // (a glm at Stan's first step h = 1 did): the next iteration starts before it.
    json state = chain->state();
    Eigen::VectorXd at = chain->position();
    // One iteration at step h from that state: its acceptance statistic.
    const auto iterate = [&](double h) {
      chain = with_step(h).build(c.manifold.manifold, c.target.target, at, rng);
      chain->restore(state, "/tune");
      draws.clear();
      const ChainStatus st = chain->advance(1, Retention{0, 1}, draws, nullptr, opt.stop);
      if (json next = chain->state(); !holds_non_finite(next) && chain->position().allFinite()) {
        state = std::move(next);
        at = chain->position();
      }
      if (!st.ok() || draws.stats.empty()) return 0.0;
      const StepInfo& info = draws.stats.back();
      return info.divergent || !std::isfinite(info.acceptance) ? 0.0 : info.acceptance;
    };
    // Stan's first step: from 1, doubled or halved until one iteration's acceptance crosses 0.8.
    double h = 1.0;
    const bool up = iterate(h) > delta;
    for (int k = 0; k < 60; ++k) {
      const double next = up ? 2 * h : h / 2;
      const bool still = (iterate(next) > delta) == up;
      h = next;
      if (!still) break;
    }
    tuning::DualAveraging da = tuning::DualAveraging::starting_at(h, delta);
    double sum = 0;
    for (std::uint64_t t = 0; t < iterations; ++t) {
      const double a = iterate(da.step());
      sum += a;
      da.update(a);
      if (opt.stop && opt.stop->load()) break;
    }
    out[i] = {h, da.adapted(), sum / static_cast<double>(iterations), {}, at};
  };
  const unsigned threads = std::max(1u, opt.threads ? opt.threads : std::thread::hardware_concurrency());
  parallel::WorkerPool pool(std::min<unsigned>(threads, static_cast<unsigned>(c.chains)));
  pool.for_each(c.chains, adapt);
  if (opt.stop && opt.stop->load()) throw Error("tuning interrupted: nothing was chosen, and no chain has started");
  std::vector<double> steps;
  json chains = json::array();
  for (const Adapted& a : out) {
    steps.push_back(a.adapted);
    chains.push_back({{"first_step", a.first}, {"adapted", a.adapted}, {"mean_accept_stat", a.mean_accept}});
  }
  std::sort(steps.begin(), steps.end());
  const double median = steps.size() % 2 ? steps[steps.size() / 2] : std::sqrt(steps[steps.size() / 2 - 1] * steps[steps.size() / 2]);
  if (!(median > 0) || !std::isfinite(median))
    fail("/tune", "dual averaging found no usable step size: give step_size (the target's gradient may not be finite at the start)");
  c.sampler = with_step(median);
  json record = {{"method", "dual_averaging"}, {"target_accept", delta}, {"steps", iterations}, {"chains", chains},
                 {"chosen", {{"step_size", median}}}};
  // As Stan's sampling goes on from its warm-up's end, each chain's run starts where its adaptation
  // ended, in the posterior's bulk: from its random start a chain of the adapted (small) step could sit
  // rejecting every proposal (a glm's chain did, 20,000 steps). The points are the config's `init`, on
  // the reported scale as a given init is, so the tuned config runs the same draws; a given init is
  // kept in the tuning record.
  if (c.resolved.contains("init")) record["init"] = c.resolved["init"];
  c.init.clear();
  json init = json::array();
  for (const Adapted& a : out) {
    c.init.push_back(a.end);
    init.push_back(vector_json(c.target.target.reported(a.end)));
  }
  c.resolved["init"] = std::move(init);
  return record;
}

}  // namespace

json tune(RunConfig& c, const Registry& registry, const Options& opt) {
  require(c.tune.has_value(), "tune: the config leaves nothing to tune");
  const auto t0 = Clock::now();
  json record = c.tune->facts.method == TuningFacts::Method::dual_averaging ? tune_dual_averaging(c, registry, opt)
                                                                            : tune_stein(c, registry, opt);
  c.resolved["sampler"] = c.sampler.resolved;
  c.resolved["target"] = c.target.resolved;
  c.resolved["tune"] = record;
  // What the run loop reads from the sampler besides its chains.
  c.retention = Retention{c.burn_in, c.thin, 0, 0, c.retention.save_warmup};
  c.tune.reset();
  c.tuning_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return record;
}

}  // namespace sgmcmc::run
