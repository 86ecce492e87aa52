#pragma once
// The manifold conformance kit: the laws every sgmcmc::Manifold must obey, checked generically on a
// manifold's own random points and tangents (in the spirit of Sophus2's `manifold_prop_tests.h` and
// manif's `common_tester.h`). Framework-free: each check returns a Report (pass/fail and a message per
// law), so any test framework can consume it; <sgmcmc/modules/conformance/doctest.hpp> turns a Report
// into doctest CHECKs.
//
// `manifold_laws(m, seed)` — deterministic laws, each on several random points at a zero, a tiny
// (1e-9), a random and a fast tangent (docs/math.md#checks-for-any-target, d):
//   random points lie on M; 0 ≤ m ≤ N; the projection Λ(x) is idempotent, orthogonal (⟨v - Λv, Λw⟩ = 0),
//   symmetric (⟨Λv, w⟩ = ⟨v, Λw⟩) and has rank m (trace Λ = intrinsic_dim); flow(0) is the identity;
//   the flow keeps x on M and v tangent, conserves ‖v‖, is a one-parameter group
//   (Φ_s ∘ Φ_t = Φ_{s+t}, also for s < 0) and is time-reversible (Φ_t, v ← -v, Φ_t returns to (x, -v));
//   flow_kick_flow (the fused sweep, where the manifold has one) equals flow, kick, project, flow, and
//   kicks consecutive chunks covering [0, N) in order.
// `uniform_law(m, seed)` — statistical: GMC (hmc::Sampler, Byrne & Girolami 2013) on U = 0 is pure
//   geodesic flow with velocity refreshment, so it must accept every proposal and its chain must have
//   the moments E[x], E[xxᵀ] of i.i.d. random_point draws (compared within batch-means standard errors).
//   This checks that the flow preserves the uniform law, and that random_point is uniform; it applies
//   only to a compact manifold whose random_point is uniform (not to Euclidean).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>
#include <typeinfo>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#if __has_include(<cxxabi.h>)
#include <cstdlib>
#include <cxxabi.h>
#endif

#include <sgmcmc/concepts/manifold.hpp>
#include <sgmcmc/models/uniform.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/modules/schedule/step_size.hpp>
#include <sgmcmc/samplers/hmc.hpp>

namespace sgmcmc::conformance {

/// The outcome of one law over all the cases it was checked on.
struct LawResult {
  std::string law;          ///< e.g. "flow keeps x on M"
  bool passed = true;
  std::size_t cases = 0;    ///< how many (point, tangent, time) cases were checked
  std::size_t failures = 0;
  double worst = 0.0;       ///< the largest error seen, in the law's own measure
  double tolerance = 0.0;
  std::string message;      ///< the first failing case, or a summary when the law passed
};

struct Report {
  std::string manifold;
  std::vector<LawResult> laws;

  bool passed() const {
    return std::all_of(laws.begin(), laws.end(), [](const LawResult& l) { return l.passed; });
  }
  /// The result of the law named `law`, or nullptr.
  const LawResult* find(std::string_view law) const {
    for (const auto& l : laws)
      if (l.law == law) return &l;
    return nullptr;
  }
  /// One line per law: "PASS|FAIL <manifold>: <law>: <message>".
  std::string summary() const {
    std::string s;
    for (const auto& l : laws) s += fmt::format("{} {}: {}: {}\n", l.passed ? "PASS" : "FAIL", manifold, l.law, l.message);
    return s;
  }
};

/// Tolerances of the deterministic laws. Relative ones are divided by a scale 1 + ‖x‖ + ‖v‖.
struct Tolerances {
  double on_manifold = 1e-10;   ///< distance_to of random points and of flowed points (absolute)
  double projection = 1e-10;    ///< idempotence, orthogonality, symmetry (relative)
  double trace = 1e-8;          ///< |trace Λ - intrinsic_dim| (absolute)
  double tangent = 1e-10;       ///< ‖Λ(x_t)v_t - v_t‖ (relative)
  double norm = 1e-10;          ///< |‖v_t‖ - ‖v_0‖| (relative)
  double group = 1e-9;          ///< ‖Φ_s Φ_t - Φ_{s+t}‖ (relative)
  double reversibility = 1e-9;  ///< ‖(x'', v'') - (x, -v)‖ (relative)
  /// ‖flow_kick_flow - (flow, kick, project, flow)‖ (relative, and per radian the flow turns after the
  /// kick). 0 demands the same bits: right for a
  /// manifold whose fused sweep does the plain sequence's arithmetic (Euclidean, products of such, any
  /// manifold without the hook); the sphere's computes its projected speed by an algebraically equal
  /// formula and agrees to rounding.
  double fused_sweep = 1e-14;
};

struct LawOptions {
  std::string name;             ///< shown in messages; default: the manifold's type name
  int points = 6;               ///< random base points
  double time = 0.7;            ///< flow time t
  double split = 0.3;           ///< group law: Φ_s Φ_t = Φ_{s+t} for s = ±split
  double tiny = 1e-9;           ///< norm of the tiny tangent
  double fast = 5.0;            ///< scale of the fast tangent (a random tangent × fast)
  Eigen::Index max_trace_size = 400;  ///< the rank law builds N×N: skipped for larger N
  Tolerances tol{};
};

struct UniformLawOptions {
  std::string name;             ///< shown in messages; default: the manifold's type name
  int steps = 10000;            ///< GMC trajectories recorded
  int burn_in = 100;            ///< trajectories discarded (the chain starts at a random_point)
  int leapfrog_steps = 10;
  double step_size = 0.1;       ///< trajectory length leapfrog_steps·step_size
  int reference = 20000;        ///< i.i.d. random_point draws
  int batches = 50;             ///< batch means for the chain's SEs (docs/math.md#checks-for-any-target, e)
  double z = 5.0;               ///< allowed |difference| in standard errors
  Eigen::Index max_coordinates = 32;  ///< second moments use at most this many (evenly spaced) coordinates
  double min_acceptance = 0.999;      ///< U = 0 and ‖v‖ conserved: every proposal should be accepted
  double on_manifold = 1e-8;          ///< largest distance_to along the chain
};

namespace detail {

template <class M>
std::string type_name() {
  const char* raw = typeid(M).name();
#if __has_include(<cxxabi.h>)
  int status = 0;
  char* demangled = abi::__cxa_demangle(raw, nullptr, nullptr, &status);
  if (status == 0 && demangled != nullptr) {
    std::string s(demangled);
    std::free(demangled);
    return s;
  }
#endif
  return raw;
}

// Collects cases per law: a case passes when its error is ≤ the tolerance (NaN fails).
class Recorder {
 public:
  explicit Recorder(std::string manifold) { report_.manifold = std::move(manifold); }

  void record(std::string_view law, double error, double tolerance, const std::string& where) {
    LawResult& l = get(law, tolerance);
    ++l.cases;
    const bool ok = error <= tolerance;
    if (!(error <= l.worst)) l.worst = error;  // also keeps a NaN
    if (!ok) {
      if (l.failures == 0) l.message = fmt::format("error {:.3g} > tolerance {:.3g} at {}", error, tolerance, where);
      ++l.failures;
      l.passed = false;
    }
  }
  void note(std::string_view law, bool ok, const std::string& message) {
    LawResult& l = get(law, 0.0);
    ++l.cases;
    l.passed = l.passed && ok;
    if (!ok) ++l.failures;
    if (!ok || l.message.empty()) l.message = message;
  }
  Report finish() {
    for (auto& l : report_.laws) {
      if (l.passed && l.message.empty())
        l.message = fmt::format("{} case{}, worst error {:.3g} (tolerance {:.3g})", l.cases, l.cases == 1 ? "" : "s", l.worst,
                                l.tolerance);
      else if (!l.passed && l.failures > 1)
        l.message += fmt::format(" (and {} more failing cases of {}; worst error {:.3g})", l.failures - 1, l.cases, l.worst);
    }
    return std::move(report_);
  }

 private:
  LawResult& get(std::string_view law, double tolerance) {
    for (auto& l : report_.laws)
      if (l.law == law) return l;
    report_.laws.push_back(LawResult{std::string(law), true, 0, 0, 0.0, tolerance, {}});
    return report_.laws.back();
  }
  Report report_;
};

inline bool same_bits(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

inline std::string name_or(const std::string& given, std::string fallback) {
  return given.empty() ? std::move(fallback) : given;
}

}  // namespace detail

/// Checks the deterministic manifold laws on `options.points` random points of `m`.
template <Manifold M>
Report manifold_laws(const M& m, std::uint64_t seed, const LawOptions& options = {}) {
  static_assert(std::same_as<typename M::Point, Eigen::VectorXd>,
                "conformance: points must be Eigen::VectorXd (matrix manifolds flatten column-major)");
  using Vec = Eigen::VectorXd;
  const Tolerances& tol = options.tol;
  detail::Recorder rec(detail::name_or(options.name, detail::type_name<M>()));
  random::Stream rng(seed, 0);
  const Eigen::Index big_n = m.ambient_size();
  const Eigen::Index small_m = m.intrinsic_dim();

  rec.note("dimensions", big_n >= 1 && small_m >= 0 && small_m <= big_n,
           fmt::format("ambient_size {} and intrinsic_dim {} (need 0 ≤ m ≤ N)", big_n, small_m));

  const auto flowed = [&](Vec x, Vec v, double t) {
    m.flow(x, v, t);
    return std::pair<Vec, Vec>{std::move(x), std::move(v)};
  };
  const auto projected = [&](const Vec& x, Vec v) {
    m.project(x, v);
    return v;
  };

  for (int p = 0; p < options.points; ++p) {
    const Vec x = m.random_point(rng);
    const std::string at = fmt::format("point {}", p);
    // A random point must have N coordinates and lie on M: every other law starts from one.
    rec.record("random_point lies on M", x.size() == big_n ? m.distance_to(x) : std::numeric_limits<double>::infinity(),
               tol.on_manifold, at);
    if (x.size() != big_n) continue;

    // Projection laws, on raw ambient vectors (not tangent): catches a projector that is oblique, not
    // idempotent, or projects onto the wrong space (e.g. forgets the sym(·) on Stiefel).
    Vec a(big_n), b(big_n);
    rng.normals(a);
    rng.normals(b);
    const Vec pa = projected(x, a), pb = projected(x, b);
    const double sc = 1.0 + a.norm() * b.norm();
    rec.record("projection is idempotent", (projected(x, pa) - pa).norm() / (1.0 + a.norm()), tol.projection, at);
    rec.record("projection is orthogonal", std::abs((a - pa).dot(pb)) / sc, tol.projection, at);
    rec.record("projection is symmetric", std::abs(pa.dot(b) - a.dot(pb)) / sc, tol.projection, at);
    if (big_n <= options.max_trace_size) {
      // trace Λ = rank Λ = dim T_x M: catches an intrinsic_dim that disagrees with the projection (the
      // ambient-vs-intrinsic slip that puts SGNHT's thermostat at the wrong temperature).
      double trace = 0.0;
      Vec e(big_n);
      for (Eigen::Index i = 0; i < big_n; ++i) {
        e.setZero();
        e[i] = 1.0;
        m.project(x, e);
        trace += e[i];
      }
      rec.record("projection has rank intrinsic_dim", std::abs(trace - static_cast<double>(small_m)), tol.trace,
                 fmt::format("{} (trace {} vs intrinsic_dim {})", at, trace, small_m));
    }

    // Tangents: zero (0/0 traps such as the sphere's sin(αt)/α), tiny, random, fast (many reflections,
    // wrapping around compact factors).
    Vec u(big_n);
    rng.normals(u);
    m.project(x, u);
    const double un = u.norm();
    const Vec unit = un > 0 ? Vec(u / un) : Vec(Vec::Zero(big_n));
    const std::pair<const char*, Vec> tangents[] = {
        {"zero", Vec::Zero(big_n)}, {"tiny", options.tiny * unit}, {"random", u}, {"fast", options.fast * u}};
    for (const auto& tangent : tangents) {
      // Not a structured binding: lambdas below capture v, which Clang before 16 refuses for bindings.
      const char* const label = tangent.first;
      const Vec& v = tangent.second;
      const double t = options.time;
      const std::string where = fmt::format("{}, {} tangent (‖v‖ = {:.3g}), t = {}", at, label, v.norm(), t);
      const double scale = 1.0 + x.norm() + v.norm();

      const auto [x0, v0] = flowed(x, v, 0.0);
      rec.record("flow for time 0 is the identity", ((x0 - x).norm() + (v0 - v).norm()) / scale, tol.group, where);

      const auto [xt, vt] = flowed(x, v, t);
      rec.record("flow keeps x on M", m.distance_to(xt), tol.on_manifold, where);
      rec.record("flow keeps v tangent", (projected(xt, vt) - vt).norm() / scale, tol.tangent, where);
      rec.record("flow conserves ‖v‖", std::abs(vt.norm() - v.norm()) / scale, tol.norm, where);
      if (std::string_view(label) == "zero")
        rec.record("flow with v = 0 stays put", (xt - x).norm() / scale, tol.group, where);

      // Φ_s ∘ Φ_{t} = Φ_{s+t}, for s > 0 and s < 0 (so negative times must work too).
      for (const double s : {options.split, -options.split}) {
        auto [x1, v1] = flowed(x, v, t);
        m.flow(x1, v1, s);
        const auto [x2, v2] = flowed(x, v, t + s);
        rec.record("flow is a one-parameter group", ((x1 - x2).norm() + (v1 - v2).norm()) / scale, tol.group,
                   fmt::format("{}, s = {}", where, s));
      }

      // flow_kick_flow (the manifold's fused sweep; else the plain sequence) equals flow(t1), kick,
      // project, flow(t), with t1 = 0 meaning no first flow, for an elementwise kick that reads x and
      // leaves v with a normal part. Catches: a sweep that projects with a stale coefficient, flows at the
      // unprojected speed, kicks before the first flow reached the chunk, skips or repeats a chunk (a
      // product offsetting a block's kick wrongly), or calls the chunks out of order (the kick's noise
      // would then be drawn in another order).
      for (const double t1 : {0.0, options.split}) {
        const auto run = [&](bool fused, bool& in_order) {
          Vec xk = x, vk = v;
          Eigen::Index next = 0;
          in_order = true;
          const auto kick = [&](Eigen::Index lo, Eigen::Index hi) {
            in_order = in_order && lo == next && hi >= lo && hi <= big_n;
            next = hi;
            for (Eigen::Index i = lo; i < hi; ++i) vk[i] = 0.9 * vk[i] - 0.4 * xk[i] + 0.5 * a[i];
          };
          std::uint64_t nref = 0;
          if (fused) {
            nref = flow_kick_flow(m, xk, vk, t1, ChunkKick(kick), t);
          } else {
            if (t1 != 0.0) nref += m.flow(xk, vk, t1);
            kick(0, big_n);
            m.project(xk, vk);
            nref += m.flow(xk, vk, t);
          }
          in_order = in_order && next == big_n;
          return std::tuple<Vec, Vec, std::uint64_t>{std::move(xk), std::move(vk), nref};
        };
        bool in_order = true, unused = true;
        const auto [xf, vf, nf] = run(true, in_order);
        const auto [xs, vs, ns] = run(false, unused);
        const std::string at_t1 = fmt::format("{}, t1 = {}", where, t1);
        rec.note("flow_kick_flow kicks consecutive chunks covering [0, N) once", in_order, at_t1);
        // Relative to the size of the state and to the rotation angle after the kick (an angle of αt
        // radians turns a relative rounding error in α into one αt times larger).
        const double turn = 1.0 + std::abs(t) * (0.9 * v.norm() + 0.4 * x.norm() + 0.5 * a.norm());
        const double diff = ((xf - xs).norm() + (vf - vs).norm()) / ((scale + a.norm()) * turn);
        const bool bits = detail::same_bits(xf, xs) && detail::same_bits(vf, vs);
        double error = tol.fused_sweep == 0.0 ? (bits ? 0.0 : std::max(diff, std::numeric_limits<double>::min())) : diff;
        if (nf != ns) error = std::numeric_limits<double>::infinity();
        rec.record("flow_kick_flow is flow, kick, project, flow", error, tol.fused_sweep,
                   fmt::format("{} ({} vs {} reflections)", at_t1, nf, ns));
      }

      // Reversibility: Φ_t, negate v, Φ_t returns to (x, -v) — what makes GMC's proposal symmetric.
      auto [xr, vr] = flowed(x, v, t);
      vr = -vr;
      m.flow(xr, vr, t);
      rec.record("flow is time-reversible", ((xr - x).norm() + (vr + v).norm()) / scale, tol.reversibility, where);
    }
  }
  return rec.finish();
}

/// The statistical law: GMC on the uniform target reproduces the first and second moments of
/// i.i.d. random_point draws. Runs steps·leapfrog_steps flows plus `reference` random points.
template <Manifold M>
Report uniform_law(const M& m, std::uint64_t seed, const UniformLawOptions& options = {}) {
  static_assert(std::same_as<typename M::Point, Eigen::VectorXd>,
                "conformance: points must be Eigen::VectorXd (matrix manifolds flatten column-major)");
  using Vec = Eigen::VectorXd;
  detail::Recorder rec(detail::name_or(options.name, detail::type_name<M>()));
  const Eigen::Index big_n = m.ambient_size();

  // Statistics: x_i for every i, and x_a x_b (a ≤ b) over at most max_coordinates coordinates.
  std::vector<Eigen::Index> coords;
  const Eigen::Index kc = std::min(big_n, std::max<Eigen::Index>(options.max_coordinates, 1));
  for (Eigen::Index i = 0; i < kc; ++i) coords.push_back(i * big_n / kc);
  std::vector<std::string> names;
  for (Eigen::Index i = 0; i < big_n; ++i) names.push_back(fmt::format("E[x_{}]", i));
  for (std::size_t a = 0; a < coords.size(); ++a)
    for (std::size_t b = a; b < coords.size(); ++b) names.push_back(fmt::format("E[x_{} x_{}]", coords[a], coords[b]));
  const Eigen::Index dim = static_cast<Eigen::Index>(names.size());
  Vec f(dim);
  const auto stats = [&](const Vec& x) {
    f.head(big_n) = x;
    Eigen::Index k = big_n;
    for (std::size_t a = 0; a < coords.size(); ++a)
      for (std::size_t b = a; b < coords.size(); ++b) f[k++] = x[coords[a]] * x[coords[b]];
  };

  // i.i.d. reference moments and their standard errors.
  random::Stream ref_rng(seed, 1);
  const int nref = std::max(options.reference, 2);
  Vec sum = Vec::Zero(dim), sumsq = Vec::Zero(dim);
  for (int i = 0; i < nref; ++i) {
    stats(m.random_point(ref_rng));
    sum += f;
    sumsq += f.cwiseAbs2();
  }
  const Vec ref_mean = sum / nref;
  const Vec ref_se = ((sumsq / nref - ref_mean.cwiseAbs2()).cwiseMax(0.0) * (1.0 / (nref - 1))).cwiseSqrt();

  // The GMC chain from an exact (random_point) start, so the check is of invariance, not of mixing
  // (docs/math.md#checks-for-any-target, c); batch means for the standard errors (ibid., e).
  random::Stream rng(seed, 0);
  const hmc::Sampler<M> sampler{m, schedule::StepSize::constant(options.step_size), options.leapfrog_steps};
  const models::Uniform uniform;
  auto state = sampler.init(m.random_point(rng), rng);
  const int nb = std::max(options.batches, 2);
  const int per_batch = std::max(options.steps / nb, 1);
  Eigen::MatrixXd batch_means = Eigen::MatrixXd::Zero(dim, nb);
  double worst_distance = 0.0;
  std::uint64_t step = 0;
  for (int i = 0; i < options.burn_in; ++i) sampler.step(state, uniform, rng, step++);
  const std::uint64_t accepted0 = state.accepted, proposals0 = state.proposals;
  for (int bi = 0; bi < nb; ++bi) {
    for (int i = 0; i < per_batch; ++i) {
      sampler.step(state, uniform, rng, step++);
      const double d = m.distance_to(state.x);
      if (!(d <= worst_distance)) worst_distance = d;
      stats(state.x);
      batch_means.col(bi) += f;
    }
    batch_means.col(bi) /= per_batch;
  }
  const Vec chain_mean = batch_means.rowwise().mean();
  const Vec chain_se =
      ((batch_means.colwise() - chain_mean).cwiseAbs2().rowwise().sum() / ((nb - 1.0) * nb)).cwiseSqrt();

  const double rate = static_cast<double>(state.accepted - accepted0) / static_cast<double>(state.proposals - proposals0);
  rec.note("GMC on U = 0 accepts every proposal", rate >= options.min_acceptance,
           fmt::format("acceptance rate {:.6f} (need ≥ {}; U = 0, so only a flow that changes ‖v‖ is rejected)", rate,
                       options.min_acceptance));
  rec.record("GMC chain stays on M", worst_distance, options.on_manifold,
             fmt::format("{} trajectories of {} flows", nb * per_batch, options.leapfrog_steps));

  // Each moment: |chain - iid| ≤ z·SE + 1e-12 (the 1e-12 for moments constant on M, whose SEs are 0),
  // i.e. z_eff = |chain - iid| / (SE + 1e-12/z) ≤ z.
  const auto compare = [&](std::string_view law, Eigen::Index from, Eigen::Index to) {
    double worst_z = 0.0;
    Eigen::Index worst_j = from;
    bool ok = true;
    for (Eigen::Index j = from; j < to; ++j) {
      const double se = std::sqrt(chain_se[j] * chain_se[j] + ref_se[j] * ref_se[j]);
      double zj = std::abs(chain_mean[j] - ref_mean[j]) / (se + 1e-12 / options.z);
      if (std::isnan(zj)) zj = std::numeric_limits<double>::infinity();
      ok = ok && zj <= options.z;
      if (zj > worst_z) {
        worst_z = zj;
        worst_j = j;
      }
    }
    const Eigen::Index j = worst_j;
    rec.note(law, ok,
             fmt::format("{} moments; largest gap {}: chain {:.5f} ± {:.2g}, i.i.d. random_point {:.5f} ± {:.2g}, "
                         "{:.2f} SE (allowed {})",
                         to - from, names[static_cast<std::size_t>(j)], chain_mean[j], chain_se[j], ref_mean[j],
                         ref_se[j], worst_z, options.z));
  };
  compare("GMC on U = 0 preserves E[x] of random_point", 0, big_n);
  compare("GMC on U = 0 preserves E[x xᵀ] of random_point", big_n, dim);
  return rec.finish();
}

}  // namespace sgmcmc::conformance
