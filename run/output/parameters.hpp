#pragma once
// A draw's parameters: the flat draw (the manifold's point, the sampler's state) cut into named blocks,
// each a scalar, a vector or a matrix (flattened column-major within the block), in order. Every output
// names its columns from them (docs/run-format.md, "Parameter names"): the record's `parameters`, Stan
// CSV's `name.i.j`, draws_csv's and `summary`'s `name[i,j]`, NetCDF's variable `name` with dims
// `name_dim_k`. Without names known a draw is one block `x` of the manifold's shape.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/printable.hpp>

namespace sgmcmc::run::output {

/// One named block: shape {} a scalar, {n} a vector, {n, p} a matrix; `offset`: where it starts in the draw.
struct ParameterBlock {
  std::string name;
  std::vector<Eigen::Index> shape;
  Eigen::Index offset = 0;

  Eigen::Index size() const {
    Eigen::Index n = 1;
    for (Eigen::Index k : shape) n *= k;
    return n;
  }
};

/// A draw's blocks in the order they sit in the draw (each block's offset set by `add`).
struct Parameters {
  std::vector<ParameterBlock> blocks;

  Parameters& add(std::string name, std::vector<Eigen::Index> shape) {
    blocks.push_back({std::move(name), std::move(shape), dim()});
    return *this;
  }
  /// The draw's dimension: the blocks' sizes summed.
  Eigen::Index dim() const { return blocks.empty() ? 0 : blocks.back().offset + blocks.back().size(); }
  bool empty() const { return blocks.empty(); }
};

/// The default: one block `x` of the manifold's shape ({d}, or {n, p} on a matrix manifold).
inline Parameters default_parameters(std::vector<Eigen::Index> shape) { return Parameters{}.add("x", std::move(shape)); }

/// Why `name` is not a parameter name, or nothing when it is one: as Stan and R identifiers, a letter
/// first, then letters, digits and '_', and not ending in "__" (Stan CSV's own columns, lp__, end so);
/// nor a name the outputs use themselves (chain, draw and name_dim_k: NetCDF's dimensions; log_lik).
inline std::optional<std::string> invalid_name(std::string_view name) {
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (name.empty()) return "a name is not empty";
  if (!letter(name.front())) return "a name starts with a letter (a-z, A-Z)";
  for (char c : name)
    if (!letter(c) && !digit(c) && c != '_') return "a name holds letters, digits and '_' only";
  if (name.ends_with("__")) return "a name does not end in \"__\" (Stan CSV's own columns, lp__, do)";
  // ArviZ's dimensions and a block's dimension names in NetCDF (name_dim_k) are taken.
  if (name == "chain" || name == "draw") return "chain and draw are ArviZ's dimensions";
  if (name == "log_lik") return "log_lik names the pointwise log-likelihood's columns (Stan CSV log_lik.i, draws_csv log_lik[i])";
  if (const auto at = name.rfind("_dim_"); at != std::string_view::npos && at + 5 < name.size() &&
      name.find_first_not_of("0123456789", at + 5) == std::string_view::npos)
    return "a name ending in _dim_<k> is a NetCDF dimension's";
  if (name.size() > 512) return "a name has at most 512 characters";
  return std::nullopt;
}

/// Checks `p` against a draw of `dim` coordinates: names valid and distinct, sizes summing to `dim`.
/// Errors name `where` (a config field, /target/names, or the record's /parameters) and the block's
/// place in it.
inline void check_parameters(const Parameters& p, Eigen::Index dim, const std::string& where) {
  std::set<std::string_view> seen;
  for (std::size_t k = 0; k < p.blocks.size(); ++k) {
    const ParameterBlock& b = p.blocks[k];
    if (const auto why = invalid_name(b.name)) throw Error(fmt::format("{}/{}: '{}' is not a parameter name: {}", where, k, printable(b.name, 100), *why));
    if (!seen.insert(b.name).second) throw Error(fmt::format("{}/{}: the name '{}' is given twice", where, k, b.name));
  }
  if (p.dim() != dim)
    throw Error(fmt::format("{}: the parameters' sizes sum to {}, but a draw has {} coordinates", where, p.dim(), dim));
}

/// A list of parameters as a config (`target.names`) or a record (`parameters`) gives them: each a
/// string (a scalar) or {"name": ..., "shape": [sizes]} (shape [] a scalar, [n] a vector, [n, p] a
/// matrix). Errors name `where`/k. The names and the total are checked by check_parameters.
inline Parameters parse_parameters(const nlohmann::json& list, const std::string& where) {
  if (!list.is_array()) throw Error(fmt::format("{}: expected a list of names (a string, or {{\"name\", \"shape\"}})", where));
  Parameters p;
  for (std::size_t k = 0; k < list.size(); ++k) {
    const nlohmann::json& b = list[k];
    const std::string at = fmt::format("{}/{}", where, k);
    if (b.is_string()) {
      p.add(b.get<std::string>(), {});
      continue;
    }
    if (!b.is_object() || !b.contains("name") || !b["name"].is_string() || !b.contains("shape") || !b["shape"].is_array() ||
        b.size() != 2)
      throw Error(fmt::format("{}: expected a name (a string) or {{\"name\": a string, \"shape\": a list of sizes}}", at));
    const nlohmann::json& shape = b["shape"];
    if (shape.size() > 2) throw Error(fmt::format("{}/shape: a scalar [], vector [n] or matrix [n, p], got {} sizes", at, shape.size()));
    std::vector<Eigen::Index> sizes;
    for (const nlohmann::json& n : shape) {
      // Bounded so that no sum below overflows: 2^31 a size, a block at most 2^62, the total checked as it grows.
      if (!n.is_number_unsigned() || n.get<std::uint64_t>() < 1 || n.get<std::uint64_t>() > (std::uint64_t{1} << 31))
        throw Error(fmt::format("{}/shape: expected sizes from 1 to 2^31, got {}", at, n.dump()));
      sizes.push_back(static_cast<Eigen::Index>(n.get<std::uint64_t>()));
    }
    p.add(b["name"].get<std::string>(), std::move(sizes));
    if (p.dim() > (Eigen::Index{1} << 62) / 2) throw Error(fmt::format("{}: the parameters' sizes sum past 2^61", at));
  }
  return p;
}

/// Every coordinate's name, in the draw's order: a scalar `name`, else `name` then its 1-based indices
/// written by `index` (Stan CSV's ".i.j", posterior's "[i,j]"), a matrix's first index fastest.
template <class Index>
std::vector<std::string> coordinate_names(const Parameters& p, Index index) {
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(p.dim()));
  for (const ParameterBlock& b : p.blocks) {
    if (b.shape.empty()) {
      names.push_back(b.name);
    } else if (b.shape.size() == 1) {
      for (Eigen::Index i = 0; i < b.shape[0]; ++i) names.push_back(b.name + index(std::vector<Eigen::Index>{i + 1}));
    } else {
      for (Eigen::Index j = 0; j < b.shape[1]; ++j)
        for (Eigen::Index i = 0; i < b.shape[0]; ++i) names.push_back(b.name + index(std::vector<Eigen::Index>{i + 1, j + 1}));
    }
  }
  return names;
}

/// Stan CSV's column names, as CmdStan names a vector's or matrix's elements: "b_age", "W1.2.3".
inline std::vector<std::string> stan_names(const Parameters& p) {
  return coordinate_names(p, [](const std::vector<Eigen::Index>& i) { return fmt::format(".{}", fmt::join(i, ".")); });
}

/// posterior's (and rstan's summary's) names: "b_age", "W1[2,3]".
inline std::vector<std::string> bracket_names(const Parameters& p) {
  return coordinate_names(p, [](const std::vector<Eigen::Index>& i) { return fmt::format("[{}]", fmt::join(i, ",")); });
}

/// The record's `parameters`: [{"name": "b_age", "shape": []}, ...].
inline nlohmann::json parameters_json(const Parameters& p) {
  nlohmann::json out = nlohmann::json::array();
  for (const ParameterBlock& b : p.blocks) out.push_back({{"name", b.name}, {"shape", b.shape}});
  return out;
}

/// A record's `parameters` read back and checked against its draws' width `dim` (errors name
/// /parameters); a record without them (older) is one block `x` of `dim` coordinates.
inline Parameters parameters_of_record(const nlohmann::json& record, Eigen::Index dim) {
  if (!record.is_object() || !record.contains("parameters")) return default_parameters({dim});
  Parameters p = parse_parameters(record["parameters"], "/parameters");
  check_parameters(p, dim, "/parameters");
  return p;
}

}  // namespace sgmcmc::run::output
