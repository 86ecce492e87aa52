#pragma once
// The `bnn` target: the Bayesian neural net (models/bnn.hpp; SGHMC paper §4.2): d–hidden–classes,
// sigmoid, softmax, N(0, 1/λ_l) priors starting at λ_l = prior_precision; gibbs_every k > 0 resamples
// λ_1, λ_2 under their Gamma(1, 1) hyperprior after every k-th step (App. H.1: k = 100), else they stay
// fixed (run/targets/gibbs.hpp). On a CSV of examples (the features, then a class label 0 … K−1);
// on euclidean space of d·H + H + H·K + K coordinates, the manifold's `dim` when it gives none. The
// file is read once, here; its errors name /target/data and the file's row.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include <fmt/format.h>

#include <sgmcmc/models/bnn.hpp>
#include <sgmcmc/data/text.hpp>
#include <sgmcmc/run/targets/common.hpp>
#include <sgmcmc/run/targets/estimator.hpp>

namespace sgmcmc::run {

/// The most weights a bnn target may have (2^31: 16 GiB per state vector in double), checked before
/// any is allocated, and the most threads its gradient may use per chain. Fixed numbers, not the
/// machine's: `threads` also sets how the gradient's sum is split, so a run must stay reproducible on a
/// smaller machine (docs/config.md).
inline constexpr double bnn_max_weights = 2147483648.0;
inline constexpr std::uint64_t bnn_max_threads = 256;

template <>
struct PrecisionsJson<models::BnnPrecisions> {
  static json write(const models::BnnPrecisions& p) { return {{"layer1", p.layer1}, {"layer2", p.layer2}}; }
  static void read(models::BnnPrecisions& p, const json& j, const std::string& path) {
    Fields f(j, path);
    p.layer1 = f.number("layer1", Range::positive);
    p.layer2 = f.number("layer2", Range::positive);
    f.finish();
  }
};

static_assert(GibbsModel<models::Bnn> && GibbsModel<models::BnnFloat> && TargetWithState<DataTarget<models::Minibatch<models::Bnn>>> &&
              PotentialWithValue<DataTarget<models::Minibatch<models::Bnn>>> &&
              PotentialWithNoiseEstimate<DataTarget<models::Minibatch<models::Bnn>>>);

inline TargetEntry bnn_target() {
  return {{"bnn"},
          "the SGHMC paper's Bayesian neural net on a CSV (features, then a class label): data, hidden 50, classes, "
          "prior_precision 1, batch_size min(100, N), threads 1, gibbs_every 0, precision float64 (or float32)",
          [](Fields& f, const ManifoldChoice& manifold) {
            const std::string name = "bnn";
            // The file first: a missing or malformed file is named before the other fields are checked.
            const std::string path = f.string("data");
            data::Dataset<double> d;
            try {
              d = data::load_class_csv(path);
            } catch (const Error& e) {
              fail(f.at("data"), e.what());
            }
            DataFile file = targets::read_data_file(f, "data", path);
            targets::require_manifold(f, name, manifold.geometry.flat, "euclidean space", "euclidean");
            const auto hidden = f.count("hidden", 50, 1);
            const auto classes = f.count("classes", static_cast<std::uint64_t>(d.classes()), 2);
            if (classes < static_cast<std::uint64_t>(d.classes()))
              fail(f.at("classes"), fmt::format("{} has labels up to {}, so at least {} classes", printable(path, 200), d.classes() - 1, d.classes()));
            // The net's weight count, (d + 1)·hidden + (hidden + 1)·classes, in floating point first: in
            // Eigen::Index a huge `hidden` or `classes` overflowed (undefined behaviour, issue #40).
            const double weights = (static_cast<double>(d.dim()) + 1) * static_cast<double>(hidden) +
                                   (static_cast<double>(hidden) + 1) * static_cast<double>(classes);
            if (weights > bnn_max_weights)
              fail(f.at(hidden > classes ? "hidden" : "classes"),
                   fmt::format("a {}–{}–{} net would have {:.4g} weights, above the {} a bnn target may have", d.dim(), hidden, classes,
                               weights, bnn_max_weights));
            targets::check_size(f, hidden > classes ? "hidden" : "classes", manifold, weights,
                                fmt::format("a {}–{}–{} net", d.dim(), hidden, classes));
            const double lambda = f.number("prior_precision", 1.0, Range::positive);
            const auto batch = f.count("batch_size", std::min<std::uint64_t>(100, d.size()), 1);
            if (batch > d.size())
              fail(f.at("batch_size"), fmt::format("expected at most the {} examples of {}, got {}", d.size(), printable(path, 200), batch));
            const bool replace = f.boolean("with_replacement", false);
            const auto threads = f.count("threads", 1, 1);
            if (threads > bnn_max_threads)  // each is an OS thread of every chain; 100000 filled the machine's task table
              fail(f.at("threads"), fmt::format("expected at most {} threads, got {}", bnn_max_threads, threads));
            const auto gibbs_every = targets::read_gibbs_every(f, name, true);
            const bool single = targets::read_precision(f) == targets::Precision::float32;
            json out = {{"name", name}, {"data", path}, {"hidden", hidden}, {"classes", classes}, {"prior_precision", lambda},
                        {"batch_size", batch}, {"with_replacement", replace}, {"threads", threads}, {"gibbs_every", gibbs_every},
                        {"precision", single ? "float32" : "float64"}};
            const auto make = [&]<class Scalar>(Scalar) {
              models::BasicBnn<Scalar> m;
              m.data = std::make_shared<const data::Dataset<float>>(d.cast<float>());
              m.hidden = static_cast<Eigen::Index>(hidden), m.classes = static_cast<Eigen::Index>(classes);
              m.precisions = std::make_shared<models::BnnPrecisions>(models::BnnPrecisions{lambda, lambda});
              m.chunks = m.threads = static_cast<int>(threads);
              const Eigen::Index own = m.dim();
              // The blocks as models/bnn.hpp lays θ out: vec(W1) (d × H), b1, vec(W2) (H × K), b2.
              const auto H = m.hidden, K = m.classes;
              const output::Parameters parameters =
                  output::Parameters{}.add("W1", {d.dim(), H}).add("b1", {H}).add("W2", {H, K}).add("b2", {K});
              if (const auto dim = manifold.dim(); dim && own != *dim)
                fail(f.at("data"), fmt::format("a {}–{}–{} net on {} has {} weights but the manifold has {} coordinates", d.dim(),
                                               hidden, classes, printable(path, 200), own, *dim));
              TargetChoice c = targets::with_file(targets::make_estimated_choice(f, name, models::minibatch(std::move(m), batch,
                                                                                                             targets::sampling(replace)),
                                                                                 std::move(out), {own, true, gibbs_every, {}, parameters}),
                                                  std::move(file));
              c.threads_per_chain = static_cast<unsigned>(threads);
              return c;
            };
            return single ? make(float{}) : make(double{});
          }};
}

}  // namespace sgmcmc::run
