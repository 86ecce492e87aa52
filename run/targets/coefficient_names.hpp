#pragma once
// A regression target's parameter names from its CSV's header row (logistic, poisson; docs/config.md,
// "Parameter names"): one scalar per feature column, named as brms names regression coefficients,
// `b_<column>`. A column's name is made a valid one by replacing every character other than a letter,
// a digit or '_' with '_' and dropping trailing '_'s ("income ($)" gives b_income); a column left with
// no name, or two columns giving the same name, is an error naming the file and the columns. A file
// without a header row gives no names (the draw stays one block `x`).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/data/text.hpp>
#include <sgmcmc/run/fields.hpp>
#include <sgmcmc/run/output/parameters.hpp>

namespace sgmcmc::run::targets {

/// `column` as the part of a parameter name after "b_" (see the header comment); empty when nothing is left.
inline std::string coefficient_suffix(const std::string& column) {
  std::string out;
  for (char c : column) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out += keep ? c : '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

/// The names of the `features` coefficients of a regression on the CSV at `path` (read by `field`,
/// whose pointer errors name), or none when the file has no header row.
inline std::optional<output::Parameters> coefficient_names(Fields& f, const std::string& field, const std::string& path,
                                                           Eigen::Index features) {
  const std::vector<std::string> header = data::csv_header(path);
  if (header.empty()) return std::nullopt;
  const auto where = [&](std::size_t k) {
    return fmt::format("{}: column {} ('{}')", printable(path, 200), k + 1, printable(header[k], 100));
  };
  if (static_cast<Eigen::Index>(header.size()) != features + 1)
    fail(f.at(field), fmt::format("{}: the header names {} columns, the rows have {}", printable(path, 200), header.size(), features + 1));
  output::Parameters p;
  std::map<std::string, std::size_t> seen;
  for (std::size_t k = 0; k + 1 < header.size(); ++k) {
    const std::string suffix = coefficient_suffix(header[k]);
    if (suffix.empty())
      fail(f.at(field), fmt::format("{}: a coefficient is named b_<column>, and this column's name has no letter, digit or '_' to "
                                    "name it by (rename the column, or give target.names)", where(k)));
    const std::string name = "b_" + suffix;
    if (const auto why = output::invalid_name(name))
      fail(f.at(field), fmt::format("{}: gives the coefficient name '{}', which is not one: {} (rename the column, or give target.names)",
                                    where(k), name, *why));
    if (const auto [at, fresh] = seen.emplace(name, k); !fresh)
      fail(f.at(field), fmt::format("{}: gives the coefficient name '{}', as column {} does (rename one, or give target.names)", where(k),
                                    name, at->second + 1));
    p.add(name, {});
  }
  return p;
}

}  // namespace sgmcmc::run::targets
