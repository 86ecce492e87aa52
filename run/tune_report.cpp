// The tuner's record as a table and a plot (run/tune_report.hpp).
#include <sgmcmc/run/tune_report.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>

namespace sgmcmc::run {

using json = nlohmann::json;

namespace {
std::string compact(double x) { return fmt::format("{:.4g}", x); }
}  // namespace

std::string tuning_table(const json& t) {
  std::string out;
  const json& chosen = t.at("chosen");
  if (t.value("method", "") == "dual_averaging") {
    out += fmt::format("tuning: dual averaging to acceptance {} over {} iterations per chain: step_size {}\n", t.value("target_accept", 0.8),
                       t.value("steps", 0), compact(chosen.value("step_size", 0.0)));
    std::size_t i = 0;
    for (const json& ch : t.at("chains"))
      out += fmt::format("  chain {}: first step {}, adapted {}, mean accept_stat {:.3f}\n", i++, compact(ch.value("first_step", 0.0)),
                         compact(ch.value("adapted", 0.0)), ch.value("mean_accept_stat", 0.0));
    return out;
  }
  out += fmt::format("tuning: successive halving (eta {}) over {} arms in {} rounds, {} of a budget of {} gradient evaluations\n",
                     t.value("eta", 3), t.at("arms").size(), t.value("rounds", 0), compact(t.value("gradient_evaluations", 0.0)),
                     compact(t.value("budget", 0.0)));
  out += fmt::format("{:>4} {:>11} {:>10} {:>9}  {}\n", "arm", "step_size", "friction", "batch", "score by round (KSD² + 2 se; lower is better)");
  const std::size_t best = chosen.value("arm", std::size_t{0});
  std::size_t k = 0;
  for (const json& a : t.at("arms")) {
    std::string scores;
    for (const json& r : a.at("rounds"))
      scores += r.contains("score") ? fmt::format(" {:>10.4g}", r["score"].get<double>()) : fmt::format(" {:>10}", "failed");
    const std::string status = a.value("status", "ok");
    out += fmt::format("{:>4} {:>11.4g} {:>10} {:>9} {}{}{}\n", k, a.value("step_size", 0.0),
                       a.contains("friction") ? compact(a["friction"].get<double>()) : "-",
                       a.contains("batch_size") ? std::to_string(a["batch_size"].get<std::uint64_t>()) : "-", scores,
                       k == best ? "  <- chosen" : "", status == "ok" ? "" : "  (" + status + ")");
    ++k;
  }
  return out;
}

std::string tuning_svg(const json& t) {
  // One polyline per arm: x the round, y the signed log of KSD² (scores can be slightly negative).
  const json& arms = t.at("arms");
  const std::size_t rounds = std::max<std::size_t>(1, t.value("rounds", std::size_t{1}));
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  const auto y_of = [](double s) { return s > 0 ? std::log10(s) : -std::log10(1 - s) - 12; };
  for (const json& a : arms)
    for (const json& r : a.at("rounds"))
      if (r.contains("score")) lo = std::min(lo, y_of(r["score"].get<double>())), hi = std::max(hi, y_of(r["score"].get<double>()));
  if (!(hi >= lo)) lo = 0, hi = 1;
  if (hi - lo < 1e-9) hi = lo + 1;
  const double w = 640, h = 400, left = 70, bottom = 40, top = 20, right = 20;
  const auto X = [&](double r) { return left + (rounds > 1 ? r / static_cast<double>(rounds - 1) : 0.5) * (w - left - right); };
  const auto Y = [&](double y) { return top + (1 - (y - lo) / (hi - lo)) * (h - top - bottom); };
  std::string svg = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" font-size=\"11\">\n", w, h);
  svg += fmt::format("<text x=\"{}\" y=\"14\">each arm's score (KSD² + 2 se) by round (signed log10; the chosen arm in red)</text>\n", left);
  svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"black\"/>\n", left, h - bottom, w - right);
  svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"black\"/>\n", left, top, h - bottom);
  for (std::size_t r = 0; r < rounds; ++r)
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">round {}</text>\n", X(static_cast<double>(r)), h - bottom + 16, r + 1);
  svg += fmt::format("<text x=\"4\" y=\"{:.1f}\">{:.2g}</text>\n<text x=\"4\" y=\"{:.1f}\">{:.2g}</text>\n", Y(hi) + 4, hi, Y(lo), lo);
  const std::size_t best = t.at("chosen").value("arm", std::size_t{0});
  std::size_t k = 0;
  for (const json& a : arms) {
    std::string pts;
    for (const json& r : a.at("rounds"))
      if (r.contains("score"))
        pts += fmt::format("{:.1f},{:.1f} ", X(r.value("round", 0.0)), Y(y_of(r["score"].get<double>())));
    if (!pts.empty())
      svg += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" points=\"{}\"><title>arm {}: step_size {:.4g}</title></polyline>\n",
                         k == best ? "red" : "#888", k == best ? 2 : 1, pts, k, a.value("step_size", 0.0));
    ++k;
  }
  return svg + "</svg>\n";
}

}  // namespace sgmcmc::run
