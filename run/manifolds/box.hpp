#pragma once
// The `box` manifold's registry entry (manifolds/box.hpp): {"name": "box", "dim": n, "lower": l,
// "upper": u}, each bound a number (every coordinate), or a list of n numbers and nulls (null: that
// coordinate unbounded on that side); an omitted bound is −∞ or +∞. n comes from `dim` or from a list.
// Its geometry: not flat (a face reflects: the coordinate-wise samplers, preconditioners, L-BFGS and the
// Stein discrepancy, which assume R^n, refuse it), compact when every bound is finite.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include <sgmcmc/manifolds/box.hpp>
#include <sgmcmc/run/registry.hpp>

namespace sgmcmc::run {

namespace detail {
/// The most coordinates a box may have: its bounds are two vectors of n numbers, allocated here, before
/// the run's max_dimension is checked.
inline constexpr std::uint64_t box_max_dim = std::uint64_t{1} << 26;

/// The list `j` of `n` bounds at `path`: numbers, or null for `missing` (±∞).
inline Eigen::VectorXd box_bounds(const json& j, const std::string& path, Eigen::Index n, double missing) {
  if (j.size() != static_cast<std::size_t>(n)) fail(path, fmt::format("expected {} bounds (the box's dim), got {}", n, j.size()));
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const json& e = j[static_cast<std::size_t>(i)];
    b[i] = e.is_null() ? missing : as_number(e, fmt::format("{}/{}", path, i));
  }
  return b;
}
}  // namespace detail

inline ManifoldEntry box_manifold() {
  return {{"box"}, "the box of lower and upper bounds in R^n, faces reflecting (dim, lower, upper; null: unbounded)",
          [](Fields& f, const Registry&) {
            constexpr double inf = std::numeric_limits<double>::infinity();
            const json* lo = f.find("lower");
            const json* hi = f.find("upper");
            for (const auto& [bound, key] : {std::pair<const json*, const char*>{lo, "lower"}, {hi, "upper"}})
              if (bound && !bound->is_number() && !bound->is_array())
                fail(f.at(key), fmt::format("expected a number or a list of numbers and nulls, got {}", describe(*bound)));
            // The dimension: `dim`, else the length of a list bound.
            std::optional<std::uint64_t> n;
            if (f.find("dim")) n = as_count(f.get("dim"), f.at("dim"), 1);
            for (const auto& [bound, key] : {std::pair<const json*, const char*>{lo, "lower"}, {hi, "upper"}})
              if (bound && bound->is_array() && !n) n = bound->size();
            if (!n) fail(f.at("dim"), "required field is missing (no list of bounds gives the dimension)");
            if (*n == 0 || *n > detail::box_max_dim)
              fail(f.at("dim"), fmt::format("expected between 1 and 2^26 coordinates, got {}", *n));
            const auto dim = static_cast<Eigen::Index>(*n);
            const auto bounds = [&](const json* bound, const char* key, double missing) -> Eigen::VectorXd {
              if (!bound) return Eigen::VectorXd::Constant(dim, missing);
              if (bound->is_number()) return Eigen::VectorXd::Constant(dim, as_number(*bound, f.at(key)));
              return detail::box_bounds(*bound, f.at(key), dim, missing);
            };
            const Eigen::VectorXd lower = bounds(lo, "lower", -inf), upper = bounds(hi, "upper", inf);
            for (Eigen::Index i = 0; i < dim; ++i)
              if (!(lower[i] < upper[i]))
                fail(f.path(), fmt::format("coordinate {} needs lower < upper, got lower {} and upper {}", i, lower[i], upper[i]));
            ManifoldChoice c;
            c.kind = "box";
            c.resolved = {{"name", "box"}, {"dim", *n}};
            if (lo) c.resolved["lower"] = *lo;
            if (hi) c.resolved["upper"] = *hi;
            const Box box(lower, upper);
            c.geometry.compact = box.compact();
            c.geometry.ambient = dim;
            c.manifold = box;
            return c;
          }};
}

}  // namespace sgmcmc::run
