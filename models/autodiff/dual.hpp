#pragma once
// Forward-mode automatic differentiation by dual numbers (Griewank & Walther 2008, "Evaluating
// Derivatives", §3.1): x = v + Σ_j d_j ε_j with ε_j ε_k = 0, so f(x) = f(v) + Σ_j f′(v) d_j ε_j and the
// ε-part of any program built from the operations below carries its gradient along the N seeded
// directions. A value type of N + 1 doubles with no allocation; N is fixed at compile time, so the
// tangent's loops unroll and vectorise.
//
// What the user's generic code may use on a Dual: + − × ÷ with Duals and doubles, comparisons (on the
// value: a branch is taken as at the value, and its derivative is that branch's), and the functions
// below, found by argument-dependent lookup; write `using std::exp;` (etc.) first so that the same code
// compiles with double. `softplus`, `log_sum_exp`, `log_sigmoid` and `value_of` are generic helpers that
// also take a double, each one with a hand-written derivative (one transcendental instead of two).
//
// Why our own and not Eigen's AutoDiffScalar (docs/benchmarks.md, "Automatic differentiation", measures
// both on the same generic code): AutoDiffScalar's dynamic-size form allocates in every operation and was
// 1.4× slower than chunks of 16; its fixed-size form needs the dimension at compile time and was no
// faster; a Dual of fixed width in chunks serves any dimension and allocates nothing. The tangent is a fixed-size Eigen
// array so that its loops are explicit vector instructions: with a std::array tangent (plain loops) the
// chunked logistic gradient (d = 50, batch 100) took 83 µs at width 8 and 133 µs at width 16, with the
// Eigen array 57 and 47 µs (bench/bench_autodiff.cpp, one run each, CPU time, the machine at load 5-6).
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>

#include <Eigen/Core>

#include <sgmcmc/models/glm/special.hpp>  // digamma, for lgamma's derivative

namespace sgmcmc::models::autodiff {

template <int N>
struct Dual {
  static_assert(N >= 1, "a dual number carries at least one direction");
  double v = 0;                   ///< the value
  Eigen::Array<double, N, 1> d = Eigen::Array<double, N, 1>::Zero();  ///< the derivatives along the N seeded directions

  Dual() = default;
  Dual(double value) : v(value) {}  // NOLINT: a constant is a dual with zero derivative
  /// The variable `value` seeded along direction j: d = e_j.
  static Dual variable(double value, int j) {
    Dual x(value);
    x.d[j] = 1;
    return x;
  }

  /// f(v) + f′(v)·d: the chain rule of a unary function with value fv and derivative dfv.
  static Dual chain(double fv, double dfv, const Dual& x) {
    Dual r;
    r.v = fv;
    r.d = dfv * x.d;
    return r;
  }

  Dual& operator+=(const Dual& o) {
    v += o.v;
    d += o.d;
    return *this;
  }
  Dual& operator-=(const Dual& o) {
    v -= o.v;
    d -= o.d;
    return *this;
  }
  Dual& operator*=(const Dual& o) {  // (a + a′ε)(b + b′ε) = ab + (a′b + ab′)ε
    d = d * o.v + v * o.d;
    v *= o.v;
    return *this;
  }
  Dual& operator/=(const Dual& o) {  // (a/b)′ = (a′ − (a/b) b′)/b
    const double inv = 1 / o.v, q = v * inv;
    d = (d - q * o.d) * inv;
    v = q;
    return *this;
  }
  Dual& operator+=(double c) { return v += c, *this; }
  Dual& operator-=(double c) { return v -= c, *this; }
  Dual& operator*=(double c) {
    v *= c;
    d *= c;
    return *this;
  }
  Dual& operator/=(double c) { return *this *= 1 / c; }
};

template <int N> Dual<N> operator+(Dual<N> a, const Dual<N>& b) { return a += b; }
template <int N> Dual<N> operator-(Dual<N> a, const Dual<N>& b) { return a -= b; }
template <int N> Dual<N> operator*(Dual<N> a, const Dual<N>& b) { return a *= b; }
template <int N> Dual<N> operator/(Dual<N> a, const Dual<N>& b) { return a /= b; }
template <int N> Dual<N> operator+(Dual<N> a, double c) { return a += c; }
template <int N> Dual<N> operator-(Dual<N> a, double c) { return a -= c; }
template <int N> Dual<N> operator*(Dual<N> a, double c) { return a *= c; }
template <int N> Dual<N> operator/(Dual<N> a, double c) { return a /= c; }
template <int N> Dual<N> operator+(double c, Dual<N> a) { return a += c; }
template <int N> Dual<N> operator*(double c, Dual<N> a) { return a *= c; }
template <int N> Dual<N> operator-(const Dual<N>& a) { return a * -1.0; }
template <int N> Dual<N> operator+(const Dual<N>& a) { return a; }
template <int N> Dual<N> operator-(double c, const Dual<N>& a) { return -a + c; }
template <int N> Dual<N> operator/(double c, const Dual<N>& a) { return Dual<N>::chain(c / a.v, -c / (a.v * a.v), a); }

// Comparisons look at the value only.
template <int N> bool operator<(const Dual<N>& a, const Dual<N>& b) { return a.v < b.v; }
template <int N> bool operator>(const Dual<N>& a, const Dual<N>& b) { return a.v > b.v; }
template <int N> bool operator<=(const Dual<N>& a, const Dual<N>& b) { return a.v <= b.v; }
template <int N> bool operator>=(const Dual<N>& a, const Dual<N>& b) { return a.v >= b.v; }
template <int N> bool operator==(const Dual<N>& a, const Dual<N>& b) { return a.v == b.v; }
template <int N> bool operator<(const Dual<N>& a, double b) { return a.v < b; }
template <int N> bool operator>(const Dual<N>& a, double b) { return a.v > b; }
template <int N> bool operator<=(const Dual<N>& a, double b) { return a.v <= b; }
template <int N> bool operator>=(const Dual<N>& a, double b) { return a.v >= b; }
template <int N> bool operator<(double a, const Dual<N>& b) { return a < b.v; }
template <int N> bool operator>(double a, const Dual<N>& b) { return a > b.v; }

// The elementary functions, each f(v) and f′(v) (the derivative reuses the value where it can).
template <int N> Dual<N> exp(const Dual<N>& x) { const double e = std::exp(x.v); return Dual<N>::chain(e, e, x); }
template <int N> Dual<N> expm1(const Dual<N>& x) { const double e = std::expm1(x.v); return Dual<N>::chain(e, e + 1, x); }
template <int N> Dual<N> log(const Dual<N>& x) { return Dual<N>::chain(std::log(x.v), 1 / x.v, x); }
template <int N> Dual<N> log1p(const Dual<N>& x) { return Dual<N>::chain(std::log1p(x.v), 1 / (1 + x.v), x); }
template <int N> Dual<N> sqrt(const Dual<N>& x) { const double s = std::sqrt(x.v); return Dual<N>::chain(s, 0.5 / s, x); }
template <int N> Dual<N> pow(const Dual<N>& x, double p) { return Dual<N>::chain(std::pow(x.v, p), p * std::pow(x.v, p - 1), x); }
template <int N> Dual<N> pow(const Dual<N>& x, const Dual<N>& p) { return exp(p * log(x)); }
template <int N> Dual<N> sin(const Dual<N>& x) { return Dual<N>::chain(std::sin(x.v), std::cos(x.v), x); }
template <int N> Dual<N> cos(const Dual<N>& x) { return Dual<N>::chain(std::cos(x.v), -std::sin(x.v), x); }
template <int N> Dual<N> tanh(const Dual<N>& x) { const double t = std::tanh(x.v); return Dual<N>::chain(t, 1 - t * t, x); }
template <int N> Dual<N> abs(const Dual<N>& x) { return x.v < 0 ? -x : x; }  // derivative +1 at 0, as a branch on x ≥ 0
template <int N> Dual<N> fabs(const Dual<N>& x) { return abs(x); }
/// log Γ(x), x > 0, with (log Γ)′ = ψ (models/glm/special.hpp).
template <int N> Dual<N> lgamma(const Dual<N>& x) { return Dual<N>::chain(std::lgamma(x.v), glm::digamma(x.v), x); }
template <int N> Dual<N> max(const Dual<N>& a, const Dual<N>& b) { return a.v < b.v ? b : a; }
template <int N> Dual<N> min(const Dual<N>& a, const Dual<N>& b) { return b.v < a.v ? b : a; }
template <int N> bool isfinite(const Dual<N>& x) {
  bool ok = std::isfinite(x.v);
  for (int j = 0; j < N; ++j) ok = ok && std::isfinite(x.d[j]);
  return ok;
}

/// The value of a double or a Dual (for a branch or a constant computed from a parameter).
inline double value_of(double x) { return x; }
template <int N> double value_of(const Dual<N>& x) { return x.v; }

/// log(1 + eˣ) without overflow; derivative σ(x) from the same exponential.
inline double softplus(double x) { return glm::softplus(x); }
template <int N> Dual<N> softplus(const Dual<N>& x) {
  const double e = std::exp(-std::abs(x.v));  // ∈ (0, 1]
  const double value = std::max(x.v, 0.0) + std::log1p(e);
  const double sigma = x.v >= 0 ? 1 / (1 + e) : e / (1 + e);
  return Dual<N>::chain(value, sigma, x);
}
/// log σ(x) = −softplus(−x), the log-probability of a logistic outcome.
template <class T> T log_sigmoid(const T& x) { return -softplus(-x); }
/// log(eᵃ + eᵇ) without overflow.
inline double log_sum_exp(double a, double b) { return glm::log_add_exp(a, b); }
template <int N> Dual<N> log_sum_exp(const Dual<N>& a, const Dual<N>& b) {
  // = m + log1p(e^{−|a−b|}); ∂/∂a = σ(a − b), ∂/∂b = σ(b − a): one exponential for value and weights.
  if (a.v == -std::numeric_limits<double>::infinity() && b.v == a.v) return a;
  const double e = std::exp(-std::abs(a.v - b.v)), w = 1 / (1 + e);  // weight of the larger term
  const Dual<N>& hi = a.v >= b.v ? a : b;
  const Dual<N>& lo = a.v >= b.v ? b : a;
  Dual<N> r(hi.v + std::log1p(e));
  r.d = w * hi.d + (1 - w) * lo.d;
  return r;
}

}  // namespace sgmcmc::models::autodiff

// Eigen's numeric traits, so that Eigen matrices of Duals (a θ seeded for forward mode) and products
// mixing them with double data work (Eigen's "Using custom scalar types" page).
template <int N>
struct Eigen::NumTraits<sgmcmc::models::autodiff::Dual<N>> : Eigen::NumTraits<double> {
  using Real = sgmcmc::models::autodiff::Dual<N>;
  using NonInteger = Real;
  using Nested = Real;
  using Literal = Real;
  enum { IsComplex = 0, IsInteger = 0, IsSigned = 1, RequireInitialization = 1, ReadCost = N + 1, AddCost = N + 1, MulCost = 2 * N + 1 };
};
template <int N, typename Op>
struct Eigen::ScalarBinaryOpTraits<sgmcmc::models::autodiff::Dual<N>, double, Op> {
  using ReturnType = sgmcmc::models::autodiff::Dual<N>;
};
template <int N, typename Op>
struct Eigen::ScalarBinaryOpTraits<double, sgmcmc::models::autodiff::Dual<N>, Op> {
  using ReturnType = sgmcmc::models::autodiff::Dual<N>;
};
