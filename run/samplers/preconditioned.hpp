#pragma once
// The `preconditioner` field of the flat-space samplers (sgld, sghmc): a fixed preconditioner S (θ = Sφ)
// estimated during a warm-up (samplers/preconditioned.hpp), and its state's JSON form.
//   "preconditioner": "none"                (default)
//   "preconditioner": "diagonal"            estimated during burn-in: {"adapt_steps": burn_in}
//   "preconditioner": {"adapt_steps": K}    s estimated from ∇Ũ⊙∇Ũ over steps K/2 … K−1, then fixed;
//   "preconditioner": {"scale": [s_1, …]}   s given;
//   "preconditioner": "dense"               estimated during burn-in: {"kind": "dense", "adapt_steps": burn_in}
//   "preconditioner": {"kind": "dense", "adapt_steps": K}     L from the draws' covariance over steps K/2 … K−1;
//   "preconditioner": {"kind": "dense", "cholesky": [[…]]}    L given (lower triangular, positive diagonal);
//   "preconditioner": {"kind": "dense", "cov": [[…]]}         L = chol(cov) given (SSᵀ = cov);
//   "preconditioner": {"kind": "low_rank", "rank": k, "adapt_steps": K}   S = diag(s)(I + U diag(m) Uᵀ).
// ("kind" defaults to "diagonal", or "dense" when "cholesky" or "cov" is given.)
#include <cstdint>
#include <string>

#include <sgmcmc/run/output/writer.hpp>
#include <sgmcmc/run/samplers/common.hpp>
#include <sgmcmc/samplers/preconditioned.hpp>

namespace sgmcmc::run {

namespace precondition_detail {

inline json matrix_json(const Eigen::MatrixXd& m) {
  json rows = json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) rows.push_back(vector_json(m.row(r).transpose()));
  return rows;
}

/// A rows×cols matrix as a list of rows (cols may be 0: a list of empty rows).
inline Eigen::MatrixXd sized_matrix(const json& j, const std::string& path, Eigen::Index rows, Eigen::Index cols) {
  if (!j.is_array() || static_cast<Eigen::Index>(j.size()) != rows)
    fail(path, fmt::format("expected a {}×{} matrix as a list of rows, got {}", rows, cols, describe(j)));
  Eigen::MatrixXd m(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r) m.row(r) = as_vector(j[static_cast<std::size_t>(r)], fmt::format("{}/{}", path, r), cols).transpose();
  return m;
}

inline const char* kind_name(preconditioned::Kind k) {
  switch (k) {
    case preconditioned::Kind::diagonal: return "diagonal";
    case preconditioned::Kind::dense: return "dense";
    case preconditioned::Kind::low_rank: return "low_rank";
  }
  return "";
}

/// The factor of a saved state of `kind` (the members StateJson writes), shapes as `like` has them.
inline preconditioned::Factor read_factor(Fields& f, preconditioned::Kind kind, Eigen::Index d, Eigen::Index rank) {
  using preconditioned::Kind;
  preconditioned::Factor s = preconditioned::Factor::identity(kind, d, rank);
  if (kind != Kind::dense) {
    s.scale = as_vector(f.get("scale"), f.at("scale"), d);
    if (!(s.scale.array() > 0).all()) fail(f.at("scale"), "expected positive numbers");
  }
  if (kind == Kind::dense) {
    s.lower = sized_matrix(f.get("factor"), f.at("factor"), d, d);
    if (!(s.lower.diagonal().array() > 0).all() || !s.lower.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().isZero(0.0))
      fail(f.at("factor"), "expected a lower triangular matrix with a positive diagonal");
  }
  if (kind == Kind::low_rank) {
    s.basis = sized_matrix(f.get("basis"), f.at("basis"), d, rank);
    s.stretch = as_vector(f.get("stretch"), f.at("stretch"), rank);
    if (!(s.stretch.array() > -1).all()) fail(f.at("stretch"), "expected numbers above -1");
  }
  return s;
}

}  // namespace precondition_detail

template <class Inner>
struct StateJson<preconditioned::State<Inner>> {
  // The diagonal form is the one records have always held ({inner, scale, square_sum, collected});
  // the others say their kind.
  static json write(const preconditioned::State<Inner>& s) {
    using precondition_detail::matrix_json;
    using preconditioned::Kind;
    const preconditioned::Factor& f = s.factor;
    json j = {{"inner", StateJson<Inner>::write(s.inner)}};
    if (f.kind == Kind::diagonal) {
      j.update({{"scale", vector_json(f.scale)}, {"square_sum", vector_json(s.square_sum)}, {"collected", s.collected}});
      return j;
    }
    j["kind"] = precondition_detail::kind_name(f.kind);
    if (f.kind == Kind::dense) j["factor"] = matrix_json(f.lower.triangularView<Eigen::Lower>().toDenseMatrix());
    else j.update({{"scale", vector_json(f.scale)}, {"basis", matrix_json(f.basis)}, {"stretch", vector_json(f.stretch)}});
    j.update({{"draw_mean", vector_json(s.draw_mean)}, {"draw_m2", matrix_json(s.draw_m2)}, {"collected", s.collected}});
    return j;
  }
  static void read(preconditioned::State<Inner>& s, const json& j, const std::string& path) {
    using preconditioned::Kind;
    Fields f(j, path);
    StateJson<Inner>::read(s.inner, f.get("inner"), f.at("inner"));
    const Kind kind = s.factor.kind;
    const auto d = s.theta.size();
    const std::string saved = f.string("kind", "diagonal");
    if (saved != precondition_detail::kind_name(kind))
      fail(f.at("kind"), fmt::format("a {} preconditioner's state, and the config's is {}", saved, precondition_detail::kind_name(kind)));
    s.factor = precondition_detail::read_factor(f, kind, d, s.factor.rank());
    if (kind == Kind::diagonal) {
      s.square_sum = as_vector(f.get("square_sum"), f.at("square_sum"), d);
    } else {
      s.draw_mean = as_vector(f.get("draw_mean"), f.at("draw_mean"), d);
      s.draw_m2 = precondition_detail::sized_matrix(f.get("draw_m2"), f.at("draw_m2"), d, d);
    }
    s.collected = state_count(f, "collected");
    s.factor.apply(s.inner.x, s.theta, s.scratch_k);
    f.finish();
  }
};

/// The parsed `preconditioner` section: none, a warm-up of K steps, or a given factor.
struct PreconditionChoice {
  bool enabled = false;
  preconditioned::Kind kind = preconditioned::Kind::diagonal;
  std::uint64_t adapt_steps = 0;
  Eigen::VectorXd scale;  ///< diagonal: given; empty when estimated
  Eigen::MatrixXd lower;  ///< dense: given L; empty when estimated
  Eigen::Index rank = 0;  ///< low_rank: k
};

/// The draws a dense or low-rank warm-up needs: a d×d covariance from the ⌊K/2⌋ draws of its second
/// half is singular (only the regularisation's 10⁻³ ridge left in the missing directions) with fewer than
/// d + 1 of them: K ≥ 2(d + 1).
inline std::uint64_t least_adapt_steps(Eigen::Index d) { return 2 * static_cast<std::uint64_t>(d + 1); }

/// The most numbers a dense or low-rank preconditioner's d×d matrices may hold (the factor, the warm-up's
/// sums), each, per chain: 2²⁷ (1 GiB of doubles). Past it the config is refused before anything of
/// that size is allocated (the bnn's 79,510 weights would ask 50 GB a matrix).
inline constexpr double dense_preconditioner_limit = 134217728.0;

/// `preconditioner`: "none" (the default), "diagonal" (estimated during the run's burn-in: {"adapt_steps":
/// burn_in}), "dense" ({"kind": "dense", "adapt_steps": burn_in}), or an object (the header's comment);
/// recorded as the object that runs.
inline PreconditionChoice read_precondition(Fields& f, json& out, const ManifoldChoice& manifold, const std::string& name,
                                            const RunLength& run) {
  using preconditioned::Kind;
  PreconditionChoice p;
  const json* j = f.find("preconditioner");
  if (!j || (j->is_string() && *j == "none")) return p;
  if (!manifold.geometry.flat)
    fail(f.at("preconditioner"), fmt::format("a preconditioner rescales coordinates: '{}' takes it on euclidean only", name));
  p.enabled = true;
  const std::optional<Eigen::Index> d = manifold.dim();
  const auto bounded = [&](const std::string& at, const std::string& kind) {
    if (p.kind != Kind::diagonal && d && static_cast<double>(*d) * static_cast<double>(*d) > dense_preconditioner_limit)
      fail(at, fmt::format("a {} preconditioner keeps d×d matrices (d = {}: {:.3g} GiB each, per chain), above the 2^27 numbers "
                           "(1 GiB) allowed: use \"diagonal\"", kind, *d, static_cast<double>(*d) * static_cast<double>(*d) * 8 / (1 << 30)));
  };
  if (j->is_string() && (*j == "diagonal" || *j == "dense")) {
    p.kind = *j == "dense" ? Kind::dense : Kind::diagonal;
    bounded(f.at("preconditioner"), j->get<std::string>());
    const std::uint64_t least = p.kind == Kind::diagonal ? 2 : least_adapt_steps(d.value_or(1));
    if (run.burn_in < least)
      fail(f.at("preconditioner"), fmt::format("the {} preconditioner is estimated during burn-in, and burn_in is {} (at least {}{}): set "
                                               "\"burn_in\" (e.g. a tenth of the steps), or give {{\"adapt_steps\": K}} or {}",
                                               j->get<std::string>(), run.burn_in, least, p.kind == Kind::dense ? ", 2(d + 1)" : "",
                                               p.kind == Kind::dense ? "{\"cholesky\": [[...]]}" : "{\"scale\": [...]}"));
    p.adapt_steps = run.burn_in;
    out["preconditioner"] = {{"adapt_steps", p.adapt_steps}};
    if (p.kind == Kind::dense) out["preconditioner"]["kind"] = "dense";
    return p;
  }
  if (!j->is_object())
    fail(f.at("preconditioner"), fmt::format("expected \"none\", \"diagonal\", \"dense\" or an object ({{\"adapt_steps\": K}}, "
                                             "{{\"scale\": [...]}}, {{\"kind\": \"dense\" | \"low_rank\", ...}}), got {}", describe(*j)));
  Fields pf(*j, f.at("preconditioner"));
  const bool given_dense = pf.has("cholesky") || pf.has("cov");
  const std::string kind = pf.string("kind", given_dense ? "dense" : "diagonal");
  if (kind == "dense") p.kind = Kind::dense;
  else if (kind == "low_rank") p.kind = Kind::low_rank;
  else if (kind != "diagonal") fail(pf.at("kind"), fmt::format("expected \"diagonal\", \"dense\" or \"low_rank\", got \"{}\"", kind));
  const auto only_for = [&pf, &kind](const char* field, const char* kinds) {
    if (pf.has(field)) fail(pf.at(field), fmt::format("{} is for kind {}, and this preconditioner's kind is {}", field, kinds, kind));
  };
  bounded(pf.has("kind") ? pf.at("kind") : f.at("preconditioner"), kind);
  if (p.kind != Kind::diagonal) only_for("scale", "diagonal");
  if (p.kind != Kind::dense) only_for("cholesky", "dense"), only_for("cov", "dense");
  if (p.kind != Kind::low_rank) only_for("rank", "low_rank");
  json rec = json::object();
  if (p.kind != Kind::diagonal) rec["kind"] = kind;
  const char* given = pf.has("scale") ? "scale" : pf.has("cholesky") ? "cholesky" : pf.has("cov") ? "cov" : nullptr;
  if (given && pf.has("adapt_steps")) fail(pf.at("adapt_steps"), fmt::format("give either adapt_steps or {}, not both", given));
  if (pf.has("cholesky") && pf.has("cov")) fail(pf.at("cov"), "give either cholesky or cov, not both");
  if (p.kind == Kind::diagonal && given) {
    p.scale = as_vector(pf.get("scale"), pf.at("scale"), d.value_or(-1));
    if (!(p.scale.array() > 0).all() || !p.scale.allFinite()) fail(pf.at("scale"), "expected positive numbers");
    rec["scale"] = vector_json(p.scale);
  } else if (given) {  // dense, given
    const std::string at = pf.at(given);
    const Eigen::MatrixXd m = as_matrix(pf.get(given), at);
    if (m.rows() != m.cols() || (d && m.rows() != *d))
      fail(at, fmt::format("expected a {0}×{0} matrix, got {1}×{2}", d ? std::to_string(*d) : std::string("d"), m.rows(), m.cols()));
    if (std::string(given) == "cholesky") {
      if (!m.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().isZero(0.0))
        fail(at, "expected a lower triangular matrix (zeros above the diagonal): the Cholesky factor L of SSᵀ = LLᵀ");
      if (!(m.diagonal().array() > 0).all())
        fail(at, "expected a positive diagonal: a Cholesky factor of a positive definite matrix (this one is singular or not a Cholesky factor)");
      p.lower = m;
    } else {
      if (!((m - m.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * m.cwiseAbs().maxCoeff())) fail(at, "expected a symmetric matrix");
      const Eigen::LLT<Eigen::MatrixXd> llt(m);
      if (llt.info() != Eigen::Success) fail(at, "expected a positive definite matrix (its Cholesky factorisation fails)");
      p.lower = llt.matrixL();
    }
    rec[given] = pf.get(given);
  } else {
    const std::uint64_t fallback = p.kind == Kind::diagonal ? 1 : run.burn_in;
    p.adapt_steps = pf.count("adapt_steps", fallback, 1);
    if (p.kind != Kind::diagonal && p.adapt_steps < least_adapt_steps(d.value_or(1)))
      fail(pf.has("adapt_steps") ? pf.at("adapt_steps") : f.at("preconditioner"),
           fmt::format("a {} preconditioner estimates a d×d covariance (d = {}) from the draws of the warm-up's second half, and "
                       "needs at least d + 1 of them: adapt_steps (default: burn_in) ≥ 2(d + 1) = {}, got {}",
                       kind, d ? std::to_string(*d) : std::string("the dimension"), least_adapt_steps(d.value_or(1)), p.adapt_steps));
    rec["adapt_steps"] = p.adapt_steps;
  }
  if (p.kind == Kind::low_rank) {
    p.rank = static_cast<Eigen::Index>(pf.count("rank", 0, 1));
    if (!pf.has("rank")) fail(pf.at("rank"), "required for kind low_rank: the number k of directions S corrects (1 ≤ k ≤ d)");
    if (d && p.rank > *d) fail(pf.at("rank"), fmt::format("expected at most d = {}, got {}", *d, p.rank));
    rec["rank"] = p.rank;
  }
  out["preconditioner"] = rec;
  pf.finish();
  return p;
}

/// What the recorded sampler's `preconditioner` (as read_precondition records it) means for the outputs:
/// Stan's metric line and adaptation block (output::MetricFacts). Here, beside the field's reader, so no
/// format reads the sampler's JSON.
inline output::MetricFacts metric_facts(const json& resolved_sampler, std::uint64_t burn_in) {
  output::MetricFacts m;
  m.burn_in = burn_in;
  if (!resolved_sampler.is_object() || !resolved_sampler.contains("preconditioner")) return m;
  const json& p = resolved_sampler["preconditioner"];
  if (!p.is_object()) return m;
  const bool dense = p.contains("kind") && (p["kind"] == "dense" || p["kind"] == "low_rank");
  m.diagonal = !dense;
  m.dense = dense;
  if (p.contains("adapt_steps") && p["adapt_steps"].is_number_unsigned()) m.adapt_steps = p["adapt_steps"].get<std::uint64_t>();
  if (p.contains("scale") && p["scale"].is_array())
    for (const json& s : p["scale"]) m.given_inverse.push_back(s.is_number() ? s.get<double>() * s.get<double>() : std::nan(""));
  for (const char* given : {"cholesky", "cov"}) {
    if (!p.contains(given)) continue;
    try {
      const Eigen::MatrixXd g = as_matrix(p[given], given);
      const Eigen::MatrixXd l = g.triangularView<Eigen::Lower>();
      const Eigen::MatrixXd inverse = std::string(given) == "cov" ? g : Eigen::MatrixXd(l * l.transpose());
      for (Eigen::Index r = 0; r < inverse.rows(); ++r)
        for (Eigen::Index c = 0; c < inverse.cols(); ++c) m.given_inverse.push_back(inverse(r, c));
    } catch (const Error&) {  // a record's config was read and checked before: nothing to add
    }
  }
  return m;
}

/// A chain's warm-up as the outputs see it, from its recorded state (chains[i].state, StateJson above):
/// a preconditioned sampler's S gives the inverse metric SSᵀ (the diagonal's s², a d×d row-major matrix
/// for the dense and low-rank ones); any other state gives none.
inline output::WarmUp warm_up_of(const json& chain_state) {
  using preconditioned::Kind;
  output::WarmUp w;
  if (!chain_state.is_object() || !chain_state.contains("sampler")) return w;
  const json& s = chain_state["sampler"];
  if (!s.is_object() || !s.contains("collected")) return w;
  if (!s.contains("kind")) {  // diagonal
    if (!s.contains("scale") || !s["scale"].is_array() || !s.contains("square_sum")) return w;
    for (const json& v : s["scale"]) w.inverse_metric.push_back(v.is_number() ? v.get<double>() * v.get<double>() : std::nan(""));
    return w;
  }
  try {
    const Kind kind = s["kind"] == "dense" ? Kind::dense : Kind::low_rank;
    const auto d = static_cast<Eigen::Index>(s.at("draw_mean").size());
    const auto rank = kind == Kind::low_rank ? static_cast<Eigen::Index>(s.at("stretch").size()) : 0;
    Fields f(s, "/sampler");
    const Eigen::MatrixXd m = precondition_detail::read_factor(f, kind, d, rank).inverse_metric();
    for (Eigen::Index r = 0; r < d; ++r)
      for (Eigen::Index c = 0; c < d; ++c) w.inverse_metric.push_back(m(r, c));
  } catch (const std::exception&) {  // not a preconditioner's state after all: none
    w.inverse_metric.clear();
  }
  return w;
}

/// The chain of `sampler`, preconditioned as `p` says.
template <class S>
std::unique_ptr<AnyChain> chain_preconditioned(const PreconditionChoice& p, S sampler, const AnyTarget& target, Eigen::VectorXd x0,
                                               random::Stream rng) {
  using preconditioned::Kind;
  if (!p.enabled) return chain_of(std::move(sampler), target, std::move(x0), rng);
  const Eigen::Index d = x0.size();
  if (p.scale.size() != 0 && p.scale.size() != d)
    throw Error(fmt::format("/sampler/preconditioner/scale: expected {} numbers, got {}", d, p.scale.size()));
  if (p.lower.size() != 0 && p.lower.rows() != d)
    throw Error(fmt::format("/sampler/preconditioner: expected a {}×{} matrix, got {}×{}", d, d, p.lower.rows(), p.lower.cols()));
  if (p.rank > d) throw Error(fmt::format("/sampler/preconditioner/rank: expected at most d = {}, got {}", d, p.rank));
  if (p.kind != Kind::diagonal && p.lower.size() == 0 && p.adapt_steps < least_adapt_steps(d))
    throw Error(fmt::format("/sampler/preconditioner/adapt_steps: a {}×{} covariance from the warm-up's second half needs "
                            "adapt_steps ≥ 2(d + 1) = {}, got {}", d, d, least_adapt_steps(d), p.adapt_steps));
  return chain_of(preconditioned::Sampler<S>{std::move(sampler), p.adapt_steps, p.scale, 1e-12, p.kind, p.lower, p.rank}, target,
                  std::move(x0), rng);
}

}  // namespace sgmcmc::run
