#pragma once
// The random engine concepts. Samplers and potentials never own a generator: the driver passes one in,
// so a chain's whole randomness is one serializable stream (the RNG is always a parameter; a
// potential that seeded its own generator would inject the same noise every step).
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

/// An engine that can drive a minibatch potential (models/minibatch.hpp): batch b's examples are a
/// pure function of (`seed()`, `stream_id()`, b), b = `next_batch()` the engine's batch counter, so a
/// resumed chain draws the same batches and every rank of a data-parallel chain agrees on them.
/// @code
///   const std::uint64_t b = rng.next_batch();
///   models::batch_indices(b, n, N, sampling, rng.seed(), rng.stream_id(), indices);
/// @endcode
template <class R>
concept MinibatchEngine = RandomEngine<R> && requires(R& r, const R& cr) {
  { r.next_batch() } -> std::same_as<std::uint64_t>;
  { cr.seed() } -> std::convertible_to<std::uint64_t>;
  { cr.stream_id() } -> std::convertible_to<std::uint32_t>;
};

/// An engine whose normal fills may be split: `normals(ptr, n)` fills n values, and two consecutive
/// calls of n₁ and n₂ give exactly the values of one call of n₁ + n₂. A kick can then draw its noise
/// a cache-sized chunk at a time and use each chunk while it is hot, with the same bits as a whole
/// fill (modules/splitting/kick.hpp; random::Stream guarantees it, tests/random/test_random.cpp).
template <class R>
concept SplittableNormals = RandomEngine<R> && requires(R& r, double* out, Eigen::Index n) {
  r.normals(out, n);
};

}  // namespace sgmcmc
