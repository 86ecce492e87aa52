#pragma once
// The `bpmf` target: BPMF with biases (models/bpmf.hpp; SGHMC paper §4.3): latent D, observation
// precision τ, μ the data's mean, the four block precisions starting at prior_precision; gibbs_every
// k > 0 resamples them under their Gamma(1, 1) hyperpriors after every k-th step (App. H.2), else they
// stay fixed (run/targets/gibbs.hpp). On a ratings CSV (userId,movieId,rating[,timestamp]); on
// euclidean space of (D + 1)·(users + items) coordinates, the manifold's `dim` when it gives none. The
// file is read once, here; its errors name /target/data.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include <fmt/format.h>

#include <sgmcmc/models/bpmf.hpp>
#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/data/ratings.hpp>
#include <sgmcmc/run/targets/common.hpp>
#include <sgmcmc/run/targets/estimator.hpp>

namespace sgmcmc::run {

template <>
struct PrecisionsJson<models::BpmfPrecisions> {
  static json write(const models::BpmfPrecisions& p) {
    return {{"user", p.user}, {"item", p.item}, {"user_bias", p.user_bias}, {"item_bias", p.item_bias}};
  }
  static void read(models::BpmfPrecisions& p, const json& j, const std::string& path) {
    Fields f(j, path);
    p.user = f.number("user", Range::positive);
    p.item = f.number("item", Range::positive);
    p.user_bias = f.number("user_bias", Range::positive);
    p.item_bias = f.number("item_bias", Range::positive);
    f.finish();
  }
};

static_assert(GibbsModel<models::Bpmf> && TargetWithState<DataTarget<models::Minibatch<models::Bpmf>>> &&
              PotentialWithValue<DataTarget<models::Minibatch<models::Bpmf>>> &&
              PotentialWithNoiseEstimate<DataTarget<models::Minibatch<models::Bpmf>>>);

inline TargetEntry bpmf_target() {
  return {{"bpmf"},
          "BPMF with biases on a ratings CSV (userId,movieId,rating): data, latent 20, tau 3, prior_precision 1, "
          "mean (the data's), batch_size min(1000, N), gibbs_every 0",
          [](Fields& f, const ManifoldChoice& manifold) {
            const std::string name = "bpmf";
            // The file first: a missing or malformed file is named before the other fields are checked,
            // a missing one as a ratings CSV (the loader's own message names MovieLens's columns and
            // install script, which fit the experiments' data set rather than a config's own file).
            const std::string path = f.string("data");
            data::Ratings r;
            try {
              data::require_file(path, "ratings CSV");
              r = data::load_ratings_csv(path);
            } catch (const Error& e) {
              fail(f.at("data"), e.what());
            }
            DataFile file = targets::read_data_file(f, "data", path);
            targets::require_manifold(f, name, manifold.geometry.flat, "euclidean space", "euclidean");
            const auto latent = f.count("latent", 20, 1);
            // (users + items)·(latent + 1) coordinates: latent factors and a bias each
            targets::check_size(f, "latent", manifold,
                                (static_cast<double>(r.n_users) + static_cast<double>(r.n_items)) * (static_cast<double>(latent) + 1),
                                fmt::format("bpmf on {} users and {} items at latent {}", r.n_users, r.n_items, latent));
            const double tau = f.number("tau", 3.0, Range::positive);
            const double lambda = f.number("prior_precision", 1.0, Range::positive);
            const auto batch = f.count("batch_size", std::min<std::uint64_t>(1000, r.size()), 1);
            if (batch > r.size())
              fail(f.at("batch_size"), fmt::format("expected at most the {} ratings of {}, got {}", r.size(), printable(path, 200), batch));
            const bool replace = f.boolean("with_replacement", false);
            const double mu = f.number("mean", r.mean(), Range::any);  // μ: default the data's mean rating
            const auto gibbs_every = targets::read_gibbs_every(f, name, true);
            models::Bpmf m{std::make_shared<const data::Ratings>(std::move(r)), static_cast<Eigen::Index>(latent), tau, mu,
                           std::make_shared<models::BpmfPrecisions>(models::BpmfPrecisions{lambda, lambda, lambda, lambda})};
            const Eigen::Index own = m.dim();
            if (const auto dim = manifold.dim(); dim && own != *dim)
              fail(f.at("data"), fmt::format("{} users and {} items at latent {} give {} coordinates but the manifold has {}", m.users(),
                                             m.items(), latent, own, *dim));
            // The blocks as models/bpmf.hpp lays θ out, the biases named as their precisions are in the record's state.
            const auto D = static_cast<Eigen::Index>(latent);
            output::Parameters parameters = output::Parameters{}.add("U", {D, m.users()}).add("V", {D, m.items()})
                                                .add("user_bias", {m.users()}).add("item_bias", {m.items()});
            json out = {{"name", name}, {"data", path}, {"latent", latent}, {"tau", tau}, {"prior_precision", lambda},
                        {"mean", mu}, {"batch_size", batch}, {"with_replacement", replace}, {"gibbs_every", gibbs_every}};
            return targets::with_file(targets::make_estimated_choice(f, name, models::minibatch(std::move(m), batch,
                                                                                                 targets::sampling(replace)),
                                                                     std::move(out), {own, true, gibbs_every, {}, std::move(parameters)}),
                                      std::move(file));
          }};
}

}  // namespace sgmcmc::run
