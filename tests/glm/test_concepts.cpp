// The glm contracts at compile time: every shipped (family, link) pair is a GlmFamily, a minimal
// user family opts in by its shape, and near misses do not.
#include <array>
#include <cmath>
#include <span>
#include <string_view>
#include <variant>

#include <doctest/doctest.h>

#include <sgmcmc/models/glm/any_family.hpp>
#include <sgmcmc/models/glm/model.hpp>
#include <sgmcmc/models/logistic.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/models/shard.hpp>

namespace sgmcmc::test_glm {
namespace {

using namespace sgmcmc::models::glm;

template <class V>
struct AllFamilies;
template <class... F>
struct AllFamilies<std::variant<F...>> : std::bool_constant<(GlmFamily<F> && ...)> {};
static_assert(AllFamilies<AnyFamily>::value);

// The concept's own example: a user's exponential family with a log link opts in by shape.
struct UserExponential {
  static constexpr std::string_view name = "exponential";
  static constexpr std::array<std::string_view, 0> aux_names{};
  struct Params {};
  static Params params(std::span<const double>) { return {}; }
  static double log_lik(const Params&, double y, double, double eta) { return -eta - y * std::exp(-eta); }
  static double gradient(const Params&, double y, double, double eta, std::span<double>) { return y * std::exp(-eta) - 1; }
};
static_assert(GlmFamily<UserExponential>);

// Near misses.
struct NoGradient {  // a log-likelihood only
  static constexpr std::string_view name = "x";
  static constexpr std::array<std::string_view, 0> aux_names{};
  struct Params {};
  static Params params(std::span<const double>) { return {}; }
  static double log_lik(const Params&, double, double, double) { return 0; }
};
static_assert(!GlmFamily<NoGradient>);
struct FloatValue : UserExponential {  // a float log-likelihood: the model sums doubles
  static float log_lik(const Params&, double, double, double) { return 0; }
};
static_assert(!GlmFamily<FloatValue>);
struct NoAuxNames {  // its auxiliary parameters unnamed: the outputs could not name them
  static constexpr std::string_view name = "x";
  struct Params {};
  static Params params(std::span<const double>) { return {}; }
  static double log_lik(const Params&, double, double, double) { return 0; }
  static double gradient(const Params&, double, double, double, std::span<double>) { return 0; }
};
static_assert(!GlmFamily<NoAuxNames>);
struct ParamsOfOtherType : UserExponential {  // params() must give the family's own Params
  static int params(std::span<const double>) { return 0; }
};
static_assert(!GlmFamily<ParamsOfOtherType>);

// models/minibatch.hpp's FullDataModel: the glm model opts in; a model with per-example hooks only
// (logistic: its range hooks serve instead) does not, nor one with a full-data gradient but no value.
static_assert(models::FullDataModel<Glm>);
static_assert(!models::FullDataModel<models::LogisticRegression>);
struct GradientOnly {
  std::size_t size() const { return 1; }
  void add_prior_gradient(const Eigen::VectorXd&, Eigen::VectorXd&) const {}
  void add_example_gradient(const Eigen::VectorXd&, std::size_t, Eigen::VectorXd&, double) const {}
  void add_likelihood_gradient(const Eigen::VectorXd&, Eigen::VectorXd&) const {}
};
static_assert(models::DataModel<GradientOnly> && !models::FullDataModel<GradientOnly>);
struct WithValue : GradientOnly {
  double likelihood_value(const Eigen::VectorXd&) const { return 0; }
};
static_assert(models::FullDataModel<WithValue>);

// ReparametrisedModel and ModelWithStart (models/minibatch.hpp): the glm model and its shard offer both;
// the logistic model (sampled as reported, started at 0) neither; a start that is not a point is not one.
static_assert(models::ReparametrisedModel<Glm> && models::ModelWithStart<Glm>);
static_assert(models::ReparametrisedModel<models::Shard<Glm>> && models::ModelWithStart<models::Shard<Glm>>);
static_assert(!models::ReparametrisedModel<models::LogisticRegression> && !models::ModelWithStart<models::LogisticRegression>);
struct StartAsNumber : GradientOnly {
  double start() const { return 0; }
};
static_assert(!models::ModelWithStart<StartAsNumber>);

static_assert(aux_count<Gaussian<Identity>> == 1 && aux_count<Student<Identity>> == 2 && aux_count<Poisson<Log>> == 0);

}  // namespace

// Would catch: a family name or link misspelt against brms's, a canonical link that is not brms's
// default, and unknown names accepted.
TEST_CASE("glm family: names, canonical links and their errors") {
  CHECK(family_name(make_family("gamma")) == "gamma");
  CHECK(link_name(make_family("gamma")) == "inverse");
  CHECK(link_name(make_family("bernoulli")) == "logit");
  CHECK(link_name(make_family("poisson")) == "log");
  CHECK(link_name(make_family("negative_binomial")) == "log");
  CHECK(link_name(make_family("gaussian")) == "identity");
  CHECK(link_name(make_family("student")) == "identity");
  CHECK(std::holds_alternative<Binomial<Probit>>(make_family("binomial", "probit")));
  CHECK(std::holds_alternative<Poisson<Sqrt>>(make_family("poisson", "sqrt")));
  CHECK(aux_size(make_family("student")) == 2);
  CHECK(aux_name(make_family("student"), 1) == "nu");
  CHECK(aux_name(make_family("negative_binomial"), 0) == "shape");
  CHECK_THROWS_WITH_AS(make_family("weibull"),
                       "unknown family \"weibull\" (expected one of bernoulli, binomial, poisson, negative_binomial, gaussian, student, gamma)",
                       Error);
  CHECK_THROWS_WITH_AS(make_family("student", "log"), "family student has no link \"log\" (expected one of identity)", Error);
  CHECK_THROWS_WITH_AS(make_family("bernoulli", "identity"), "family bernoulli has no link \"identity\" (expected one of logit, probit, cloglog)",
                       Error);
}

// Would catch: a response outside the family's support let through to a density that is not defined
// there (a 2 in a Bernoulli column, a fractional count, a non-positive gamma response).
TEST_CASE("glm family: valid responses") {
  CHECK(valid_response("bernoulli", 0));
  CHECK(!valid_response("bernoulli", 2));
  CHECK(valid_response("binomial", 3, 5));
  CHECK(!valid_response("binomial", 6, 5));
  CHECK(!valid_response("binomial", 1, 0));
  CHECK(!valid_response("binomial", 1, 2.5));
  CHECK(!valid_response("poisson", 1.5));
  CHECK(!valid_response("negative_binomial", -1));
  CHECK(!valid_response("gamma", 0));
  CHECK(valid_response("gaussian", -3.2));
  CHECK(!valid_response("student", std::nan("")));
}

}  // namespace sgmcmc::test_glm
