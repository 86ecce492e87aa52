// Allocation in a step (docs/architecture.md, "Allocation in a step"): every shipped sampler's step, on
// every manifold it supports and with each splitting scheme, allocates nothing on its success path once
// its state is warm. The global operator new is replaced in every form, and so, on glibc, are malloc,
// calloc and realloc — Eigen's dynamic matrices allocate through std::malloc, never operator new, so
// counting operator new alone would miss every temporary VectorXd and MatrixXd. Both count while a
// window is open: each case runs kWarmUp steps first (a first step may size its scratch), then counts
// kCounted steps. Catches a temporary Eigen vector or matrix in a step (an expression materialised, a
// product nested in a larger expression, a decomposition built afresh), a std::vector or string built
// per step, a message formatted before its check fails, a scratch buffer resized every step. The steps
// that do allocate are listed in kAllocating with why, each checked against the most allocations
// measured in one step, and checked to allocate still (a fix must update the list and the docs). The
// first test case shows the counter sees both kinds of allocation, once each.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include <sgmcmc/manifolds/manifolds.hpp>
#include <sgmcmc/models/dirichlet.hpp>
#include <sgmcmc/models/gaussian.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/run/metric_spec.hpp>
#include <sgmcmc/samplers/amagold.hpp>
#include <sgmcmc/samplers/expanded_mean.hpp>
#include <sgmcmc/samplers/hmc.hpp>
#include <sgmcmc/samplers/preconditioned.hpp>
#include <sgmcmc/samplers/psgld.hpp>
#include <sgmcmc/samplers/recipe.hpp>
#include <sgmcmc/samplers/scir.hpp>
#include <sgmcmc/samplers/sghmc.hpp>
#include <sgmcmc/samplers/sgld.hpp>
#include <sgmcmc/samplers/sgnht.hpp>
#include <sgmcmc/samplers/sgrhmc.hpp>
#include <sgmcmc/samplers/sgrld.hpp>

using namespace sgmcmc;
using Eigen::MatrixXd;
using Eigen::VectorXd;

// Counting needs glibc's allocator under its own names, and no sanitizer that replaces malloc itself
// (ASan, TSan, MSan): the sanitizer build runs the cases without counting.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SGMCMC_SANITIZED_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define SGMCMC_SANITIZED_MALLOC 1
#endif
#endif
#if defined(__GLIBC__) && !defined(SGMCMC_SANITIZED_MALLOC)
#define SGMCMC_COUNTS_ALLOCATIONS 1
#else
#define SGMCMC_COUNTS_ALLOCATIONS 0
#endif

namespace {
std::atomic<bool> counting{false};
std::atomic<std::uint64_t> news{0};     ///< operator new calls while counting
std::atomic<std::uint64_t> mallocs{0};  ///< malloc, calloc, realloc calls while counting
}  // namespace

#if SGMCMC_COUNTS_ALLOCATIONS
namespace {
void note(std::atomic<std::uint64_t>& calls) {
  if (counting.load(std::memory_order_relaxed)) calls.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

// glibc's allocator under the names it exports for this: the replacements below count, then forward, so
// every part of the program (libstdc++, fmt, Eigen) keeps one heap.
extern "C" {
void* __libc_malloc(std::size_t) noexcept;
void* __libc_calloc(std::size_t, std::size_t) noexcept;
void* __libc_realloc(void*, std::size_t) noexcept;
void* __libc_memalign(std::size_t, std::size_t) noexcept;
void __libc_free(void*) noexcept;

void* malloc(std::size_t size) noexcept {
  note(mallocs);
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) noexcept {
  note(mallocs);
  return __libc_calloc(count, size);
}
void* realloc(void* p, std::size_t size) noexcept {
  note(mallocs);
  return __libc_realloc(p, size);
}
void free(void* p) noexcept { __libc_free(p); }
}

namespace {
// operator new counts as itself and takes its memory from glibc directly, so it is not counted twice.
void* counted_new(std::size_t size) noexcept {
  note(news);
  return __libc_malloc(size ? size : 1);
}
void* counted_new(std::size_t size, std::align_val_t alignment) noexcept {
  note(news);
  return __libc_memalign(static_cast<std::size_t>(alignment), size ? size : 1);
}
void* or_throw(void* p) {
  if (!p) throw std::bad_alloc();
  return p;
}
}  // namespace

void* operator new(std::size_t size) { return or_throw(counted_new(size)); }
void* operator new[](std::size_t size) { return or_throw(counted_new(size)); }
void* operator new(std::size_t size, std::align_val_t a) { return or_throw(counted_new(size, a)); }
void* operator new[](std::size_t size, std::align_val_t a) { return or_throw(counted_new(size, a)); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return counted_new(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return counted_new(size); }
void* operator new(std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept { return counted_new(size, a); }
void* operator new[](std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept { return counted_new(size, a); }
void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { __libc_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { __libc_free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { __libc_free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { __libc_free(p); }
#endif

namespace {

constexpr std::uint64_t kWarmUp = 10, kCounted = 300;

/// What a case allocated over its counted steps.
struct Measured {
  std::uint64_t news = 0, mallocs = 0;
  std::uint64_t most_in_a_step = 0;
};

/// Counting on for its lifetime, from zero.
class Window {
 public:
  Window() {
    news = 0;
    mallocs = 0;
    counting = true;
  }
  ~Window() { counting = false; }
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;
  std::uint64_t so_far() const { return news + mallocs; }
};

/// Starts `sampler` at x0, runs kWarmUp steps, then counts the allocations of kCounted more.
template <class S, class P>
Measured measure(const S& sampler, const P& potential, VectorXd x0) {
  random::Stream rng(2718, 1);
  auto state = sampler.init(std::move(x0), rng);
  std::uint64_t t = 0;
  for (; t < kWarmUp; ++t) sampler.step(state, potential, rng, t);
  Measured m;
  const Window window;
  for (; t < kWarmUp + kCounted; ++t) {
    const std::uint64_t before = window.so_far();
    sampler.step(state, potential, rng, t);
    m.most_in_a_step = std::max(m.most_in_a_step, window.so_far() - before);
  }
  m.news = news;
  m.mallocs = mallocs;
  return m;
}

/// One measured case, named by sampler, manifold and scheme ("-" where the sampler has no scheme).
struct Row {
  std::string sampler, manifold, scheme;
  Measured measured;
};

// Why the steps in kAllocating allocate (docs/architecture.md, "Allocation in a step", says the same).
constexpr std::string_view kStiefel =
    "Stiefel's flow allocates 39-50 times (two matrix exponentials by Padé approximation and an LU solve, the "
    "polar re-orthonormalisation's eigendecomposition, p×p and 2p×2p temporaries; more for a longer step) and "
    "its projection twice (the p×p XᵀV and its symmetric part)";
constexpr std::string_view kUserMetric =
    "a user metric (metric::Diagonal, metric::Dense) is evaluated over autodiff dual numbers, each carrying a "
    "dynamic vector of derivatives; the dense one's G^(-1/2) and its finite differences build matrices too "
    "(the count grows with the dimension: here 4); semi_implicit evaluates the metric twice";
constexpr std::string_view kUserFields =
    "the user's D(z), Q(z) (and Γ(z)) return dynamic matrices by value; autodiff Γ evaluates them over dual "
    "numbers, finite-difference Γ 2n more times (the count grows with the dimension: here z has 6 entries)";
constexpr std::string_view kSemidefinite =
    "a dense noise covariance that is only semidefinite (no Cholesky factor) is drawn through an "
    "eigendecomposition, whose solver, eigenvalues and product allocate";

/// A step that allocates: its rows (`sampler` names a sampler and its variants in parentheses; a row
/// matches the first entry whose manifold is part of its own, so "stiefel" covers every manifold made
/// with Stiefel factors, and whose scheme is its own), the most allocations measured in one step of
/// them (the bound checked) and why.
struct Allocating {
  std::string_view sampler, manifold, scheme;
  std::uint64_t per_step;
  std::string_view why;
};
constexpr Allocating kAllocating[] = {
    // Per step: flows F and projections P on Stiefel.
    {"sghmc (diagonal friction)", "stiefel", "aboba", 90, kStiefel},  // 2F + 3P (no fused sweep)
    {"sghmc (diagonal friction)", "stiefel", "baoab", 90, kStiefel},  // 2F + 3P
    {"sghmc (diagonal friction)", "stiefel", "obabo", 51, kStiefel},  // F + 4P
    {"sghmc (diagonal friction)", "stiefel", "euler", 47, kStiefel},  // F + 2P
    {"sghmc", "stiefel", "aboba", 86, kStiefel},                      // 2F + P
    {"sghmc", "stiefel", "baoab", 86, kStiefel},                      // 2F + P
    {"sghmc", "stiefel", "obabo", 47, kStiefel},                      // F + 2P
    {"sghmc", "stiefel", "euler", 45, kStiefel},                      // F + P
    {"sghmc (diagonal friction)", "stiefel", "lm_baoab", 90, kStiefel},  // 2F + 3P
    {"sghmc", "stiefel", "lm_baoab", 90, kStiefel},                      // 2F + 3P
    {"sgnht", "stiefel", "aboba", 86, kStiefel},                      // 2F + P
    {"sgnht", "stiefel", "baoab", 86, kStiefel},                      // 2F + P
    {"sgnht", "stiefel", "obabo", 47, kStiefel},                      // F + 2P
    {"sgnht", "stiefel", "euler", 45, kStiefel},                      // F + P
    {"sgld", "stiefel", "-", 47, kStiefel},                           // F + P
    {"hmc", "stiefel", "-", 229, kStiefel},                           // 5F + 7P (5 leapfrog steps)
    {"naive sghmc", "stiefel", "-", 229, kStiefel},                   // 5F + 7P
    {"amagold", "stiefel", "-", 440, kStiefel},                       // 10F + 20P (a window of 5)
    {"sgrld, metric user diagonal", "euclidean", "-", 18, kUserMetric},
    {"sgrhmc, metric user diagonal", "euclidean", "euler", 18, kUserMetric},
    {"sgrhmc, metric user diagonal", "euclidean", "semi_implicit", 36, kUserMetric},
    {"naive sgrhmc, metric user diagonal", "euclidean", "euler", 18, kUserMetric},
    {"naive sgrhmc, metric user diagonal", "euclidean", "semi_implicit", 36, kUserMetric},
    {"sgrld, metric user dense", "euclidean", "-", 235, kUserMetric},
    {"sgrhmc, metric user dense", "euclidean", "euler", 235, kUserMetric},
    {"sgrhmc, metric user dense", "euclidean", "semi_implicit", 470, kUserMetric},
    {"naive sgrhmc, metric user dense", "euclidean", "euler", 235, kUserMetric},
    {"naive sgrhmc, metric user dense", "euclidean", "semi_implicit", 470, kUserMetric},
    {"recipe, user D, Q (autodiff Γ)", "euclidean", "euler", 18, kUserFields},
    {"recipe, user D, Q (finite-difference Γ)", "euclidean", "euler", 40, kUserFields},
    {"recipe, user D, Q, Γ", "euclidean", "euler", 3, kUserFields},
    {"recipe, dense semidefinite D", "euclidean", "euler", 7, kSemidefinite},
};

const Allocating* documented(const Row& row) {
  for (const Allocating& a : kAllocating) {
    const bool sampler = row.sampler == a.sampler || row.sampler.starts_with(std::string(a.sampler) + " (");
    if (sampler && row.manifold.find(a.manifold) != std::string::npos && row.scheme == a.scheme) return &a;
  }
  return nullptr;
}

/// Every row allocates nothing, or is documented, allocates still and no more than its bound.
void check(const std::vector<Row>& rows) {
  if (!SGMCMC_COUNTS_ALLOCATIONS) {
    MESSAGE("allocations not counted: a sanitizer replaces malloc (or the C library is not glibc)");
    return;
  }
  for (const Row& row : rows) {
    INFO(row.sampler, " on ", row.manifold, ", scheme ", row.scheme, ": ", row.measured.news, " operator new and ",
         row.measured.mallocs, " malloc calls in ", kCounted, " steps, at most ", row.measured.most_in_a_step,
         " in one");
    const Allocating* a = documented(row);
    if (!a) {
      CHECK(row.measured.most_in_a_step == 0);
      continue;
    }
    INFO("documented in kAllocating: ", a->why, "; if it no longer allocates, remove it there and from "
                                                 "docs/architecture.md");
    CHECK(row.measured.most_in_a_step > 0);
    CHECK(row.measured.most_in_a_step <= a->per_step);
  }
}

// U(x) = ½‖x − μ‖², written in place: a smooth potential on every manifold that allocates nothing, and a
// black box to the fused sweeps (not separable), which then take its gradient on the whole vector.
struct Quadratic {
  VectorXd mu;
  void exact_gradient(const VectorXd& x, VectorXd& g) const { g = x - mu; }
  template <class R>
  void gradient(const VectorXd& x, VectorXd& g, R& /*rng*/) const {
    exact_gradient(x, g);
  }
  double value(const VectorXd& x) const { return 0.5 * (x - mu).squaredNorm(); }
};

// The quadratic with a per-coordinate gradient-noise estimate, for the empirical-Fisher kicks.
struct QuadraticWithNoise : Quadratic {
  template <class R>
  void gradient_and_variance(const VectorXd& x, VectorXd& g, VectorXd& var, R& /*rng*/) const {
    exact_gradient(x, g);
    var.setConstant(x.size(), 0.5);
  }
};

// The seed papers' letters (splitting::baoab is not Leimkuhler & Matthews's); lm_baoab's rows are added below.
const std::vector<splitting::StageList> kSchemes{splitting::aboba, splitting::baoab, splitting::obabo, splitting::euler};

/// The samplers that run on any manifold: SGLD; SGHMC with a scalar friction (the fused ABOBA), a
/// diagonal one and the empirical Fisher; SGNHT with and without it; each split sampler under every
/// scheme, with a black-box and a separable potential; HMC (GMC), naive SGHMC with and without its MH
/// test; AMAGOLD.
template <class M>
void any_manifold_samplers(std::vector<Row>& rows, const std::string& name, const M& manifold) {
  random::Stream start(5, 0);
  const VectorXd x0 = manifold.random_point(start);
  const Eigen::Index n = x0.size();
  const QuadraticWithNoise quadratic{{VectorXd::LinSpaced(n, -0.5, 0.5)}};
  const auto separable = models::Gaussian::isotropic(VectorXd::LinSpaced(n, -0.5, 0.5), 1.0);
  const auto h = schedule::StepSize::constant(0.02);
  for (const auto& scheme : kSchemes) {
    const std::string s(scheme.name);
    using Sghmc = sghmc::Sampler<M>;
    using Sgnht = sgnht::Sampler<M>;
    rows.push_back({"sghmc", name, s, measure(Sghmc{{manifold, sghmc::Friction(1.0), 0.1}, scheme, h}, quadratic, x0)});
    rows.push_back({"sghmc (separable U)", name, s, measure(Sghmc{{manifold, sghmc::Friction(1.0), 0.1}, scheme, h}, separable, x0)});
    rows.push_back({"sghmc (diagonal friction)", name, s,
                    measure(Sghmc{{manifold, sghmc::Friction(VectorXd::LinSpaced(n, 0.5, 2.0)), 0.1}, scheme, h}, quadratic, x0)});
    rows.push_back({"sghmc (empirical Fisher)", name, s,
                    measure(Sghmc{{manifold, sghmc::Friction(1.0), 0.0, true}, scheme, h}, quadratic, x0)});
    rows.push_back({"sgnht", name, s, measure(Sgnht{{manifold, 1.0, 0.1}, scheme, h}, quadratic, x0)});
    rows.push_back({"sgnht (separable U)", name, s, measure(Sgnht{{manifold, 1.0, 0.1}, scheme, h}, separable, x0)});
    rows.push_back({"sgnht (empirical Fisher)", name, s, measure(Sgnht{{manifold, 1.0, 0.0, true}, scheme, h}, quadratic, x0)});
  }
  {  // Leimkuhler & Matthews's BAOAB: SGHMC only (SGNHT and the empirical Fisher refuse it at init).
    const std::string s(splitting::lm_baoab.name);
    using Sghmc = sghmc::Sampler<M>;
    rows.push_back({"sghmc", name, s, measure(Sghmc{{manifold, sghmc::Friction(1.0), 0.1}, splitting::lm_baoab, h}, quadratic, x0)});
    rows.push_back({"sghmc (separable U)", name, s,
                    measure(Sghmc{{manifold, sghmc::Friction(1.0), 0.1}, splitting::lm_baoab, h}, separable, x0)});
    rows.push_back({"sghmc (diagonal friction)", name, s,
                    measure(Sghmc{{manifold, sghmc::Friction(VectorXd::LinSpaced(n, 0.5, 2.0)), 0.1}, splitting::lm_baoab, h}, quadratic, x0)});
  }
  rows.push_back({"sgld", name, "-", measure(sgld::Sampler<M>{manifold, h, 0.1}, quadratic, x0)});
  rows.push_back({"sgld (separable U)", name, "-", measure(sgld::Sampler<M>{manifold, h, 0.1}, separable, x0)});
  rows.push_back({"hmc", name, "-", measure(hmc::Sampler<M>{manifold, h, 5, hmc::Gradient::exact, true}, quadratic, x0)});
  rows.push_back({"hmc (models::Gaussian)", name, "-",
                  measure(hmc::Sampler<M>{manifold, h, 5, hmc::Gradient::exact, true}, separable, x0)});
  rows.push_back({"naive sghmc", name, "-",
                  measure(hmc::Sampler<M>{manifold, h, 5, hmc::Gradient::stochastic, false}, quadratic, x0)});
  rows.push_back({"naive sghmc (mh)", name, "-",
                  measure(hmc::Sampler<M>{manifold, h, 5, hmc::Gradient::stochastic, true}, quadratic, x0)});
  rows.push_back({"amagold", name, "-", measure(amagold::Sampler<M>{manifold, h, 1.0, 5}, quadratic, x0)});
  rows.push_back({"amagold (models::Gaussian)", name, "-", measure(amagold::Sampler<M>{manifold, h, 1.0, 5}, separable, x0)});
}

// A potential that allocates through operator new in every gradient (a std::vector).
struct VectorPerStep {
  template <class R>
  void gradient(const VectorXd& x, VectorXd& g, R& /*rng*/) const {
    const std::vector<double> copy(x.begin(), x.end());
    g = Eigen::Map<const VectorXd>(copy.data(), x.size());
  }
};
// A potential that allocates through malloc in every gradient (a VectorXd).
struct EigenPerStep {
  template <class R>
  void gradient(const VectorXd& x, VectorXd& g, R& /*rng*/) const {
    const VectorXd copy = 2.0 * x;
    g = copy;
  }
};

}  // namespace

TEST_CASE("the counter sees operator new and malloc: a step that allocates is caught") {
  // Catches a counter that sees nothing (the replacements not linked in, or counting never switched on),
  // and one that counts an operator new twice (once more through malloc).
  if (!SGMCMC_COUNTS_ALLOCATIONS) {
    MESSAGE("allocations not counted: a sanitizer replaces malloc (or the C library is not glibc)");
    return;
  }
  const sgld::Sampler<Euclidean> sampler{Euclidean(4), schedule::StepSize::constant(0.01)};
  const Measured by_new = measure(sampler, VectorPerStep{}, VectorXd::Zero(4));
  CHECK(by_new.news == kCounted);
  CHECK(by_new.mallocs == 0);
  CHECK(by_new.most_in_a_step == 1);
  const Measured by_malloc = measure(sampler, EigenPerStep{}, VectorXd::Zero(4));
  CHECK(by_malloc.news == 0);
  CHECK(by_malloc.mallocs == kCounted);
  CHECK(by_malloc.most_in_a_step == 1);
}

TEST_CASE("SGLD, SGHMC, SGNHT, HMC, naive SGHMC and AMAGOLD on every manifold, under every scheme") {
  std::vector<Row> rows;
  any_manifold_samplers(rows, "euclidean(6)", Euclidean(6));
  any_manifold_samplers(rows, "euclidean(2500)", Euclidean(2500));  // SIMD copies, several chunks per sweep
  any_manifold_samplers(rows, "sphere(6)", Sphere(6));
  any_manifold_samplers(rows, "sphere(2500)", Sphere(2500));
  any_manifold_samplers(rows, "simplex(6)", Simplex(6));
  any_manifold_samplers(rows, "stiefel(6, 2)", Stiefel(6, 2));
  any_manifold_samplers(rows, "product(sphere(3), simplex(4))", Product<Sphere, Simplex>(Sphere(3), Simplex(4)));
  any_manifold_samplers(rows, "power(sphere(3), 3)", Power<Sphere>(Sphere(3), 3));
  any_manifold_samplers(rows, "dynamic product(euclidean(2), sphere(3), simplex(3))",
                        DynamicProduct({Euclidean(2), Sphere(3), Simplex(3)}));
  any_manifold_samplers(rows, "dynamic product(sphere(3), stiefel(4, 2))", DynamicProduct({Sphere(3), Stiefel(4, 2)}));
  for (const auto& [name, m] : std::vector<std::pair<std::string, AnyManifold>>{
           {"any(euclidean(6))", Euclidean(6)},
           {"any(sphere(6))", Sphere(6)},
           {"any(simplex(6))", Simplex(6)},
           {"any(stiefel(6, 2))", Stiefel(6, 2)},
           {"any(power(sphere(3), 2))", Power<Sphere>(Sphere(3), 2)}})
    any_manifold_samplers(rows, name, m);
  // The SGD-with-momentum form is SGHMC with (h, C, V̂) from (η, α, β̂) (sghmc::from_momentum).
  const auto p = sghmc::from_momentum(1e-3, 0.1, 0.01);
  rows.push_back({"sghmc (momentum form)", "euclidean(6)", "aboba",
                  measure(sghmc::Sampler<Euclidean>{{Euclidean(6), sghmc::Friction(p.friction), p.noise_estimate},
                                                    splitting::aboba, schedule::StepSize::constant(p.step_size)},
                          Quadratic{VectorXd::Ones(6)}, VectorXd::Zero(6))});
  check(rows);
}

TEST_CASE("flat-space samplers: pSGLD and the diagonal, dense and low-rank preconditioners") {
  const Eigen::Index d = 6;
  const QuadraticWithNoise quadratic{{VectorXd::LinSpaced(d, -1.0, 1.0)}};
  const VectorXd x0 = VectorXd::LinSpaced(d, 0.5, -0.5);
  const auto h = schedule::StepSize::constant(0.01);
  std::vector<Row> rows;
  rows.push_back({"psgld", "euclidean(6)", "-", measure(psgld::Sampler{d, h}, quadratic, x0)});
  rows.push_back({"psgld (adapt_steps 100)", "euclidean(6)", "-", measure(psgld::Sampler{d, h, 0.99, 1e-5, 100}, quadratic, x0)});
  rows.push_back({"psgld (gamma_term)", "euclidean(6)", "-", measure(psgld::Sampler{d, h, 0.99, 1e-5, 0, true}, quadratic, x0)});
  // adapt_steps 100: the scale is collected inside the counted steps and fixed at the hundredth.
  const sgld::Sampler<Euclidean> sgld{Euclidean(d), h};
  const sghmc::Sampler<Euclidean> sghmc{{Euclidean(d), sghmc::Friction(1.0), 0.0}, splitting::aboba, h};
  const hmc::Sampler<Euclidean> hmc{Euclidean(d), h, 5};
  for (const std::uint64_t k : {std::uint64_t{0}, std::uint64_t{100}}) {
    const std::string how = k ? " (adapt_steps 100)" : " (scale given)";
    const VectorXd scale = k ? VectorXd() : VectorXd::LinSpaced(d, 0.5, 2.0);
    rows.push_back({"preconditioned sgld" + how, "euclidean(6)", "-",
                    measure(preconditioned::Sampler<sgld::Sampler<Euclidean>>{sgld, k, scale}, quadratic, x0)});
    rows.push_back({"preconditioned sghmc" + how, "euclidean(6)", "aboba",
                    measure(preconditioned::Sampler<sghmc::Sampler<Euclidean>>{sghmc, k, scale}, quadratic, x0)});
    rows.push_back({"preconditioned hmc" + how, "euclidean(6)", "-",
                    measure(preconditioned::Sampler<hmc::Sampler<Euclidean>>{hmc, k, scale}, quadratic, x0)});
  }
  // Dense: a given L (O(d²) products into the state's scratch); low rank: a warm-up of 1000 steps still
  // collecting (Welford's rank-one update of the d×d sums) with its O(dk) products. The fix at the
  // warm-up's end factorises once and may allocate: not in the counted steps here.
  using preconditioned::Kind;
  const Eigen::MatrixXd lower = Eigen::MatrixXd(Eigen::MatrixXd::Constant(d, d, 0.1) + Eigen::MatrixXd::Identity(d, d)).triangularView<Eigen::Lower>();
  rows.push_back({"preconditioned sgld (dense, L given)", "euclidean(6)", "-",
                  measure(preconditioned::Sampler<sgld::Sampler<Euclidean>>{sgld, 0, {}, 1e-12, Kind::dense, lower}, quadratic, x0)});
  rows.push_back({"preconditioned sghmc (dense, L given)", "euclidean(6)", "aboba",
                  measure(preconditioned::Sampler<sghmc::Sampler<Euclidean>>{sghmc, 0, {}, 1e-12, Kind::dense, lower}, quadratic, x0)});
  rows.push_back({"preconditioned sghmc (low_rank 2, collecting)", "euclidean(6)", "aboba",
                  measure(preconditioned::Sampler<sghmc::Sampler<Euclidean>>{sghmc, 1000, {}, 1e-12, Kind::low_rank, {}, 2}, quadratic, x0)});
  check(rows);
}

namespace {

// A dense symmetric positive definite G⁻¹(θ) = A + diag(θ²)/10, over any scalar (the autodiff metric).
struct DenseInverse {
  template <class T>
  auto operator()(const T& theta) const {
    using S = typename T::Scalar;
    const Eigen::Index n = theta.size();
    Eigen::Matrix<S, -1, -1> m = Eigen::Matrix<S, -1, -1>::Constant(n, n, S(0.2));
    for (Eigen::Index i = 0; i < n; ++i) m(i, i) = S(1.0) + theta[i] * theta[i] / 10.0;
    return m;
  }
};
// A diagonal G⁻¹(θ) = 1 + θ²/10, over any scalar.
struct DiagonalInverse {
  template <class T>
  auto operator()(const T& theta) const {
    using S = typename T::Scalar;
    Eigen::Matrix<S, -1, 1> g(theta.size());
    for (Eigen::Index i = 0; i < theta.size(); ++i) g[i] = S(1.0) + theta[i] * theta[i] / 10.0;
    return g;
  }
};

template <class Metric>
void riemannian_samplers(std::vector<Row>& rows, const std::string& metric_name, const Metric& metric, const VectorXd& mu,
                         const VectorXd& x0) {
  const Quadratic quadratic{mu};
  const auto h = schedule::StepSize::constant(0.01);
  const std::string on = "euclidean(" + std::to_string(x0.size()) + ")";
  rows.push_back({"sgrld, metric " + metric_name, on, "-", measure(sgrld::Sampler<Metric>{metric, h, 0.1}, quadratic, x0)});
  for (const auto variant : {sgrhmc::Variant::generalized, sgrhmc::Variant::naive})
    for (const auto scheme : {recipe::Scheme::euler, recipe::Scheme::semi_implicit}) {
      const std::string name = variant == sgrhmc::Variant::naive ? "naive sgrhmc" : "sgrhmc";
      rows.push_back({name + ", metric " + metric_name, on, scheme == recipe::Scheme::euler ? "euler" : "semi_implicit",
                      measure(sgrhmc::Sampler<Metric>{metric, h, variant, 0.1, scheme}, quadratic, x0)});
    }
}

}  // namespace

TEST_CASE("Riemannian samplers: SGRLD, gSGRHMC and naive SGRHMC with every metric") {
  namespace metric = recipe::metric;
  const Eigen::Index d = 4;
  const VectorXd mu = VectorXd::Constant(d, 3.0), x0 = VectorXd::LinSpaced(d, 2.5, 3.5);  // θ > 0 for fisher_diag
  MatrixXd dense = MatrixXd::Constant(d, d, 0.3);
  dense.diagonal().setConstant(1.5);
  std::vector<Row> rows;
  riemannian_samplers(rows, "level_set", metric::LevelSet{}, mu, x0);
  riemannian_samplers(rows, "fisher_diag", metric::FisherDiagonal{}, mu, x0);
  riemannian_samplers(rows, "diagonal", metric::ConstantDiagonal{VectorXd::LinSpaced(d, 0.5, 2.0)}, mu, x0);
  riemannian_samplers(rows, "dense", metric::ConstantDense{dense}, mu, x0);
  riemannian_samplers(rows, "user diagonal", metric::Diagonal<DiagonalInverse>{{}}, mu, x0);
  riemannian_samplers(rows, "user dense", metric::Dense<DenseInverse>{{}}, mu, x0);
  riemannian_samplers(rows, "run::AnyMetric(dense)", run::AnyMetric{metric::ConstantDense{dense}}, mu, x0);
  check(rows);
}

namespace {

MatrixXd momentum_q(Eigen::Index d, Eigen::Index n) {
  MatrixXd q = MatrixXd::Zero(n, n);
  q.block(0, d, d, d) = -MatrixXd::Identity(d, d);
  q.block(d, 0, d, d) = MatrixXd::Identity(d, d);
  return q;
}

// D(z) = diag(0, C·I) over z = (θ, r) and Q = [[0, −I], [I, 0]], written over any scalar: SGHMC's row of
// the recipe, as a user gives it (recipe::Fields).
struct SghmcD {
  template <class Z>
  auto operator()(const Z& z) const {
    using S = typename Z::Scalar;
    const Eigen::Index d = z.size() / 2;
    Eigen::Matrix<S, -1, -1> m = Eigen::Matrix<S, -1, -1>::Zero(z.size(), z.size());
    for (Eigen::Index i = 0; i < d; ++i) m(d + i, d + i) = S(1.0);
    return m;
  }
};
struct SghmcQ {
  template <class Z>
  auto operator()(const Z& z) const {
    using S = typename Z::Scalar;
    const Eigen::Index d = z.size() / 2;
    Eigen::Matrix<S, -1, -1> m = Eigen::Matrix<S, -1, -1>::Zero(z.size(), z.size());
    for (Eigen::Index i = 0; i < d; ++i) m(i, d + i) = S(-1.0), m(d + i, i) = S(1.0);
    return m;
  }
};
struct ZeroGamma {
  VectorXd operator()(const VectorXd& z) const { return VectorXd::Zero(z.size()); }
};

}  // namespace

TEST_CASE("the complete recipe: constant and user D, Q for every augmentation and scheme") {
  const Eigen::Index d = 3;
  const Quadratic quadratic{VectorXd::LinSpaced(d, -1.0, 1.0)};
  const VectorXd x0 = VectorXd::LinSpaced(d, 0.5, -0.5);
  const auto h = schedule::StepSize::constant(0.01);
  std::vector<Row> rows;
  const auto add = [&](const std::string& name, const auto& sampler, const char* scheme) {
    rows.push_back({name, "euclidean(3)", scheme, measure(sampler, quadratic, x0)});
  };
  MatrixXd dense_d = MatrixXd::Constant(d, d, 0.2);
  dense_d.diagonal().setConstant(1.0);
  using Constant = recipe::Sampler<recipe::Constant>;
  add("recipe, D = I", Constant{{MatrixXd::Identity(d, d), MatrixXd::Zero(d, d)}, recipe::Augment::none, h}, "euler");
  add("recipe, dense D", Constant{{dense_d, MatrixXd::Zero(d, d)}, recipe::Augment::none, h}, "euler");
  // Rank one: every coordinate active, the block only semidefinite, so the noise takes the eigen path.
  add("recipe, dense semidefinite D", Constant{{MatrixXd::Ones(d, d), MatrixXd::Zero(d, d)}, recipe::Augment::none, h}, "euler");
  for (const auto scheme : {recipe::Scheme::euler, recipe::Scheme::semi_implicit}) {
    const char* s = scheme == recipe::Scheme::euler ? "euler" : "semi_implicit";
    const Eigen::Index n = 2 * d, m = 2 * d + 1;
    MatrixXd dm = MatrixXd::Zero(n, n), noise = MatrixXd::Zero(n, n);
    dm.bottomRightCorner(d, d).diagonal().setConstant(1.0);
    noise.bottomRightCorner(d, d).diagonal().setConstant(0.1);
    add("recipe, momentum (SGHMC's D, Q, B̂)",
        Constant{{dm, momentum_q(d, n)}, recipe::Augment::momentum, h, noise, recipe::NoisePolicy::error, scheme}, s);
    MatrixXd dt = MatrixXd::Zero(m, m);
    dt.block(d, d, d, d).diagonal().setConstant(1.0);
    add("recipe, thermostat", Constant{{dt, momentum_q(d, m)}, recipe::Augment::thermostat, h, {}, recipe::NoisePolicy::error, scheme}, s);
  }
  add("recipe, user D, Q (autodiff Γ)",
      recipe::Sampler<recipe::Fields<SghmcD, SghmcQ>>{{SghmcD{}, SghmcQ{}}, recipe::Augment::momentum, h}, "euler");
  add("recipe, user D, Q (finite-difference Γ)",
      recipe::Sampler<recipe::Fields<SghmcD, SghmcQ, recipe::FiniteDifference>>{{SghmcD{}, SghmcQ{}, {}}, recipe::Augment::momentum, h},
      "euler");
  add("recipe, user D, Q, Γ",
      recipe::Sampler<recipe::Fields<SghmcD, SghmcQ, recipe::UserGamma<ZeroGamma>>>{{SghmcD{}, SghmcQ{}, {ZeroGamma{}}},
                                                                                    recipe::Augment::momentum, h},
      "euler");
  check(rows);
}

namespace {

// Fixed multinomial statistics n_kw (K×W) and n_k·: the row-form samplers' potential side, without a
// model's own work (models/text/lda.hpp draws a minibatch and runs Gibbs sweeps).
struct FixedCounts {
  MatrixXd nkw;
  template <class R>
  void counts(const Eigen::Ref<const MatrixXd>& /*pi*/, R& /*rng*/, expanded_mean::Counts& c) const {
    c.nkw = nkw;
    c.nk = nkw.rowwise().sum();
  }
  double prior_shape() const { return 0.5; }
};

}  // namespace

TEST_CASE("simplex samplers: SCIR, expanded-mean SGRLD and the K×W rows (online LDA's samplers)") {
  const Eigen::Index k = 5;
  const VectorXd pi0 = VectorXd::Constant(k, 1.0 / static_cast<double>(k));
  const auto h = schedule::StepSize::constant(0.01);
  std::vector<Row> rows;
  rows.push_back({"scir", "simplex(5)", "-", measure(scir::Sampler{k, h}, models::Dirichlet{VectorXd::LinSpaced(k, 0.5, 3.0)}, pi0)});
  rows.push_back({"sgrld (expanded mean)", "simplex(5)", "-",
                  measure(sgrld::ExpandedMean{h}, Quadratic{VectorXd::LinSpaced(k, 0.0, 0.4)}, pi0)});
  const Eigen::Index topics = 3, words = 8;
  const VectorXd rows0 = VectorXd::Constant(topics * words, 1.0 / static_cast<double>(words));
  const FixedCounts counts{((MatrixXd::Random(topics, words).array() + 1.0) * 20.0).matrix()};
  using expanded_mean::Metric;
  for (const auto metric : {Metric::fisher, Metric::identity}) {
    const std::string m = metric == Metric::fisher ? "fisher" : "identity";
    rows.push_back({"expanded_mean::Langevin, metric " + m, "3 × simplex(8)", "-",
                    measure(expanded_mean::Langevin{topics, metric, h}, counts, rows0)});
    for (const auto variant : {sgrhmc::Variant::generalized, sgrhmc::Variant::naive})
      for (const auto scheme : {recipe::Scheme::semi_implicit, recipe::Scheme::euler}) {
        const std::string v = variant == sgrhmc::Variant::naive ? " (naive)" : "";
        rows.push_back({"expanded_mean::Hamiltonian, metric " + m + v, "3 × simplex(8)",
                        scheme == recipe::Scheme::euler ? "euler" : "semi_implicit",
                        measure(expanded_mean::Hamiltonian{topics, metric, h, 1.0, variant, true, scheme}, counts, rows0)});
      }
  }
  check(rows);
}
