// The configurational bias of each splitting scheme against the step size on N(0, 1) with exact
// gradients (issue #39 item 3; the table in docs/math.md#leimkuhler-matthews-baoab): E[x²] - 1, which on
// this target is also the configurational temperature's bias ⟨x·∇U⟩ - 1. Measured by SGHMC (C = 1) over
// a fixed simulated time per cell (10⁷), with its batch-means Monte Carlo standard error, beside the exact
// stationary value of the scheme's linear recurrence (discrete Lyapunov equation).
//   cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release -DSGMCMC_BUILD_EXPERIMENTS=ON && ninja -C build scheme_bias && build/experiments/scheme_bias
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include <Eigen/Dense>

#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/modules/diagnostics/testing.hpp>
#include <sgmcmc/modules/random/stream.hpp>
#include <sgmcmc/modules/splitting/scheme.hpp>
#include <sgmcmc/samplers/sghmc.hpp>

using namespace sgmcmc;

namespace {

// U = x²/2, exact gradient.
struct StandardNormal {
  template <class R> void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R&) const { g = x; }
};

// The exact stationary E[x²] of one step of `scheme` on U = x²/2 (z = (x, v) <- M z + N(0, S)).
double exact_x2(const splitting::StageList& scheme, double C, double h) {
  Eigen::Matrix2d M = Eigen::Matrix2d::Identity(), S = Eigen::Matrix2d::Zero();
  for (const Stage& st : scheme.stages()) {
    const double t = st.fraction * h, c = std::exp(-C * t);
    Eigen::Matrix2d T = Eigen::Matrix2d::Identity(), N = Eigen::Matrix2d::Zero();
    switch (st.op) {
      case Op::A: T(0, 1) = t; break;
      case Op::B: T(1, 1) = c; break;
      case Op::B_explicit: T(1, 1) = 1 - C * t; break;
      case Op::O: T(1, 0) = -t, N(1, 1) = 2 * C * t; break;
      case Op::gradient_kick: T(1, 0) = -t; break;
      case Op::exact_ou: T(1, 1) = c, N(1, 1) = 1 - c * c; break;
    }
    M = (T * M).eval();
    S = (T * S * T.transpose() + N).eval();
  }
  return testing::discrete_lyapunov(M, S)(0, 0);
}

}  // namespace

int main() {
  const double C = 1.0, time = 1e7;  // simulated time per cell: MCSE ≈ 0.0006
  const double hs[] = {0.25, 0.5, 1.0, 1.5};
  std::printf("| scheme | gradients/step |");
  for (double h : hs) std::printf(" h = %g |", h);
  std::printf("\n|---|---|");
  for (std::size_t i = 0; i < std::size(hs); ++i) std::printf("---|");
  std::printf("\n");
  std::uint64_t stream = 0;  // a stream of its own per cell: the cells' errors independent
  for (const splitting::StageList& scheme : {splitting::aboba, splitting::baoab, splitting::obabo, splitting::euler, splitting::lm_baoab}) {
    std::printf("| `%s` | %d |", std::string(scheme.name).c_str(), scheme.name == "obabo" || scheme.name == "lm_baoab" ? 2 : 1);
    for (double h : hs) {
      const sghmc::Sampler<Euclidean> smp{{Euclidean(1), sghmc::Friction(C), 0.0}, scheme, schedule::StepSize::constant(h)};
      random::Stream rng(2026, stream++);
      auto s = smp.init(Eigen::VectorXd::Zero(1), rng);
      const long burn = static_cast<long>(50 / h), steps = static_cast<long>(time / h);
      for (long k = 0; k < burn; ++k) smp.step(s, StandardNormal{}, rng, 0);
      testing::BatchMeans x2(steps, 100);
      bool finite = true;
      for (long k = 0; k < steps && finite; ++k) {
        smp.step(s, StandardNormal{}, rng, 0);
        x2.add(s.x[0] * s.x[0]);
        finite = std::isfinite(s.x[0]);
      }
      const double exact = exact_x2(scheme, C, h) - 1;
      if (!finite || !std::isfinite(exact) || exact < -1) {
        std::printf(" unstable |");
        continue;
      }
      const auto e = x2.result();
      std::printf(" %+.4f ± %.4f (exact %+.4f) |", e.mean - 1, e.se, exact);
      std::fflush(stdout);
    }
    std::printf("\n");
  }
}
