#pragma once
// The random engine concept. Samplers and potentials never own a generator: the driver passes one in,
// so a chain's whole randomness is one serializable stream (STYLE.md, "the RNG is always a parameter").
#include <concepts>
#include <cstdint>
#include <Eigen/Core>

namespace sgmcmc {

/// A source of reproducible random numbers.
/// - `normal()`: one standard normal draw; `normals(out)`: fill `out` with i.i.d. standard normals;
/// - `uniform()`: a double in (0, 1); `below(n)`: an integer uniform on {0, ..., n-1}.
/// @code
///   random::Stream rng(/*seed=*/7, /*stream=*/0);
///   Eigen::VectorXd z(3); rng.normals(z);
/// @endcode
template <class R>
concept RandomEngine = requires(R& r, Eigen::Ref<Eigen::VectorXd> out, std::uint64_t n) {
  { r.normal() } -> std::same_as<double>;
  r.normals(out);
  { r.uniform() } -> std::same_as<double>;
  { r.below(n) } -> std::same_as<std::uint64_t>;
};

}  // namespace sgmcmc
