#pragma once
// The (family, link) pairs the glm target offers, as one std::variant of the family types
// (models/glm/family.hpp): the model visits it once per batch, and the loop inside runs on the concrete
// type, compiled once per pair, with no call through a pointer per example. Also: the pairs by their
// brms names, each family's canonical (default) link, and what a response of each family must be.
//
// The pairs are brms's for these families (brms::brmsfamily): bernoulli and binomial take logit
// (default), probit, cloglog; poisson log (default), identity, sqrt; negative_binomial log; gaussian
// identity (default), log; student identity; gamma inverse (default, as brms's `Gamma()`), log.
#include <cmath>
#include <string>
#include <string_view>
#include <variant>

#include <fmt/format.h>

#include <sgmcmc/models/glm/family.hpp>
#include <sgmcmc/modules/error.hpp>
#include <sgmcmc/modules/printable.hpp>

namespace sgmcmc::models::glm {

using AnyFamily = std::variant<Bernoulli<Logit>, Bernoulli<Probit>, Bernoulli<Cloglog>,     //
                               Binomial<Logit>, Binomial<Probit>, Binomial<Cloglog>,        //
                               Poisson<Log>, Poisson<Identity>, Poisson<Sqrt>,              //
                               NegativeBinomial<Log>,                                       //
                               Gaussian<Identity>, Gaussian<Log>,                           //
                               Student<Identity>,                                           //
                               Gamma<Inverse>, Gamma<Log>>;

/// The family names, in the order brms's documentation lists them.
inline constexpr std::string_view family_names = "bernoulli, binomial, poisson, negative_binomial, gaussian, student, gamma";

/// The canonical link of a family (brms's default), or empty for an unknown family.
inline std::string_view canonical_link(std::string_view family) {
  if (family == "bernoulli" || family == "binomial") return "logit";
  if (family == "poisson" || family == "negative_binomial") return "log";
  if (family == "gaussian" || family == "student") return "identity";
  if (family == "gamma") return "inverse";
  return {};
}

namespace detail {
/// The links of `family`, as a list for an error message.
inline std::string_view links_of(std::string_view family) {
  if (family == "bernoulli" || family == "binomial") return "logit, probit, cloglog";
  if (family == "poisson") return "log, identity, sqrt";
  if (family == "negative_binomial") return "log";
  if (family == "gaussian") return "identity, log";
  if (family == "student") return "identity";
  return "inverse, log";
}
template <class F, std::size_t I = 0>
bool pick(std::string_view family, std::string_view link, AnyFamily& out) {
  if constexpr (I < std::variant_size_v<AnyFamily>) {
    using T = std::variant_alternative_t<I, AnyFamily>;
    if (T::name == family && T::link_name == link) return out.template emplace<I>(), true;
    return pick<F, I + 1>(family, link, out);
  } else {
    return false;
  }
}
}  // namespace detail

/// The family `family` with the link `link` (empty: its canonical link). Throws sgmcmc::Error naming
/// the unknown family, or the link the family does not take and the ones it does.
inline AnyFamily make_family(std::string_view family, std::string_view link = {}) {
  const std::string_view canonical = canonical_link(family);
  if (canonical.empty())
    throw Error(fmt::format("unknown family \"{}\" (expected one of {})", printable(std::string(family), 100), family_names));
  if (link.empty()) link = canonical;
  AnyFamily out;
  if (!detail::pick<void>(family, link, out))
    throw Error(fmt::format("family {} has no link \"{}\" (expected one of {})", family, printable(std::string(link), 100),
                            detail::links_of(family)));
  return out;
}

/// The family's brms name and its link's.
/// The link of a (family, link) pair: a family is a template over its link.
template <class F>
struct link_of;
template <template <class> class Family, class L>
struct link_of<Family<L>> {
  using type = L;
};
template <class F>
using link_type = typename link_of<F>::type;

inline std::string_view family_name(const AnyFamily& f) {
  return std::visit([](const auto& t) { return std::string_view(std::remove_cvref_t<decltype(t)>::name); }, f);
}
inline std::string_view link_name(const AnyFamily& f) {
  return std::visit([](const auto& t) { return std::string_view(std::remove_cvref_t<decltype(t)>::link_name); }, f);
}
/// The number of auxiliary parameters of the family.
inline std::size_t aux_size(const AnyFamily& f) {
  return std::visit([](const auto& t) { return aux_count<std::remove_cvref_t<decltype(t)>>; }, f);
}
/// The brms name of the family's auxiliary parameter k.
inline std::string_view aux_name(const AnyFamily& f, std::size_t k) {
  return std::visit([k](const auto& t) { return std::string_view(std::remove_cvref_t<decltype(t)>::aux_names[k]); }, f);
}

/// Whether (y, trials) is a response the family's density is defined for, and the words for what it
/// must be otherwise (for an error naming the file, column and row): 0 or 1 (bernoulli); a whole
/// number in [0, trials] with trials a whole number ≥ 1 (binomial); a whole number ≥ 0 (poisson,
/// negative_binomial); finite (gaussian, student); positive and finite (gamma).
inline bool valid_response(std::string_view family, double y, double trials = 1) {
  const auto whole = [](double v) { return std::isfinite(v) && v == std::floor(v); };
  if (family == "bernoulli") return y == 0 || y == 1;
  if (family == "binomial") return whole(trials) && trials >= 1 && whole(y) && y >= 0 && y <= trials;
  if (family == "poisson" || family == "negative_binomial") return whole(y) && y >= 0;
  if (family == "gamma") return std::isfinite(y) && y > 0;
  return std::isfinite(y);
}
inline std::string_view response_words(std::string_view family) {
  if (family == "bernoulli") return "0 or 1";
  if (family == "binomial") return "a whole number of successes in [0, trials], with trials a whole number >= 1";
  if (family == "poisson" || family == "negative_binomial") return "a count (a whole number >= 0)";
  if (family == "gamma") return "a positive number";
  return "a finite number";
}

}  // namespace sgmcmc::models::glm
