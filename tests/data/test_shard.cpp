// A data set split into shards (docs/distributed.md), without MPI: what the ranks of a chain group
// add up must be exactly the whole. models::Shard parts, summed, against the one-process estimator
// for each gradient estimator (minibatch, control variate, SVRG through its refreshes, SAGA through its
// table's updates) over many steps; read_file_part's parts of a CSV against the whole file; generated
// rows against the generated set. Catches: a row in no shard or in two (a part boundary off by one,
// a line split at a cut), the prior added by every shard, a control variate's centre gradient or
// SAGA's table sum taken over one shard only, generated rows that depend on the split.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <sgmcmc/models/control_variate.hpp>
#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/data/text.hpp>
#include <sgmcmc/models/logistic.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/models/saga.hpp>
#include <sgmcmc/models/shard.hpp>
#include <sgmcmc/models/svrg.hpp>
#include <sgmcmc/modules/random/stream.hpp>

using namespace sgmcmc;
using Eigen::VectorXd;

namespace {

using Logistic = models::LogisticRegression;

// A shard offers the batched and generalised-linear paths exactly when the model under it does: SAGA
// keeps one number per example on a sharded logistic regression, and a model without a batch path is
// summed example by example.
struct PlainModel {
  std::size_t size() const { return 3; }
  void add_prior_gradient(const VectorXd&, VectorXd&) const {}
  void add_example_gradient(const VectorXd&, std::size_t, VectorXd&, double) const {}
};
static_assert(models::DataModel<models::Shard<Logistic>>);
static_assert(models::BatchDataModel<models::Shard<Logistic>> && models::GeneralisedLinearModel<models::Shard<Logistic>>);
static_assert(models::DataModel<models::Shard<PlainModel>>);
static_assert(!models::BatchDataModel<models::Shard<PlainModel>> && !models::GeneralisedLinearModel<models::Shard<PlainModel>>);

data::Dataset<double> rows_of(const data::Dataset<double>& d, std::size_t first, std::size_t count) {
  std::vector<std::size_t> idx;
  for (std::size_t i = first; i < first + count; ++i) idx.push_back(i);
  return d.subset(idx);
}

// The whole set's model, and its split into `parts` shards at the given cut points.
struct Split {
  Logistic whole;
  std::vector<models::Shard<Logistic>> parts;
};
Split split(std::size_t N, Eigen::Index d, const std::vector<std::size_t>& cuts) {
  auto all = std::make_shared<const data::Dataset<double>>(data::synthetic_logistic_rows(0, N, N, d, 11).data);
  Split s{Logistic{all, 1.5}, {}};
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    auto rows = std::make_shared<const data::Dataset<double>>(rows_of(*all, cuts[k], cuts[k + 1] - cuts[k]));
    s.parts.push_back(models::Shard<Logistic>{Logistic{rows, 1.5}, cuts[k], N, k == 0});
  }
  return s;
}

// Steps a point along the summed gradient (a crude descent, so the estimators see moving points), and
// at each step checks Σ_parts estimate == the whole's estimate: every part draws the same batch from
// the same stream. `make` wraps a minibatch base in the estimator under test.
template <class Make>
void check_estimator(Make make, const char* name) {
  const std::size_t N = 97;
  const Split s = split(N, 4, {0, 13, 50, 51, 97});  // a one-row shard too
  auto whole = make(models::minibatch(s.whole, 10, models::Sampling::with_replacement));
  std::vector<decltype(make(models::minibatch(s.parts[0], 10, models::Sampling::with_replacement)))> parts;
  for (const auto& p : s.parts) parts.push_back(make(models::minibatch(p, 10, models::Sampling::with_replacement)));
  random::Stream rng_whole(3, 1);
  std::vector<random::Stream> rng_parts(parts.size(), random::Stream(3, 1));
  VectorXd x = VectorXd::Constant(4, 0.3), g(4), gp(4), sum(4);
  for (std::uint64_t t = 1; t <= 60; ++t) {
    whole.gradient(x, g, rng_whole);
    sum.setZero();
    for (std::size_t k = 0; k < parts.size(); ++k) {
      parts[k].gradient(x, gp, rng_parts[k]);
      sum += gp;
    }
    INFO(name << " step " << t);
    REQUIRE((sum - g).lpNorm<Eigen::Infinity>() <= 1e-12 * (1.0 + g.lpNorm<Eigen::Infinity>()));
    CHECK(rng_parts[0].state() == rng_whole.state());
    x -= 0.002 * g;
    if constexpr (requires { whole.after_step(x, t, rng_whole); }) {
      whole.after_step(x, t, rng_whole);
      for (auto& p : parts) p.after_step(x, t, rng_whole);
    }
  }
  // The exact value and full gradient, summed.
  double value = 0;
  VectorXd full = VectorXd::Zero(4);
  for (const auto& p : parts) {
    value += p.value(x);
    p.exact_gradient(x, gp);
    full += gp;
  }
  whole.exact_gradient(x, g);
  CHECK(value == doctest::Approx(whole.value(x)).epsilon(1e-13));
  CHECK((full - g).lpNorm<Eigen::Infinity>() <= 1e-12 * (1.0 + g.lpNorm<Eigen::Infinity>()));
}

std::filesystem::path scratch_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::path(SGMCMC_BINARY_DIR) / "tests" / "shard_scratch";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << text;
  return dir / name;
}

}  // namespace

TEST_CASE("shards of a logistic regression add up to the whole for every gradient estimator") {
  check_estimator([](auto base) { return base; }, "minibatch");
  check_estimator(
      [](auto base) {
        using M = std::decay_t<decltype(base.model)>;
        // The centre's full gradient is each part's own: summed by the group as the rest.
        return models::ControlVariate<M>::at(std::move(base), VectorXd::Constant(4, -0.2));
      },
      "control_variate");
  check_estimator(
      [](auto base) {
        using M = std::decay_t<decltype(base.model)>;
        return models::Svrg<M>(std::move(base), 7);
      },
      "svrg");
  check_estimator(
      [](auto base) {
        using M = std::decay_t<decltype(base.model)>;
        return models::Saga<M>(std::move(base));
      },
      "saga");
}

TEST_CASE("the prior is added by the first shard only and a row belongs to one shard") {
  const Split s = split(20, 3, {0, 8, 20});
  const VectorXd x = VectorXd::Constant(3, 0.5);
  VectorXd g0 = VectorXd::Zero(3), g1 = VectorXd::Zero(3);
  s.parts[0].add_prior_gradient(x, g0);
  s.parts[1].add_prior_gradient(x, g1);
  CHECK(g0.norm() > 0);
  CHECK(g1.norm() == 0);
  for (std::size_t i = 0; i < 20; ++i) CHECK(s.parts[0].owns(i) != s.parts[1].owns(i));
  CHECK(s.parts[1].example_coefficient(x, 3) == 0.0);
  CHECK(s.parts[1].example_value(x, 3) == 0.0);
}

TEST_CASE("generated logistic rows do not depend on how the set is split") {
  const auto whole = data::synthetic_logistic_rows(0, 50, 50, 5, 9);
  const auto tail = data::synthetic_logistic_rows(17, 33, 50, 5, 9);
  CHECK(tail.data.x == whole.data.x.rightCols(33));
  CHECK(tail.data.y == whole.data.y.tail(33));
  CHECK(tail.theta == whole.theta);
  CHECK_THROWS(data::synthetic_logistic_rows(40, 11, 50, 5, 9));
}

TEST_CASE("the parts of a CSV hold each of its rows once, in order, the header only in the first") {
  std::string text = "f1,f2,label\n";
  for (int i = 0; i < 41; ++i) {
    text += std::to_string(i) + "," + std::to_string(0.5 * i) + "," + std::to_string(i % 2) + (i % 5 == 0 ? "\r\n" : "\n");
    if (i % 7 == 3) text += "\n";  // blank lines are skipped
  }
  text += "41,20.5,1";  // no final newline
  const auto path = scratch_file("parts.csv", text);
  const auto whole = data::load_labelled_csv(path);
  REQUIRE(whole.size() == 42);
  for (std::uint64_t parts = 1; parts <= 9; ++parts) {
    std::vector<double> firsts;
    std::uint64_t at = 0;
    for (std::uint64_t k = 0; k < parts; ++k) {
      const auto p = data::read_file_part(path, "CSV data", k, parts);
      CHECK(p.begin == at);  // the parts tile the file
      at = p.end;
      const auto d = data::load_labelled_csv_part(path, k, parts);
      for (Eigen::Index i = 0; i < d.x.cols(); ++i) firsts.push_back(d.x(0, i));
    }
    CHECK(at == text.size());
    REQUIRE(firsts.size() == whole.size());
    for (std::size_t i = 0; i < firsts.size(); ++i) CHECK(firsts[i] == whole.x(0, static_cast<Eigen::Index>(i)));
  }
  // A part whose range holds no line start is an error that names the file and the part.
  const auto tiny = scratch_file("tiny.csv", "1,0\n2,1\n");
  CHECK_THROWS_WITH(data::load_labelled_csv_part(tiny, 2, 3), doctest::Contains("tiny.csv (part 3 of 3"));
  // A malformed row names the part and its row.
  const auto bad = scratch_file("bad.csv", "1,0\n2,1\n3,1\n4,x\n");
  CHECK_THROWS_WITH(data::load_labelled_csv_part(bad, 1, 2), doctest::Contains("bad.csv (part 2 of 2, from byte 8):2: column 2"));
}
