#pragma once
// The bias harness (`sgmcmc sweep CONFIG --reference REF`): a run config with a `sweep` section runs
// once per point of the grid samplers × step sizes × batch sizes, and each point is scored against a
// reference posterior — a Stan CSV file (CmdStan's or rstan's, docs/samplers.md says how to make one)
// or a run record of the library's own (say a long exact HMC run):
//   z_k = |mean_k − mean_ref,k| / sd_ref,k (max and rms over the coordinates), the sd ratios
//   sd_k / sd_ref,k, the pooled KSD (run/stein.hpp; euclidean targets with an exact gradient), the
//   smallest bulk ESS per second of sampling, the seconds of set-up (a control variate's mode search)
//   and of sampling, and the gradient evaluations spent by the chains; given the reference's own wall
//   time (Reference::seconds), each point's seconds as a fraction of it.
// A point that fails (a divergence, a refused combination) is reported with its error; the others go on.
//   "sweep": {"samplers": [{"name": "sgld"}, {"name": "sghmc", "friction": 10}],
//             "step_sizes": [0.001, 0.003], "batch_sizes": [100, 1000]}   (batch_sizes optional)
// An entry of `samplers` may also be {"label": "sghmc, control variates", "sampler": {...}, "target": {...},
// "step_sizes": [...]}: the target fields merged into the config's target (an estimator, say) and its
// own step sizes instead of the grid's. "ksd_draws": K scores at most K draws of each chain for the KSD
// (each a full-data gradient; 0 leaves the KSD out).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/modules/diagnostics/summary.hpp>
#include <sgmcmc/run/output/json_record.hpp>
#include <sgmcmc/run/output/stan_csv.hpp>
#include <sgmcmc/run/runner.hpp>
#include <sgmcmc/run/stein.hpp>

namespace sgmcmc::run {

/// A reference posterior's per-coordinate mean and sd, pooled over its chains (files).
struct Reference {
  Eigen::VectorXd mean, sd;
  std::size_t draws = 0;
  std::vector<std::string> sources;
  double seconds = 0;  ///< the reference's own wall time (NUTS's, say), when known: 0 otherwise
};

namespace detail {

/// The draws of a Stan CSV reference file, draws × coordinates: its parameter columns (every column
/// whose name does not end in "__").
inline Eigen::MatrixXd reference_csv_draws(const std::string& path) {
  run::detail::require_regular_input(path, "a reference is a file (a FIFO blocked the sweep for ever)");
  const output::StanCsv csv = output::read_stan_csv(path);
  std::vector<Eigen::Index> keep;
  for (std::size_t k = 0; k < csv.columns.size(); ++k)
    if (!csv.columns[k].ends_with("__")) keep.push_back(static_cast<Eigen::Index>(k));
  if (keep.empty()) throw Error(fmt::format("{}: no parameter columns (every column name ends in \"__\")", path));
  Eigen::MatrixXd m(csv.draws.rows(), static_cast<Eigen::Index>(keep.size()));
  for (std::size_t j = 0; j < keep.size(); ++j) m.col(static_cast<Eigen::Index>(j)) = csv.draws.col(keep[j]);
  return m;
}

/// The draws of a run record used as a reference, its chains stacked (draws × coordinates).
inline Eigen::MatrixXd reference_record_draws(const std::string& path) {
  std::vector<double> values;
  Eigen::Index d = 0;
  const json record = output::read_record(path, [&](const output::RecordDraw& r) {
    if (d == 0) d = static_cast<Eigen::Index>(r.values.size());
    if (static_cast<Eigen::Index>(r.values.size()) != d) throw Error(fmt::format("{}: draws of different sizes", path));
    values.insert(values.end(), r.values.begin(), r.values.end());
  }, false);
  try {
    validate_record(record);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
  if (values.empty()) throw Error(fmt::format("{}: the run record holds no draws", path));
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  return Eigen::Map<const RowMajor>(values.data(), static_cast<Eigen::Index>(values.size()) / d, d);
}

/// The draws of one reference file: a Stan CSV (a name ending in .csv) or a run record.
inline Eigen::MatrixXd reference_draws(const std::string& path) {
  return path.ends_with(".csv") ? reference_csv_draws(path) : reference_record_draws(path);
}

/// Each chain's draws (draws × coordinates) of a record held in memory.
inline std::vector<Eigen::MatrixXd> chains_of(const json& record) {
  std::vector<Eigen::MatrixXd> out;
  for (const json& ch : record["chains"]) {
    const json& s = ch["samples"];
    if (s.empty()) continue;
    Eigen::MatrixXd m(static_cast<Eigen::Index>(s.size()), static_cast<Eigen::Index>(s[0].size()));
    for (std::size_t i = 0; i < s.size(); ++i)
      for (std::size_t k = 0; k < s[i].size(); ++k) m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)) = s[i][k].get<double>();
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace detail

/// The reference from one or several files (several: chains pooled, e.g. CmdStan's output_1.csv, …),
/// each read by `draws_of` (detail::reference_draws: by its name's ending).
template <class DrawsOf = Eigen::MatrixXd (*)(const std::string&)>
inline Reference read_reference(const std::vector<std::string>& paths, DrawsOf draws_of = detail::reference_draws) {
  if (paths.empty()) throw Error("--reference: no file given");
  Reference ref;
  Eigen::MatrixXd all;
  for (const auto& p : paths) {
    const Eigen::MatrixXd m = draws_of(p);
    if (all.size() && m.cols() != all.cols())
      throw Error(fmt::format("{}: {} parameters, but {} has {}", p, m.cols(), paths.front(), all.cols()));
    Eigen::MatrixXd joined(all.rows() + m.rows(), m.cols());
    if (all.size()) joined.topRows(all.rows()) = all;
    joined.bottomRows(m.rows()) = m;
    all = std::move(joined);
    ref.sources.push_back(p);
  }
  if (all.rows() < 2) throw Error(fmt::format("{}: a reference needs at least 2 draws", paths.front()));
  ref.mean = all.colwise().mean().transpose();
  ref.sd = ((all.rowwise() - ref.mean.transpose()).array().square().colwise().sum() / static_cast<double>(all.rows() - 1)).sqrt().transpose();
  ref.draws = static_cast<std::size_t>(all.rows());
  if (!(ref.sd.array() > 0).all()) throw Error(fmt::format("{}: a coordinate of the reference has zero sd", paths.front()));
  return ref;
}

/// Scores one finished run against the reference.
/// `ksd_draws`: at most that many draws of each chain (evenly spaced) get the full-data gradient the
/// KSD needs; 0 leaves the KSD out (`ksd_unavailable` says so).
inline json score(const json& record, const Reference& ref, const Registry& registry,
                  std::size_t ksd_draws = std::numeric_limits<std::size_t>::max()) {
  const auto chains = detail::chains_of(record);
  if (chains.empty()) return {{"status", "error"}, {"error", "the run kept no draws"}};
  const Eigen::Index d = chains.front().cols();
  if (d != ref.mean.size())
    return {{"status", "error"}, {"error", fmt::format("the run has {} coordinates, the reference {}", d, ref.mean.size())}};
  const auto sums = diagnostics::summarize_columns(chains);
  double max_z = 0, sum_z2 = 0, max_sd_error = 0, min_ess = std::numeric_limits<double>::infinity();
  json ratios = json::array();
  for (Eigen::Index k = 0; k < d; ++k) {
    const auto& s = sums[static_cast<std::size_t>(k)];
    const double z = std::abs(s.mean - ref.mean[k]) / ref.sd[k], ratio = s.sd / ref.sd[k];
    max_z = std::max(max_z, z), sum_z2 += z * z;
    max_sd_error = std::max(max_sd_error, std::abs(ratio - 1));
    min_ess = std::min(min_ess, s.ess_bulk);
    ratios.push_back(ratio);
  }
  double sampling = 0, setup = 0;
  for (const json& p : record["timings"]["phases"]) sampling += p.value("sampling_seconds", 0.0), setup += p.value("setup_seconds", 0.0);
  std::uint64_t evals = 0;
  for (const json& ch : record["chains"]) evals += ch["diagnostics"].value("gradient_evals", std::uint64_t{0});
  json out = {{"status", record["status"]}, {"max_z", max_z}, {"rms_z", std::sqrt(sum_z2 / static_cast<double>(d))},
              {"sd_ratio", ratios}, {"max_sd_error", max_sd_error}, {"min_ess_bulk", min_ess},
              {"ess_per_second", sampling > 0 ? json(min_ess / sampling) : json(nullptr)}, {"sampling_seconds", sampling},
              {"setup_seconds", setup},
              {"gradient_evals", evals}, {"ksd", nullptr}};
  // A run whose chain failed (a divergence): its scores measure the failure, not the sampler, so the
  // point carries the chain's error (the console prints it, the plot leaves the point out).
  if (record["status"] == "error") {
    out["error"] = "a chain stopped with an error";
    for (const json& ch : record["chains"])
      if (ch.contains("error") && ch["error"].is_string()) {
        out["error"] = ch["error"];
        break;
      }
  }
  if (ksd_draws == 0) {
    out["ksd_unavailable"] = "not computed: sweep.ksd_draws is 0";
    return out;
  }
  std::vector<Eigen::MatrixXd> scored;
  for (const Eigen::MatrixXd& rows : chains) scored.push_back(detail::every_kth(rows.transpose(), ksd_draws).transpose());
  try {
    out["ksd"] = stein_report(record, scored, registry)[chains.size() > 1 ? "pooled" : "chains"];
    if (chains.size() == 1) out["ksd"] = out["ksd"][0];
    out["ksd"] = out["ksd"]["ksd"];
  } catch (const Error& e) {
    out["ksd_unavailable"] = e.what();  // a manifold target, no exact gradient, a Gibbs step
  }
  return out;
}

/// A sweep's grid read from its config: the config without `sweep` (each point's base), the `sweep`
/// section as given, and each point's run config with its entry in the results (sampler label and
/// section, target fields, step and batch size). Reading it runs nothing (the fuzz target
/// tests/fuzz/targets_cli.hpp reads grids this way).
struct SweepGrid {
  json base, grid;
  std::size_t ksd_draws = 0;
  struct Point {
    json config, entry;
  };
  std::vector<Point> points;
};

/// Reads `config`'s `sweep` section (errors name its JSON path); the points' configs are checked when
/// each is run.
inline SweepGrid sweep_grid(const json& config) {
  if (!config.is_object() || !config.contains("sweep")) fail("/sweep", "required field is missing (the grid to run)");
  SweepGrid out;
  json& base = out.base;
  base = config;
  out.grid = base["sweep"];
  const json& grid = out.grid;
  base.erase("sweep");
  Fields f(grid, "/sweep");
  const json& samplers = f.get("samplers");
  if (!samplers.is_array() || samplers.empty()) fail(f.at("samplers"), "expected a non-empty list of sampler sections");
  const Eigen::VectorXd steps = as_vector(f.get("step_sizes"), f.at("step_sizes"));
  if (steps.size() == 0 || !(steps.array() > 0).all()) fail(f.at("step_sizes"), "expected a non-empty list of positive numbers");
  std::vector<std::uint64_t> batches;
  if (const json* b = f.find("batch_sizes")) {
    if (!b->is_array() || b->empty()) fail(f.at("batch_sizes"), "expected a non-empty list of batch sizes");
    for (std::size_t i = 0; i < b->size(); ++i) batches.push_back(as_count((*b)[i], fmt::format("{}/{}", f.at("batch_sizes"), i), 1));
    if (!base.contains("target") || !base["target"].is_object())
      fail("/target", "batch_sizes needs a data target section to set batch_size in");
  }
  // Each scored draw costs a full-data gradient (the KSD's score): on a large data set that is the
  // sweep's main cost, so it can be bounded (or the KSD left out, 0).
  out.ksd_draws = f.count("ksd_draws", std::numeric_limits<std::uint64_t>::max(), 0);
  f.finish();
  struct Entry {
    json sampler, target;
    std::string label;
    Eigen::VectorXd steps;
  };
  std::vector<Entry> entries;
  for (std::size_t i = 0; i < samplers.size(); ++i) {
    const std::string at = fmt::format("/sweep/samplers/{}", i);
    const json& e = samplers[i];
    if (!e.is_object()) fail(at, "expected a sampler section, or {label, sampler, target, step_sizes}");
    Entry entry{e, json::object(), "", steps};
    if (e.contains("sampler")) {
      Fields ef(e, at);
      entry.sampler = ef.get("sampler");
      if (const json* t = ef.find("target")) {
        if (!t->is_object()) fail(ef.at("target"), "expected an object of target fields");
        // Merged into the config's target, which must be a section (finding C3: a number there let the
        // JSON library's type_error escape, naming no file).
        if (!t->empty() && base.contains("target") && !base["target"].is_object())
          fail("/target", fmt::format("expected a target section to merge {} into, got {}", ef.at("target"), describe(base["target"])));
        entry.target = *t;
      }
      if (const json* st = ef.find("step_sizes")) {
        entry.steps = as_vector(*st, ef.at("step_sizes"));
        if (entry.steps.size() == 0 || !(entry.steps.array() > 0).all()) fail(ef.at("step_sizes"), "expected a non-empty list of positive numbers");
      }
      entry.label = ef.string("label", "");
      ef.finish();
    }
    if (!entry.sampler.is_object() || !entry.sampler.contains("name") || !entry.sampler["name"].is_string())
      fail(at, "expected a sampler section with a name");
    if (entry.label.empty()) entry.label = entry.sampler["name"].get<std::string>();
    entries.push_back(std::move(entry));
  }
  if (batches.empty()) batches.push_back(0);  // 0: the target's own
  for (const Entry& e : entries)
    for (Eigen::Index j = 0; j < e.steps.size(); ++j)
      for (const std::uint64_t n : batches) {
        json c = base;
        c["sampler"] = e.sampler;
        c["sampler"]["step_size"] = e.steps[j];
        if (!e.target.empty()) c["target"].update(e.target);
        if (n) c["target"]["batch_size"] = n;
        json entry = {{"sampler", e.label}, {"sampler_section", e.sampler}, {"target_fields", e.target}, {"step_size", e.steps[j]},
                      {"batch_size", n ? json(n) : json(nullptr)}};
        out.points.push_back({std::move(c), std::move(entry)});
      }
  return out;
}

/// Runs the grid of `config`'s `sweep` section and scores every point; `on_point` sees each as it ends.
inline json sweep(const json& config, const Reference& ref, const Options& opt = {}, const Registry& registry = shipped_registry(),
                  const std::function<void(const json&)>& on_point = {}) {
  const SweepGrid g = sweep_grid(config);
  json points = json::array();
  for (const SweepGrid::Point& p : g.points) {
    json point = p.entry;
    try {
      point.update(score(run(p.config, opt, registry), ref, registry, g.ksd_draws));
      if (ref.seconds > 0 && point.contains("sampling_seconds"))
        point["fraction_of_reference"] = (point["setup_seconds"].get<double>() + point["sampling_seconds"].get<double>()) / ref.seconds;
    } catch (const Error& e) {
      point["status"] = "error";
      point["error"] = e.what();
    }
    if (on_point) on_point(point);
    points.push_back(std::move(point));
  }
  json reference = {{"sources", ref.sources}, {"draws", ref.draws}, {"mean", vector_json(ref.mean)}, {"sd", vector_json(ref.sd)}};
  if (ref.seconds > 0) reference["seconds"] = ref.seconds;
  return {{"schema", "sgmcmc.sweep"}, {"config", g.base}, {"grid", g.grid}, {"reference", reference}, {"points", points}};
}

}  // namespace sgmcmc::run
