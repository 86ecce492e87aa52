// The glm target's section (run/targets/glm_section.hpp): a brms-style config read into the model's
// parts, and every error naming the JSON path, the file, the column and the data row.
#include <filesystem>
#include <fstream>
#include <string>

#include <doctest/doctest.h>

#include <sgmcmc/models/glm/model.hpp>
#include <sgmcmc/run/targets/glm_section.hpp>

namespace sgmcmc::test_glm {
namespace {

using run::json;
using namespace sgmcmc::models::glm;

/// A scratch CSV under the build tree, written afresh.
std::string write_csv(const std::string& name, const std::string& text) {
  const std::filesystem::path dir = std::filesystem::path(SGMCMC_BINARY_DIR) / "tests" / "glm_scratch";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

const char* const kid_csv =
    "kid_score,mom_hs,mom_iq,mom age\n"
    "65,1,121.1,27\n"
    "98,1,89.4,25\n"
    "85,1,115.4,27\n"
    "83,1,99.4,25\n"
    "115,1,92.7,27\n"
    "98,0,107.9,18\n";

run::targets::GlmSection read(const json& section) {
  run::Fields f(section, "/target");
  auto s = run::targets::read_glm_section(f);
  f.string("name");
  f.finish();
  return s;
}

std::string section_error(const json& section) {
  try {
    read(section);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// Would catch: columns taken by position rather than by name, a default that is not brms's (family
// gaussian, the canonical link, every other column a predictor), priors given to the wrong class or
// lost, names that are not brms's.
TEST_CASE("glm section: the issue's example config reads into brms's model") {
  const std::string path = write_csv("kid.csv", kid_csv);
  const auto s = read({{"name", "glm"}, {"data", path}, {"response", "kid_score"}, {"predictors", {"mom_hs", "mom_iq"}},
                       {"prior", {{"b", "normal(0, 10)"}, {"Intercept", "student_t(3, 0, 10)"}, {"sigma", "cauchy(0, 2.5)"}}}});
  CHECK(family_name(s.family) == "gaussian");
  CHECK(link_name(s.family) == "identity");
  CHECK(s.intercept);
  REQUIRE(s.data.x.rows() == 2);
  REQUIRE(s.data.x.cols() == 6);
  CHECK(s.data.x(1, 2) == 115.4);
  CHECK(s.data.y[4] == 115);
  CHECK(to_string(s.priors.intercept) == "student_t(3, 0, 10)");
  CHECK(to_string(s.priors.b[0]) == "normal(0, 10)");
  CHECK(to_string(s.priors.b[1]) == "normal(0, 10)");
  CHECK(to_string(s.priors.aux[0]) == "cauchy(0, 2.5)");
  CHECK(s.resolved["link"] == "identity");
  CHECK(s.resolved["prior"]["sigma"] == "cauchy(0, 2.5)");
  const Glm m = make_glm(s.data, s.family, s.priors, s.intercept);
  CHECK(m.names() == std::vector<std::string>{"b_Intercept", "b_mom_hs", "b_mom_iq", "sigma"});
  // Every other column by default, named by coefficient_names' rule ("mom age" gives b_mom_age); one
  // slope's own prior overrides the class's.
  const auto all = read({{"name", "glm"}, {"data", path}, {"response", "kid_score"}, {"family", "poisson"},
                         {"prior", {{"b", "normal(0, 1)"}, {"b_mom_age", "laplace(0, 2)"}}}});
  CHECK(make_glm(all.data, all.family, all.priors).names() == std::vector<std::string>{"b_Intercept", "b_mom_hs", "b_mom_iq", "b_mom_age"});
  CHECK(to_string(all.priors.b[2]) == "laplace(0, 2)");
  CHECK(to_string(all.priors.b[1]) == "normal(0, 1)");
  CHECK(link_name(all.family) == "log");
  CHECK(all.warnings.empty());
}

// Would catch: binomial trials read from the wrong column, or a constant given for trials ignored.
TEST_CASE("glm section: binomial trials by column or by number") {
  const std::string path = write_csv("binom.csv", "y,n,x\n3,5,0.1\n0,4,-1.2\n7,7,2.0\n");
  const auto by_column = read({{"name", "glm"}, {"data", path}, {"response", "y"}, {"family", "binomial"}, {"trials", "n"}});
  CHECK(by_column.data.trials[1] == 4);
  CHECK(by_column.data.x.rows() == 1);  // n is not a predictor
  CHECK(link_name(by_column.family) == "logit");
  const auto by_number =
      read({{"name", "glm"}, {"data", path}, {"response", "y"}, {"family", "binomial"}, {"link", "probit"}, {"trials", 9}, {"predictors", {"x"}}});
  CHECK(by_number.data.trials[2] == 9);
  CHECK(by_number.resolved["trials"] == 9);
}

// Would catch: bad input taken silently or reported without where it is (the JSON path, the file,
// the column, the data row), as issue #35 item 4 asks.
TEST_CASE("glm section: errors name the path, the file, the column and the row") {
  const std::string path = write_csv("kid.csv", kid_csv);
  const std::string file = data::shown(path);
  const json base = {{"name", "glm"}, {"data", path}, {"response", "kid_score"}};
  const auto with = [&](json patch) {
    json j = base;
    j.merge_patch(patch);
    return j;
  };
  CHECK(section_error(with({{"response", "score"}})) ==
        "/target/response: " + file + " has no column \"score\" (its columns: kid_score, mom_hs, mom_iq, mom age)");
  CHECK(section_error(with({{"predictors", {"mom_hs", "iq"}}})) ==
        "/target/predictors/1: " + file + " has no column \"iq\" (its columns: kid_score, mom_hs, mom_iq, mom age)");
  CHECK(section_error(with({{"predictors", {"mom_hs", "kid_score"}}})) == "/target/predictors/1: \"kid_score\" is the response");
  CHECK(section_error(with({{"predictors", {"mom_hs", "mom_hs"}}})) == "/target/predictors/1: \"mom_hs\" is listed twice");
  CHECK(section_error(with({{"family", "weibull"}})) ==
        "/target/family: unknown family \"weibull\" (expected one of bernoulli, binomial, poisson, negative_binomial, gaussian, student, gamma)");
  CHECK(section_error(with({{"family", "gaussian"}, {"link", "logit"}})) ==
        "/target/link: family gaussian has no link \"logit\" (expected one of identity, log)");
  CHECK(section_error(with({{"family", "bernoulli"}})) ==
        "/target/response: " + file + ": data row 1: column \"kid_score\": 65 is not 0 or 1 (family bernoulli)");
  CHECK(section_error(with({{"family", "binomial"}})) ==
        "/target/trials: required field is missing (binomial: a column of trials, or one whole number of trials for every row)");
  CHECK(section_error(with({{"trials", 3}})) == "/target/trials: only the binomial family has trials (family is gaussian)");
  CHECK(section_error(with({{"prior", {{"sigma", "normal(0, -2)"}}}})) == "/target/prior/sigma: prior \"normal(0, -2)\": sigma must be positive, got -2");
  CHECK(section_error(with({{"prior", {{"shape", "normal(0, 2)"}}}})) ==
        "/target/prior/shape: unknown class (expected b, b_<predictor>, Intercept, sigma for family gaussian)");
  CHECK(section_error(with({{"intercept", false}, {"prior", {{"Intercept", "normal(0, 2)"}}}})) ==
        "/target/prior/Intercept: unknown class (the model has no intercept: intercept is false) (expected b, b_<predictor>, sigma for "
        "family gaussian)");
  CHECK(section_error(with({{"prior", {{"b_mom", "normal(0, 2)"}}}})) ==
        "/target/prior/b_mom: no predictor is named mom (the coefficients: b_mom_hs, b_mom_iq, b_mom_age)");
  CHECK(section_error(with({{"prior", {{"b", "exponential(1)"}}}})) == "/target/prior/b: exponential(1) has support (0, inf) and a coefficient is unbounded");
  CHECK(section_error(with({{"prior", {{"b", 3}}}})) == "/target/prior/b: expected a string, got 3");
  const std::string bad = write_csv("bad.csv", "y,x\n1,2\n0,oops\n");
  CHECK(section_error({{"name", "glm"}, {"data", bad}, {"response", "y"}}) ==
        "/target/data: " + data::shown(bad) + ":3: column 2: expected a number (a field of 4 characters is not one; data row 2, column \"x\")");
  const std::string headless = write_csv("headless.csv", "1,2\n0,3\n");
  CHECK(section_error({{"name", "glm"}, {"data", headless}, {"response", "y"}}) ==
        "/target/data: " + data::shown(headless) + ": the glm target names its columns by the file's header row, and the file has none");
  const std::string counts = write_csv("counts.csv", "y,x\n1,2\n0.5,3\n");
  CHECK(section_error({{"name", "glm"}, {"data", counts}, {"response", "y"}, {"family", "poisson"}}) ==
        "/target/response: " + data::shown(counts) + ": data row 2: column \"y\": 0.5 is not a count (a whole number >= 0) (family poisson)");
  const std::string trials = write_csv("trials.csv", "y,n,x\n1,2,1\n0,0,3\n");
  CHECK(section_error({{"name", "glm"}, {"data", trials}, {"response", "y"}, {"family", "binomial"}, {"trials", "n"}}) ==
        "/target/trials: " + data::shown(trials) + ": data row 2: column \"n\": 0 is not a whole number of trials >= 1");
}

// Would catch: a constant predictor passed on without a word (centred, it is a column of zeros: its
// coefficient is its prior alone, improper under the default flat prior).
TEST_CASE("glm section: a constant predictor is warned about by name") {
  const std::string path = write_csv("constant.csv", "y,c,x\n1.5,2,0.1\n0.3,2,-1\n2.2,2,0.7\n");
  const auto s = read({{"name", "glm"}, {"data", path}, {"response", "y"}});
  REQUIRE(s.warnings.size() == 1);
  CHECK(s.warnings[0] == data::shown(path) +
                             ": predictor \"c\" is constant (2): its coefficient is not identified by the data (it is collinear with the intercept)");
}

}  // namespace sgmcmc::test_glm

namespace sgmcmc::test_glm {

// Would catch: collinear predictors passed on without a word (the posterior of their coefficients is
// their prior's along the null direction, improper under flat priors), or a warning that does not name
// a column involved.
TEST_CASE("glm section: collinear predictors are warned about by name") {
  const std::string path = write_csv("collinear.csv", "y,a,b,c\n1.5,1,2,5\n0.3,2,1,6\n2.2,3,5,12\n1.1,4,0,9\n");  // c = 2a + b + 1
  const auto s = read({{"name", "glm"}, {"data", path}, {"response", "y"}});
  REQUIRE(s.warnings.size() == 1);
  // Which of the three QR names is its pivoting's choice; here the last, c.
  CHECK(s.warnings[0] == data::shown(path) + ": predictor c is a linear combination of the other predictors and the intercept: the data do "
                                             "not tell its coefficient apart from theirs (the posterior along that direction is the prior's)");
  const std::string free = write_csv("independent.csv", "y,a,b\n1.5,1,2\n0.3,2,1\n2.2,3,5\n1.1,4,0\n");
  CHECK(read({{"name", "glm"}, {"data", free}, {"response", "y"}}).warnings.empty());
}

// Would catch: a flat default prior on student's nu or negative_binomial's shape (an improper
// posterior: the likelihood stays positive as they grow without bound), and a record that does not
// say which prior was used.
TEST_CASE("glm section: nu and the negative binomial's shape default to brms's proper priors") {
  const std::string path = write_csv("counts_ok.csv", "y,x\n1,2\n0,3\n4,1\n");
  const auto t = read({{"name", "glm"}, {"data", path}, {"response", "y"}, {"family", "student"}});
  CHECK(to_string(t.priors.aux[1]) == "gamma(2, 0.1)");
  CHECK(std::holds_alternative<Flat>(t.priors.aux[0]));
  CHECK(t.resolved["prior"]["nu"] == "gamma(2, 0.1)");
  const auto nb = read({{"name", "glm"}, {"data", path}, {"response", "y"}, {"family", "negative_binomial"}});
  CHECK(to_string(nb.priors.aux[0]) == "gamma(0.01, 0.01)");
  const auto given = read({{"name", "glm"}, {"data", path}, {"response", "y"}, {"family", "student"}, {"prior", {{"nu", "gamma(2, 1)"}}}});
  CHECK(to_string(given.priors.aux[1]) == "gamma(2, 1)");
  const auto gamma = read({{"name", "glm"}, {"data", path}, {"response", "x"}, {"family", "gamma"}});
  CHECK(std::holds_alternative<Flat>(gamma.priors.aux[0]));
}

}  // namespace sgmcmc::test_glm
