#pragma once
// The tuner's record (run/tune.hpp) as people read it: a table of every arm and the choice (`sgmcmc
// tune`), and an SVG of each arm's score by round (`sgmcmc tune --svg`).
#include <string>

#include <nlohmann/json.hpp>

namespace sgmcmc::run {

/// The `tune` record as a table, one row per arm (settings, each round's score, status), the chosen arm
/// marked.
std::string tuning_table(const nlohmann::json& tune);

/// An SVG of each arm's score by round (a signed log scale: scores may be below 0).
std::string tuning_svg(const nlohmann::json& tune);

}  // namespace sgmcmc::run
