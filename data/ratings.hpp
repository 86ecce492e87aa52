#pragma once
// Ratings data for matrix factorisation: a CSV `userId,movieId,rating,timestamp` (MovieLens; a header
// row allowed; the timestamp column optional). User and item ids are mapped to dense indices 0..U-1,
// 0..I-1 in order of first appearance. Splits: a seeded random one, and a time-ordered one (the first
// part of the ratings by time to train on, the rest to test: the online setting).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/data/text.hpp>
#include <sgmcmc/modules/random/permutation.hpp>

namespace sgmcmc::data {

inline constexpr const char* movielens_hint = "install it with scripts/data.sh movielens";

struct Ratings {
  std::vector<std::uint32_t> user, item;
  std::vector<double> rating;
  std::vector<std::int64_t> time;  ///< empty when the file has no timestamps
  std::uint32_t n_users = 0, n_items = 0;
  std::string source;

  std::size_t size() const { return rating.size(); }
  double mean() const { return std::accumulate(rating.begin(), rating.end(), 0.0) / static_cast<double>(size()); }

  /// The ratings at `idx`, in that order (the same id maps: indices stay comparable across parts).
  Ratings subset(const std::vector<std::size_t>& idx) const {
    Ratings r;
    r.n_users = n_users, r.n_items = n_items, r.source = source;
    for (std::size_t k : idx) {
      r.user.push_back(user[k]), r.item.push_back(item[k]), r.rating.push_back(rating[k]);
      if (!time.empty()) r.time.push_back(time[k]);
    }
    return r;
  }
};

inline Ratings parse_ratings(std::string_view text, const std::string& name) {
  const Table t = parse_csv(text, name);
  if (t.cols != 3 && t.cols != 4)
    throw Error(fmt::format("{}: expected columns userId,movieId,rating[,timestamp], got {} columns", name, t.cols));
  Ratings r;
  r.source = name;
  std::unordered_map<std::int64_t, std::uint32_t> users, items;
  const std::size_t line0 = t.header.empty() ? 1 : 2;
  // Fields are read as doubles: an id beyond ±2^53 could not be told from its neighbours (distinct ids
  // would merge), and converting inf, NaN or a number beyond the int64 range is undefined behaviour.
  // Below 2^53 every integer is a double of its own, and a decimal id of 2^53 or more reads as one of
  // 2^53 or more (rounding is monotone), so the strict bound refuses every id that could have merged.
  constexpr double max_id = 9007199254740992.0;  // 2^53
  const auto whole = [](double x, double bound) { return std::isfinite(x) && x == std::floor(x) && std::abs(x) < bound; };
  for (std::size_t i = 0; i < t.rows; ++i) {
    const double u = t(i, 0), m = t(i, 1), v = t(i, 2);
    // The values are not echoed (a data path pointed at the wrong file must not print its contents).
    if (!whole(u, max_id) || !whole(m, max_id))
      throw Error(fmt::format("{}:{}: column {}: expected an integer {} id of magnitude below 2^53", name, line0 + i,
                              whole(u, max_id) ? 2 : 1, whole(u, max_id) ? "item" : "user"));
    if (!std::isfinite(v)) throw Error(fmt::format("{}:{}: column 3: expected a finite rating", name, line0 + i));
    if (t.cols == 4 && !whole(t(i, 3), 9.2e18))
      throw Error(fmt::format("{}:{}: column 4: expected an integer timestamp of magnitude below 9.2e18", name, line0 + i));
    if (users.size() == UINT32_MAX || items.size() == UINT32_MAX)
      throw Error(fmt::format("{}:{}: more than 2^32 − 1 distinct users or items", name, line0 + i));
    const auto ui = users.try_emplace(static_cast<std::int64_t>(u), static_cast<std::uint32_t>(users.size())).first->second;
    const auto mi = items.try_emplace(static_cast<std::int64_t>(m), static_cast<std::uint32_t>(items.size())).first->second;
    r.user.push_back(ui), r.item.push_back(mi), r.rating.push_back(v);
    if (t.cols == 4) r.time.push_back(static_cast<std::int64_t>(t(i, 3)));
  }
  r.n_users = static_cast<std::uint32_t>(users.size());
  r.n_items = static_cast<std::uint32_t>(items.size());
  return r;
}

inline Ratings load_ratings_csv(const std::filesystem::path& path) {
  return parse_ratings(read_file(path, "ratings CSV (userId,movieId,rating,timestamp)", movielens_hint), shown(path));
}

/// A seeded random split: round(N·test_fraction) ratings (a keyed permutation's first positions) to test.
inline std::pair<Ratings, Ratings> split(const Ratings& r, double test_fraction, std::uint64_t seed) {
  require(test_fraction > 0 && test_fraction < 1, "test_fraction: expected a number in (0, 1), got {}", test_fraction);
  const std::size_t N = r.size();
  const auto n_test = static_cast<std::size_t>(std::llround(test_fraction * static_cast<double>(N)));
  random::Permutation perm(N, seed, 0, 0);
  std::vector<std::size_t> train, test;
  for (std::size_t k = 0; k < N; ++k) (k < n_test ? test : train).push_back(static_cast<std::size_t>(perm(k)));
  std::sort(train.begin(), train.end());  // keep file order inside each part
  std::sort(test.begin(), test.end());
  return {r.subset(train), r.subset(test)};
}

/// The time-ordered split: ratings sorted by time (ties by file order); the last test_fraction to test.
/// The training part stays in time order, so Sampling::time_ordered streams it as it arrived.
inline std::pair<Ratings, Ratings> split_by_time(const Ratings& r, double test_fraction) {
  require(!r.time.empty(), "{}: a time-ordered split needs a timestamp column", r.source);
  require(test_fraction > 0 && test_fraction < 1, "test_fraction: expected a number in (0, 1), got {}", test_fraction);
  std::vector<std::size_t> order(r.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return r.time[a] < r.time[b]; });
  const auto n_test = static_cast<std::size_t>(std::llround(test_fraction * static_cast<double>(r.size())));
  const std::vector<std::size_t> train(order.begin(), order.end() - static_cast<std::ptrdiff_t>(n_test));
  const std::vector<std::size_t> test(order.end() - static_cast<std::ptrdiff_t>(n_test), order.end());
  return {r.subset(train), r.subset(test)};
}

}  // namespace sgmcmc::data
