// The run record's schema and shared parts (run/record_schema.hpp).
#include <sgmcmc/run/record_schema.hpp>

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include <sgmcmc/data/fingerprint.hpp>
#include <sgmcmc/modules/simd/reproducibility.hpp>
#include <sgmcmc/run/data_files.hpp>
#include <sgmcmc/run/samplers/preconditioned.hpp>
#include <sgmcmc/version.hpp>

namespace sgmcmc::run {

std::string config_digest(const json& config) {
  data::Fnv1a64 h;
  h.add(config.dump());
  return h.hex();
}

void validate_record(const json& r) {
  if (!r.is_object()) fail("", "expected a run record (a JSON object)");
  if (!r.contains("schema") || r["schema"] != schema_name)
    fail("/schema", fmt::format("expected \"{}\", got {}", schema_name, r.contains("schema") ? describe(r["schema"]) : "nothing"));
  if (!r.contains("schema_version") || !r["schema_version"].is_number_integer())
    fail("/schema_version", "expected an integer");
  // Read as the JSON integer it is (a 64-bit one: 2^32 + 2 is not version 2).
  const json& v = r["schema_version"];
  const bool positive = v.is_number_unsigned() ? v.get<std::uint64_t>() >= 1 : v.get<std::int64_t>() >= 1;
  if (!positive) fail("/schema_version", fmt::format("expected a version >= 1, got {}", describe(v)));
  if (v.get<std::uint64_t>() > static_cast<std::uint64_t>(schema_version))
    fail("/schema_version", fmt::format("record has version {}, this build of sgmcmc {} reads up to {}", describe(v),
                                        sgmcmc::version, schema_version));
  for (const char* key : {"config", "chains", "timings"})
    if (!r.contains(key)) fail(std::string("/") + key, "required field is missing");
  if (!r["chains"].is_array()) fail("/chains", "expected an array of chains");
  for (std::size_t i = 0; i < r["chains"].size(); ++i) {
    const json& ch = r["chains"][i];
    const std::string p = fmt::format("/chains/{}", i);
    if (!ch.is_object()) fail(p, "expected an object");
    for (const char* key : {"samples", "state", "status"})
      if (!ch.contains(key)) fail(p + "/" + key, "required field is missing");
    if (!ch["samples"].is_array()) fail(p + "/samples", "expected an array of draws");
    if (ch.contains("sample_stats") && !ch["sample_stats"].is_object()) fail(p + "/sample_stats", "expected an object of columns");
  }
  if (!r["timings"].is_object() || !r["timings"].contains("phases") || !r["timings"]["phases"].is_array())
    fail("/timings/phases", "expected an array of phases");
}

namespace detail {

output::Parameters parameters_of(const RunConfig& c) {
  if (c.target.parameters) return *c.target.parameters;
  if (c.manifold.parameters) return *c.manifold.parameters;
  if (c.manifold.rows > 0 && c.manifold.cols > 0) return output::default_parameters({c.manifold.rows, c.manifold.cols});
  return output::default_parameters({c.manifold.manifold.ambient_size()});
}

output::RunHeader header_of(const RunConfig& c, const AnyChain& chain, std::uint64_t total_steps) {
  // total_steps: the steps the longest chain will have done at the end.
  output::RunHeader h;
  h.config = c.resolved;
  h.sampler = c.resolved["sampler"]["name"].get<std::string>();
  h.chains = c.chains;
  h.parameters = parameters_of(c);
  output::check_parameters(h.parameters, chain.position().size(), "the draw's parameters");
  h.statistics = chain.statistics().ordered();
  h.has_lp = c.log_density;
  h.save_warmup = c.retention.save_warmup;
  h.expected_warmup = c.retention.warmup_kept_by(c.burn_in);
  h.log_likelihood = c.log_likelihood ? c.target.target.examples() : 0;
  h.expected_draws = c.retention.kept_by(total_steps);
  h.library_version = sgmcmc::version;
  h.metric = metric_facts(c.sampler.resolved, c.burn_in);
  if (const json& t = c.resolved.contains("tune") ? c.resolved["tune"] : json(); t.is_object() && t.contains("chosen"))
    h.tuning = {{"method", t.value("method", "")}, {"chosen", t["chosen"]}};
  return h;
}

void warm_ups_from_record(std::span<output::Writer* const> writers, const json& record, const RunConfig& c) {
  if (c.burn_in == 0) return;
  for (std::size_t i = 0; i < record["chains"].size(); ++i) {
    const json& state = record["chains"][i]["state"];
    const json* steps = state.is_object() && state.contains("steps_done") ? &state["steps_done"] : nullptr;
    if (steps == nullptr || !steps->is_number_unsigned() || steps->get<std::uint64_t>() < c.burn_in) continue;
    const output::WarmUp warm_up = warm_up_of(state);
    for (output::Writer* w : writers) w->warm_up_done(i, warm_up);
  }
}

json build_of_this_binary() {
  return {{"tier", simd::portable_build ? "portable" : "native"}, {"isa", simd::compiled_isa}};
}

json record_of(const RunConfig& c, const std::vector<json>& summaries, const std::vector<ChainStatus>& status,
                      const std::vector<std::uint64_t>& kept, json phases, bool interrupted) {
  json record = {{"schema", schema_name}, {"schema_version", schema_version},
                 {"library", {{"name", "sgmcmc"}, {"version", sgmcmc::version}, {"build", build_of_this_binary()}}},
                 {"config", c.resolved},
                 {"config_digest", config_digest(c.resolved)}};
  if (!c.target.files.empty()) record["data_files"] = data_files_of(c);
  if (!c.target.warnings.empty()) {
    json w = json::array();
    for (const std::string& m : c.target.warnings) w.push_back({{"kind", "data"}, {"message", m}});
    record["warnings"] = std::move(w);
  }
  bool ok = true;
  json out = json::array();
  for (std::size_t i = 0; i < summaries.size(); ++i) {
    json ch = {{"id", i}, {"stream", i}, {"status", status[i].ok() ? "ok" : "error"}, {"draws", kept[i]}};
    if (!status[i].ok()) {
      ch["error"] = fmt::format("chain {}: {}", i, status[i].error);
      ok = false;
    }
    ch["diagnostics"] = summaries[i].at("diagnostics");
    ch["state"] = summaries[i].at("state");
    if (summaries[i].contains("timing")) ch["timing"] = summaries[i]["timing"];
    out.push_back(std::move(ch));
  }
  record["status"] = !ok ? "error" : interrupted ? "interrupted" : "ok";
  record["chains"] = std::move(out);
  record["timings"] = {{"phases", std::move(phases)}};
  return record;
}

json phase(const char* name, std::uint64_t steps, double setup, double sampling) {
  return {{"phase", name}, {"steps", steps}, {"setup_seconds", setup}, {"sampling_seconds", sampling}};
}

RunConfig config_of(const json& record, const Registry& registry, const Placement& placement,
                    const std::filesystem::path& record_folder) {
  json config = record["config"];
  rebase_paths(config, data_pointers(record), record_folder, {});  // the record's data paths, from here
  try {
    RunConfig c = parse_config(config, registry, placement);
    // A run's tuning writes its choice into the config: a record without a step size was edited, and
    // what it ran cannot be known (the tuner would choose again, and not necessarily the same).
    if (c.tune) fail("/sampler/step_size", "required in a run record's config (a tuned run records its choice there)");
    return c;
  } catch (const Error& e) {
    throw Error(std::string("/config") + e.what());
  }
}

void move_record_paths(json& record, const std::filesystem::path& from, const std::filesystem::path& to) {
  const std::vector<std::string> pointers = data_pointers(record);
  if (pointers.empty()) return;
  const bool matched = record.contains("config_digest") && record["config_digest"] == config_digest(record["config"]);
  rebase_paths(record["config"], pointers, from, to);
  if (matched) record["config_digest"] = config_digest(record["config"]);
}

void write_paths_for(RunConfig& c, const Options& opt) {
  if (!opt.output_folder) return;
  std::vector<std::string> pointers;
  for (const DataFile& f : c.target.files) pointers.push_back(f.pointer);
  rebase_paths(c.resolved, pointers, {}, *opt.output_folder);
}


void check_width(const output::RecordDraw& d, const output::RunHeader& h, std::uint64_t index) {
  if (static_cast<Eigen::Index>(d.values.size()) != h.dim())
    fail(fmt::format("/chains/{}/samples/{}", d.chain, index), fmt::format("expected {} numbers, got {}", h.dim(), d.values.size()));
}

StepInfo step_info_of(const output::RecordDraw& d, const std::vector<const Statistic*>& statistics, double* lp) {
  StepInfo info;
  if (d.stats.empty()) info.acceptance = std::numeric_limits<double>::quiet_NaN();  // a version-1 record: unknown
  if (lp) *lp = std::numeric_limits<double>::quiet_NaN();
  for (const auto& [name, v] : d.stats) {
    if (name == "lp") {
      if (lp) *lp = v;
    } else if (const Statistic* s = statistic_named(statistics, name)) {
      s->set(info, v);
    }
  }
  return info;
}

void add_draw(output::BlockBuffer& buffer, const output::RecordDraw& d) {
  double lp = 0;
  const StepInfo info = step_info_of(d, buffer.header().statistics, &lp);
  buffer.add(d.chain, d.values, info, lp, d.warmup);
}

}  // namespace detail
}  // namespace sgmcmc::run
