#pragma once
// The bias harness's plot (run/sweep.hpp): bias against step size or cost, one line per sampler (and
// batch size), its points in step-size order — x the step size (the default: a sweep's points of one
// sampler often share a cost, since every step size runs the same steps, and stacked on one vertical
// line), the gradient evaluations or the wall seconds (set-up plus sampling), y the largest |z| of the
// means or the largest |sd ratio − 1| against the reference, both on log scales — as a self-contained
// SVG (no plotting library needed). Points that failed (status not "ok") or whose values are not finite
// are left out, and a note under the plot says how many. With x in seconds and the reference's own wall
// time known (`sgmcmc sweep --reference-seconds`), a dashed vertical line marks it.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace sgmcmc::run::output {

/// What the plot's axes show.
struct SweepPlot {
  enum class X { step_size, gradient_evals, seconds } x = X::step_size;
  enum class Accuracy { max_z, max_sd_error } y = Accuracy::max_z;
};

inline std::string sweep_svg(const nlohmann::json& sweep, SweepPlot axes = {}) {
  struct Point {
    double x, y, h;
  };
  std::map<std::string, std::vector<Point>> lines;
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  const bool seconds = axes.x == SweepPlot::X::seconds;
  const char* error = axes.y == SweepPlot::Accuracy::max_z ? "max_z" : "max_sd_error";
  const auto number = [](const nlohmann::json& p, const char* key) { return p.contains(key) && p[key].is_number() ? p[key].get<double>() : NAN; };
  int left_out = 0;
  for (const auto& p : sweep["points"]) {
    const double cost = axes.x == SweepPlot::X::step_size ? number(p, "step_size")
                        : seconds                         ? number(p, "setup_seconds") + number(p, "sampling_seconds")
                                                          : number(p, "gradient_evals");
    const double y = std::max(number(p, error), 1e-3);
    // A failed point (a diverged chain: max_z 4.5e306 stretched the axis over 300 decades) or one not finite.
    if (!(p.contains("status") && p["status"] == "ok") || !(cost > 0) || !std::isfinite(cost) || !std::isfinite(y)) {
      ++left_out;
      continue;
    }
    std::string name = p["sampler"].get<std::string>();
    if (p["batch_size"].is_number()) name += fmt::format(", n = {}", p["batch_size"].get<std::uint64_t>());
    const Point q{std::log10(cost), std::log10(y), p["step_size"].get<double>()};
    lines[name].push_back(q);
    xmin = std::min(xmin, q.x), xmax = std::max(xmax, q.x), ymin = std::min(ymin, q.y), ymax = std::max(ymax, q.y);
  }
  const double reference_seconds = sweep.contains("reference") ? number(sweep["reference"], "seconds") : NAN;
  const bool mark_reference = seconds && reference_seconds > 0;
  if (mark_reference) xmin = std::min(xmin, std::log10(reference_seconds)), xmax = std::max(xmax, std::log10(reference_seconds));
  const double W = 720, H = 480, left = 80, right = 220, top = 30, bottom = 60;
  if (lines.empty()) xmin = 0, xmax = 1, ymin = -1, ymax = 0;
  xmin = std::floor(xmin), xmax = std::max(std::ceil(xmax), xmin + 1), ymin = std::floor(ymin), ymax = std::max(std::ceil(ymax), ymin + 1);
  const auto X = [&](double x) { return left + (x - xmin) / (xmax - xmin) * (W - left - right); };
  const auto Y = [&](double y) { return H - bottom - (y - ymin) / (ymax - ymin) * (H - top - bottom); };
  std::string s = fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="sans-serif" font-size="12">)"
                              "\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
                              W, H);
  s += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n", left, H - bottom, W - right, H - bottom);
  s += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n", left, top, left, H - bottom);
  // At most about ten labels an axis: a label every `every` decades.
  const double every_x = std::max(1.0, std::ceil((xmax - xmin) / 10)), every_y = std::max(1.0, std::ceil((ymax - ymin) / 10));
  for (double e = xmin; e <= xmax + 1e-9; e += every_x)
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">1e{}</text>\n", X(e), H - bottom + 18, static_cast<int>(e));
  for (double e = ymin; e <= ymax + 1e-9; e += every_y)
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">1e{}</text>\n", left - 6, Y(e) + 4, static_cast<int>(e));
  if (left_out > 0)
    s += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#d62728\">{} point{} left out (failed, or not finite): see the scores</text>\n", left,
                     H - 2, left_out, left_out == 1 ? "" : "s");
  s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", (left + W - right) / 2, H - 15,
                   axes.x == SweepPlot::X::step_size ? "step size" : seconds ? "wall seconds (set-up and sampling)" : "gradient evaluations");
  s += fmt::format("<text x=\"18\" y=\"{:.1f}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {:.1f})\">{}</text>\n",
                   (top + H - bottom) / 2, (top + H - bottom) / 2,
                   axes.y == SweepPlot::Accuracy::max_z ? "max |z| of the means (reference sds)" : "max |sd ratio − 1| against the reference");
  if (mark_reference) {
    const double x = X(std::log10(reference_seconds));
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"black\" stroke-dasharray=\"6 4\"/>\n", x, top, H - bottom);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"end\">reference: {:.4g} s</text>\n", x - 4, top + 12, reference_seconds);
  }
  static const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
  int k = 0;
  for (auto& [name, pts] : lines) {
    std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.h < b.h; });
    const char* c = colours[k % 8];
    std::string path;
    for (const auto& p : pts) path += fmt::format("{:.1f},{:.1f} ", X(p.x), Y(p.y));
    s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>\n", c, path);
    for (const auto& p : pts)
      s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"><title>{} h = {}</title></circle>\n", X(p.x), Y(p.y), c, name, p.h);
    const double ly = top + 18.0 * k;
    s += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"/>\n", W - right + 15, ly, W - right + 40, ly, c);
    std::string label = name;
    for (const char* from : {"&", "<", ">"}) {
      const std::string to = std::string(from) == "&" ? "&amp;" : std::string(from) == "<" ? "&lt;" : "&gt;";
      for (std::size_t at = label.find(from); at != std::string::npos; at = label.find(from, at + to.size())) label.replace(at, 1, to);
    }
    s += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", W - right + 46, ly + 4, label);
    ++k;
  }
  s += "</svg>\n";
  return s;
}

}  // namespace sgmcmc::run::output
