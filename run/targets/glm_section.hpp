#pragma once
// The `glm` target's section read into a model's parts (models/glm/model.hpp), the vocabulary of brms
// (docs/config.md; issue #35):
//   {"name": "glm", "data": "kidiq.csv", "response": "kid_score", "predictors": ["mom_hs", "mom_iq"],
//    "intercept": true, "family": "gaussian", "link": "identity",
//    "prior": {"b": "normal(0, 10)", "Intercept": "student_t(3, 0, 10)", "sigma": "cauchy(0, 2.5)"}}
// - `data`: a CSV with a header row naming the columns;
// - `response`: the response's column; `predictors`: the predictors' columns (default: every column but
//   the response and the trials);
// - `family` (default gaussian, as brms) and `link` (default: the family's canonical one);
// - `trials` (binomial only, required there): a column of trials, or one whole number for every row;
// - `intercept` (default true);
// - `prior`: by brms's classes, `b` (every slope), `b_<predictor>` (one slope, overriding `b`),
//   `Intercept` (on the centred intercept, as brms), and the family's auxiliary parameters (`sigma`,
//   `shape`, `nu`); flat where not given, as Stan, except where a flat prior would leave the posterior
//   improper: student's `nu` (the likelihood tends to the Gaussian one, a positive constant, as ν → ∞)
//   and negative_binomial's `shape` (it tends to the Poisson one as φ → ∞) take brms's defaults,
//   gamma(2, 0.1) and gamma(0.01, 0.01), recorded in the resolved section's `prior`.
// The fields the registry entry reads around it (batch_size, estimator, with_replacement, names) are
// not read here. Errors name the JSON path and, for the data, the file, the column and the data row
// (1 = the first row after the header).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/QR>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sgmcmc/data/text.hpp>
#include <sgmcmc/models/glm/any_family.hpp>
#include <sgmcmc/models/glm/model.hpp>
#include <sgmcmc/models/glm/prior.hpp>
#include <sgmcmc/run/fields.hpp>
#include <sgmcmc/run/targets/coefficient_names.hpp>

namespace sgmcmc::run::targets {

/// What the section says, ready for models::glm::make_glm, with the section as the record keeps it.
struct GlmSection {
  models::glm::GlmData data;
  models::glm::AnyFamily family;
  models::glm::GlmPriors priors;
  bool intercept = true;
  std::string path;              ///< the data file
  json resolved;                 ///< the fields read, defaults filled in
  std::vector<std::string> warnings;  ///< e.g. a constant predictor, which the centring turns to zeros
};

namespace detail {

/// The column of `table` named `name`, or an error at `where` listing the file's columns.
inline std::size_t glm_column(const data::Table& table, const std::string& name, const std::string& where, const std::string& file) {
  for (std::size_t c = 0; c < table.header.size(); ++c)
    if (data::detail::trimmed(table.header[c]) == name) return c;
  std::string known;
  for (const auto& h : table.header) known += (known.empty() ? "" : ", ") + printable(std::string(data::detail::trimmed(h)), 60);
  fail(where, fmt::format("{} has no column \"{}\" (its columns: {})", file, printable(name, 100), known));
}

}  // namespace detail

/// Reads the glm section at `f` (the registry's `target` object).
inline GlmSection read_glm_section(Fields& f) {
  namespace glm = models::glm;
  GlmSection s;
  // The file first: a missing or malformed file is named before the other fields are checked.
  s.path = f.string("data");
  const std::string file = data::shown(s.path);
  data::Table table;
  try {
    table = data::parse_csv(data::read_file(s.path, "glm data"), file);
  } catch (const Error& e) {
    fail(f.at("data"), e.what());
  }
  if (table.header.empty())
    fail(f.at("data"), fmt::format("{}: the glm target names its columns by the file's header row, and the file has none", file));

  // Family and link.
  const std::string family = f.string("family", "gaussian");
  if (glm::canonical_link(family).empty())
    fail(f.at("family"), fmt::format("unknown family \"{}\" (expected one of {})", printable(family, 100), glm::family_names));
  const std::string link = f.string("link", std::string(glm::canonical_link(family)));
  try {
    s.family = glm::make_family(family, link);
  } catch (const Error& e) {
    fail(f.at("link"), e.what());
  }

  // The columns.
  const std::string response = f.string("response");
  const std::size_t y_col = detail::glm_column(table, response, f.at("response"), file);
  std::optional<std::size_t> trials_col;
  double trials_all = 1;
  const json* trials = f.find("trials");
  if (family == "binomial") {
    if (!trials) fail(f.at("trials"), "required field is missing (binomial: a column of trials, or one whole number of trials for every row)");
    if (trials->is_string()) {
      trials_col = detail::glm_column(table, trials->get<std::string>(), f.at("trials"), file);
      if (*trials_col == y_col) fail(f.at("trials"), fmt::format("\"{}\" is the response's column", printable(response, 100)));
    } else {
      trials_all = static_cast<double>(as_count(*trials, f.at("trials"), 1));
    }
  } else if (trials) {
    fail(f.at("trials"), fmt::format("only the binomial family has trials (family is {})", family));
  }
  std::vector<std::size_t> x_cols;
  std::vector<std::string> names;
  if (const json* p = f.find("predictors")) {
    if (!p->is_array()) fail(f.at("predictors"), fmt::format("expected a list of column names, got {}", describe(*p)));
    for (std::size_t k = 0; k < p->size(); ++k) {
      const std::string at = fmt::format("{}/{}", f.at("predictors"), k);
      if (!(*p)[k].is_string()) fail(at, fmt::format("expected a column name, got {}", describe((*p)[k])));
      const std::size_t c = detail::glm_column(table, (*p)[k].get<std::string>(), at, file);
      if (c == y_col) fail(at, fmt::format("\"{}\" is the response", printable(response, 100)));
      if (trials_col && c == *trials_col) fail(at, fmt::format("\"{}\" is the trials' column", printable((*p)[k].get<std::string>(), 100)));
      if (std::find(x_cols.begin(), x_cols.end(), c) != x_cols.end())
        fail(at, fmt::format("\"{}\" is listed twice", printable((*p)[k].get<std::string>(), 100)));
      x_cols.push_back(c);
    }
  } else {
    for (std::size_t c = 0; c < table.cols; ++c)
      if (c != y_col && (!trials_col || c != *trials_col)) x_cols.push_back(c);
  }
  // brms's names: b_<column>, the column made a valid name (coefficient_names.hpp's rule).
  std::map<std::string, std::size_t> seen;
  for (std::size_t c : x_cols) {
    const std::string column(data::detail::trimmed(table.header[c]));
    const std::string suffix = coefficient_suffix(column);
    if (suffix.empty())
      fail(f.at("data"), fmt::format("{}: column {} ('{}'): a coefficient is named b_<column>, and this column's name has no letter, digit "
                                     "or '_' to name it by (rename the column)", file, c + 1, printable(column, 100)));
    if (const auto [at, fresh] = seen.emplace(suffix, c); !fresh)
      fail(f.at("data"), fmt::format("{}: columns {} and {} both give the coefficient name 'b_{}' (rename one)", file, at->second + 1, c + 1, suffix));
    names.push_back(suffix);
  }
  s.intercept = f.boolean("intercept", true);

  // The rows.
  const auto N = static_cast<Eigen::Index>(table.rows), K = static_cast<Eigen::Index>(x_cols.size());
  s.data.x.resize(K, N);
  s.data.y.resize(N);
  if (family == "binomial") s.data.trials.resize(N);
  for (Eigen::Index i = 0; i < N; ++i) {
    const auto r = static_cast<std::size_t>(i);
    for (Eigen::Index k = 0; k < K; ++k) s.data.x(k, i) = table(r, x_cols[static_cast<std::size_t>(k)]);
    const double y = table(r, y_col);
    const double n = trials_col ? table(r, *trials_col) : trials_all;
    if (family == "binomial") s.data.trials[i] = n;
    if (!glm::valid_response(family, y, n)) {
      if (trials_col && !glm::valid_response(family, 0, n))
        fail(f.at("trials"), fmt::format("{}: data row {}: column \"{}\": {} is not a whole number of trials >= 1", file, i + 1,
                                         printable(trials->get<std::string>(), 100), n));
      fail(f.at("response"), fmt::format("{}: data row {}: column \"{}\": {} is not {} (family {})", file, i + 1, printable(response, 100), y,
                                         glm::response_words(family), family));
    }
    s.data.y[i] = y;
  }
  for (Eigen::Index k = 0; k < K; ++k)
    if (N > 0 && (s.data.x.row(k).array() == s.data.x(k, 0)).all())
      s.warnings.push_back(fmt::format("{}: predictor \"{}\" is constant ({}): its coefficient is not identified by the data{}", file,
                                       printable(std::string(data::detail::trimmed(table.header[x_cols[static_cast<std::size_t>(k)]])), 100),
                                       s.data.x(k, 0), s.intercept ? " (it is collinear with the intercept)" : ""));
  // Collinear predictors (beyond the constant ones above): the centred design (with the intercept's
  // column of ones when there is one) has rank below its width. Column-pivoted QR finds a set of
  // independent columns first; the columns it leaves are combinations of them (or of the intercept).
  if (K > 0 && N > 0) {
    Eigen::MatrixXd design(N, K + (s.intercept ? 1 : 0));
    if (s.intercept) design.col(K).setOnes();
    for (Eigen::Index k = 0; k < K; ++k) {
      design.col(k) = s.data.x.row(k).transpose();
      if (s.intercept) design.col(k).array() -= design.col(k).mean();
      const double norm = design.col(k).norm();
      if (norm > 0) design.col(k) /= norm;  // scale-free: a column in thousands is not "more independent"
    }
    if (s.intercept) design.col(K) /= std::sqrt(static_cast<double>(N));
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(design);
    qr.setThreshold(1e-10);
    const Eigen::Index rank = qr.rank();
    std::vector<std::string> dependent;
    for (Eigen::Index j = rank; j < design.cols(); ++j) {
      const Eigen::Index c = qr.colsPermutation().indices()[j];
      if (c < K && design.col(c).norm() > 0)  // constant columns were named above
        dependent.push_back(printable(std::string(data::detail::trimmed(table.header[x_cols[static_cast<std::size_t>(c)]])), 100));
    }
    if (!dependent.empty())
      s.warnings.push_back(fmt::format("{}: {} {} {} of the other predictors{}: the data do not tell {} coefficient{} apart from theirs "
                                       "(the posterior along that direction is the prior's)", file,
                                       dependent.size() == 1 ? "predictor" : "predictors", fmt::join(dependent, ", "),
                                       dependent.size() == 1 ? "is a linear combination" : "are linear combinations",
                                       s.intercept ? " and the intercept" : "", dependent.size() == 1 ? "its" : "their",
                                       dependent.size() == 1 ? "" : "s"));
  }
  s.data.predictors = names;

  // The priors, by class.
  s.priors.b.assign(static_cast<std::size_t>(K), glm::Flat{});
  s.priors.aux.assign(glm::aux_size(s.family), glm::Flat{});
  json prior_record = json::object();
  std::optional<glm::Prior> every_b;
  std::map<std::size_t, glm::Prior> one_b;
  if (const json* p = f.find("prior")) {
    Fields classes(*p, f.at("prior"));
    const auto read = [&](const std::string& key) {
      const std::string text = classes.string(key);
      glm::Prior prior;
      try {
        prior = glm::parse_prior(text);
      } catch (const Error& e) {
        fail(classes.at(key), e.what());
      }
      prior_record[key] = glm::to_string(prior);
      return prior;
    };
    std::string known = "b, b_<predictor>";
    if (s.intercept) known += ", Intercept";
    for (std::size_t a = 0; a < glm::aux_size(s.family); ++a) known += fmt::format(", {}", glm::aux_name(s.family, a));
    for (const auto& [key, value] : p->items()) {
      if (key == "b") {
        every_b = read(key);
      } else if (key == "Intercept" && s.intercept) {
        s.priors.intercept = read(key);
      } else if (key.starts_with("b_")) {
        const auto at = std::find(names.begin(), names.end(), key.substr(2));
        if (at == names.end())
          fail(classes.at(key), fmt::format("no predictor is named {} (the coefficients: {})", printable(key.substr(2), 100),
                                            names.empty() ? std::string("none") : "b_" + fmt::format("{}", fmt::join(names, ", b_"))));
        one_b[static_cast<std::size_t>(at - names.begin())] = read(key);
      } else {
        bool aux = false;
        for (std::size_t a = 0; a < glm::aux_size(s.family); ++a)
          if (key == glm::aux_name(s.family, a)) s.priors.aux[a] = read(key), aux = true;
        if (!aux) {
          const std::string why = key == "Intercept" ? " (the model has no intercept: intercept is false)" : "";
          fail(classes.at(key), fmt::format("unknown class{} (expected {} for family {})", why, known, family));
        }
      }
    }
    classes.finish();
  }
  // brms's defaults where flat would be improper (see the header comment).
  for (std::size_t a = 0; a < glm::aux_size(s.family); ++a) {
    const std::string name(glm::aux_name(s.family, a));
    if (prior_record.contains(name)) continue;
    const char* fallback = name == "nu" ? "gamma(2, 0.1)" : (name == "shape" && family == "negative_binomial") ? "gamma(0.01, 0.01)" : nullptr;
    if (fallback) s.priors.aux[a] = glm::parse_prior(fallback), prior_record[name] = fallback;
  }
  for (std::size_t k = 0; k < s.priors.b.size(); ++k) {
    if (one_b.count(k)) s.priors.b[k] = one_b[k];
    else if (every_b) s.priors.b[k] = *every_b;
    if (glm::positive_support(s.priors.b[k])) {
      const std::string key = one_b.count(k) ? "b_" + names[k] : "b";
      fail(f.at("prior") + "/" + key, fmt::format("{} has support (0, inf) and a coefficient is unbounded", glm::to_string(s.priors.b[k])));
    }
  }
  if (glm::positive_support(s.priors.intercept))
    fail(f.at("prior") + "/Intercept", fmt::format("{} has support (0, inf) and the intercept is unbounded", glm::to_string(s.priors.intercept)));

  json predictors_record = json::array();
  for (std::size_t c : x_cols) predictors_record.push_back(std::string(data::detail::trimmed(table.header[c])));
  s.resolved = {{"name", "glm"}, {"data", s.path}, {"response", response}, {"predictors", predictors_record}, {"intercept", s.intercept},
                {"family", family}, {"link", std::string(glm::link_name(s.family))}, {"prior", prior_record}};
  if (family == "binomial") s.resolved["trials"] = trials->is_string() ? *trials : json(static_cast<std::uint64_t>(trials_all));
  return s;
}

}  // namespace sgmcmc::run::targets
