#pragma once
// What every target entry (run/registry.hpp) shares: the fields every target accepts (`grad_noise`, `names`;
// `gibbs_every`, which only targets with prior precisions take), the checks against the manifold
// section parsed before it (its kind, its dimension, or no dimension yet), and the wrapping of a model
// into the run layer's AnyTarget with the section's resolved record (docs/config.md).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <Eigen/Core>
#include <fmt/format.h>

#include <sgmcmc/concepts/potential.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/run/any_target.hpp>
#include <sgmcmc/run/fields.hpp>
#include <sgmcmc/run/registry.hpp>

namespace sgmcmc::run::targets {

/// Where a manifold that waits for the target's dimension (ManifoldChoice::deferred) was left without
/// one: the missing `dim` of a euclidean section, or the missing section itself (its resolved record
/// is then empty). The same paths run/config.hpp names.
inline std::string deferred_dim_path(const ManifoldChoice& m) {
  const bool section = m.resolved.is_object() && !m.resolved.empty();
  return section ? "/manifold/dim" : "/manifold";
}

/// The manifold's coordinates, for a target that does not fix its own dimension. A deferred manifold
/// has none, and this target cannot give it one: the manifold section lacks its size, the error
/// run/config.hpp gives. Called first, so that error comes before any of the target's own.
inline Eigen::Index manifold_dim(const ManifoldChoice& m) {
  if (const auto d = m.dim()) return *d;
  fail(deferred_dim_path(m), "required field is missing (the target does not fix a dimension)");
}

/// A target of `d` coordinates by construction (double_well 1, banana 2): the manifold must have as
/// many, or takes them (deferred). Returns d, the target's natural_dim.
inline Eigen::Index fixed_dim(const Fields& f, const std::string& name, const ManifoldChoice& m, Eigen::Index d) {
  if (const auto dim = m.dim(); dim && *dim != d)
    fail(f.path(), fmt::format("target '{}' is {}-dimensional but the manifold has {} coordinates", name, d, *dim));
  return d;
}

/// A target that needs one fact of its manifold (`holds`, read from ManifoldChoice::geometry or its
/// shape): "vmf lives on a sphere (manifold.name = sphere)", `example` naming a shipped manifold that has it.
inline void require_manifold(const Fields& f, const std::string& name, bool holds, const std::string& where,
                             const std::string& example) {
  if (!holds) fail(f.at("name"), fmt::format("{} lives on {} (manifold.name = {})", name, where, example));
}

/// A target that fixes its own dimension (`coordinates`, in floating point: a count from the config may
/// be huge) checks it against the run's max_dimension before it builds anything of that size — its
/// estimator's centre search and tables, its chains' states — naming the field `key` that sets it.
inline void check_size(const Fields& f, const std::string& key, const ManifoldChoice& manifold, double coordinates,
                       const std::string& what) {
  if (coordinates > static_cast<double>(manifold.max_dimension))
    fail(f.at(key), fmt::format("{} has {:.6g} coordinates, above max_dimension {} (each state vector would take {:.3g} GB per "
                                "chain, an estimator's centre search and tables several times that); set \"max_dimension\" "
                                "in the config if you mean it", what, coordinates, manifold.max_dimension, 8e-9 * coordinates));
}

/// The data file a target read from its field `key` (path `path`), fingerprinted now, just after the
/// read (TargetChoice::files): what a resume compares with the file it finds then.
inline DataFile read_data_file(const Fields& f, const std::string& key, const std::string& path) {
  try {
    return {f.at(key), path, data::fingerprint_file(path)};
  } catch (const Error& e) {
    fail(f.at(key), e.what());
  }
}

/// `choice` with the data file it read.
inline TargetChoice with_file(TargetChoice choice, DataFile file) {
  choice.files.push_back(std::move(file));
  return choice;
}

/// The minibatch order a data target's `with_replacement` field selects (models/minibatch.hpp).
inline models::Sampling sampling(bool with_replacement) {
  return with_replacement ? models::Sampling::with_replacement : models::Sampling::without_replacement;
}

/// `gibbs_every` k ≥ 0: a Gibbs step on the prior precisions after steps k, 2k, ... (0: never). Only a
/// target with precisions to resample takes it (`has_precisions`: bnn, bpmf, run/targets/gibbs.hpp);
/// any other refuses the field rather than ignore it.
inline std::uint64_t read_gibbs_every(Fields& f, const std::string& name, bool has_precisions) {
  if (has_precisions) return f.count("gibbs_every", 0, 0);
  if (f.find("gibbs_every"))
    fail(f.at("gibbs_every"), fmt::format("only the bnn and bpmf targets have prior precisions for a Gibbs step; target '{}' has none", name));
  return 0;
}

/// The arithmetic a data model's products run in (`precision`: "float64", the default, or "float32";
/// docs/config.md). The sampler's state stays double either way.
enum class Precision { float64, float32 };
inline Precision read_precision(Fields& f) {
  const std::string p = f.string("precision", "float64");
  if (p == "float64") return Precision::float64;
  if (p == "float32") return Precision::float32;
  fail(f.at("precision"), fmt::format("expected \"float64\" or \"float32\", got \"{}\"", printable(p)));
}

/// `grad_noise` σ ≥ 0 (default 0), which every target accepts: the sampler sees ∇Ũ + N(0, σ²I) (the
/// SGHMC paper's simulated noise, Fig. 3; AnyTarget adds it). Recorded as "grad_noise".
inline double read_grad_noise(Fields& f, json& resolved) {
  const double sigma = f.number("grad_noise", 0.0, Range::non_negative);
  resolved["grad_noise"] = sigma;
  return sigma;
}

/// `names`, which every target accepts (docs/config.md, "target.names"): the draw's parameters, each a
/// string (a scalar) or {"name": ..., "shape": [...]}, overriding the target's `own` names. Recorded as
/// given. Their sizes are checked against the draw's dimension once it is known (run/config.hpp).
inline std::optional<output::Parameters> read_names(Fields& f, json& resolved, std::optional<output::Parameters> own) {
  const json* names = f.find("names");
  if (!names) return own;
  output::Parameters p = output::parse_parameters(*names, f.at("names"));
  output::check_parameters(p, p.dim(), f.at("names"));  // the names; the total waits for the dimension
  resolved["names"] = *names;
  return p;
}

/// A target that has read `gibbs_every` (or refused it) itself: the data targets
/// (run/targets/estimator.hpp), whose Gibbs step depends on the model.
template <class P>
concept ReadsGibbsEvery = requires { P::gibbs; };

/// The parsed section: `model` behind AnyTarget with its gradient noise, and the record. Reads the
/// fields every target shares, after the target's own (so their errors come in today's order): a data
/// target has read `gibbs_every` itself; any other refuses it. `own_names`: the target's own names for
/// the draw's blocks, if it has any (`names` in the config overrides them).
template <Potential P>
TargetChoice make_choice(Fields& f, const std::string& name, P model, json resolved,
                         std::optional<Eigen::Index> natural_dim = std::nullopt,
                         std::optional<output::Parameters> own_names = std::nullopt) {
  if constexpr (!ReadsGibbsEvery<P>) read_gibbs_every(f, name, false);
  const double sigma = read_grad_noise(f, resolved);
  std::optional<output::Parameters> parameters = read_names(f, resolved, std::move(own_names));
  TargetChoice c{AnyTarget(std::move(model), sigma), name, std::move(resolved), natural_dim, std::nullopt};
  c.gradient.added_noise_sd = sigma;
  c.parameters = std::move(parameters);
  return c;
}

}  // namespace sgmcmc::run::targets
