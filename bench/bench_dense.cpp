// The fixed-order dense kernel (modules/dense/product.hpp) against the products a good engineer would
// otherwise call, on the BNN's two large products (issue #16): the forward XᵀW1 (500×784 by 784×100,
// X column-major so its transpose is read row by row) and the backward X δA (784×500 by 500×100,
// accumulated into the gradient), in float and double.
//
// Baselines, in the same run: Eigen 3.4's product (`noalias()`, what the library used before), and
// OpenBLAS's sgemm/dgemm — the BLAS PyTorch calls — loaded from Debian's libblas.so.3 alternative when
// it is OpenBLAS (dlopen, so nothing is linked; skipped, with a message, when it is not there). Run
// OpenBLAS with OPENBLAS_CORETYPE set for the CPU (SkylakeX on AVX-512) and OPENBLAS_NUM_THREADS=1, as
// scripts/bench.sh does: 0.3.21 does not recognise newer CPUs and would fall back to a generic kernel.
// Counter `gflops`: 2·m·n·k per call over the real time.
#include <benchmark/benchmark.h>

#include <dlfcn.h>

#include <cstdio>
#include <random>

#include <Eigen/Core>

#include <sgmcmc/modules/dense/product.hpp>

namespace {

using Eigen::Index;
template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

constexpr Index examples = 500, inputs = 784, hidden = 100;

template <class T>
Mat<T> uniform(Index rows, Index cols, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Mat<T> m(rows, cols);
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<T>(u(g));
  return m;
}

// cblas_?gemm(order, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc), column-major = 102.
using Sgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
using Dgemm = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double, double*, int);
constexpr int col_major = 102, no_trans = 111, trans = 112;

struct Blas {
  Sgemm sgemm = nullptr;
  Dgemm dgemm = nullptr;
  Blas() {
    void* h = dlopen("libblas.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!h || !dlsym(h, "openblas_get_config")) {
      std::fprintf(stderr, "bench_dense: libblas.so.3 is not OpenBLAS (install libopenblas0-pthread): OpenBLAS rows skipped\n");
      return;
    }
    sgemm = reinterpret_cast<Sgemm>(dlsym(h, "cblas_sgemm"));
    dgemm = reinterpret_cast<Dgemm>(dlsym(h, "cblas_dgemm"));
    using Config = const char* (*)();
    std::fprintf(stderr, "bench_dense: OpenBLAS %s\n", reinterpret_cast<Config>(dlsym(h, "openblas_get_config"))());
  }
  template <class T>
  void gemm(bool transpose_a, Index m, Index n, Index k, const T* a, Index lda, const T* b, Index ldb, T beta, T* c, Index ldc) const {
    const int ta = transpose_a ? trans : no_trans;
    if constexpr (std::is_same_v<T, float>)
      sgemm(col_major, ta, no_trans, int(m), int(n), int(k), 1.0f, a, int(lda), b, int(ldb), beta, c, int(ldc));
    else
      dgemm(col_major, ta, no_trans, int(m), int(n), int(k), 1.0, a, int(lda), b, int(ldb), beta, c, int(ldc));
  }
  template <class T>
  bool has() const {
    return std::is_same_v<T, float> ? sgemm != nullptr : dgemm != nullptr;
  }
};
const Blas& blas() {
  static const Blas b;
  return b;
}

enum class Way { eigen, kernel, openblas };

/// Forward: Z (500×100) = Xᵀ W1, X 784×500.
template <class T, Way way>
void BM_Forward(benchmark::State& state) {
  if (way == Way::openblas && !blas().has<T>()) return state.SkipWithError("no OpenBLAS");
  const Mat<T> x = uniform<T>(inputs, examples, 1), w = uniform<T>(inputs, hidden, 2);
  Mat<T> z(examples, hidden);
  for (auto _ : state) {
    if constexpr (way == Way::eigen) z.noalias() = x.transpose() * w;
    else if constexpr (way == Way::kernel) sgmcmc::dense::multiply(z, x.transpose(), w);
    else blas().gemm<T>(true, examples, hidden, inputs, x.data(), inputs, w.data(), inputs, T(0), z.data(), examples);
    benchmark::DoNotOptimize(z.data());
    benchmark::ClobberMemory();
  }
  state.counters["gflops"] = benchmark::Counter(2e-9 * examples * hidden * inputs, benchmark::Counter::kIsIterationInvariantRate);
}

/// Backward: G (784×100) += X δA, δA 500×100.
template <class T, Way way>
void BM_Backward(benchmark::State& state) {
  if (way == Way::openblas && !blas().has<T>()) return state.SkipWithError("no OpenBLAS");
  const Mat<T> x = uniform<T>(inputs, examples, 1), da = uniform<T>(examples, hidden, 3);
  Mat<T> g = Mat<T>::Zero(inputs, hidden);
  for (auto _ : state) {
    if constexpr (way == Way::eigen) g.noalias() += x * da;
    else if constexpr (way == Way::kernel) sgmcmc::dense::multiply_add(g, x, da);
    else blas().gemm<T>(false, inputs, hidden, examples, x.data(), inputs, da.data(), examples, T(1), g.data(), inputs);
    benchmark::DoNotOptimize(g.data());
    benchmark::ClobberMemory();
  }
  state.counters["gflops"] = benchmark::Counter(2e-9 * examples * hidden * inputs, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

BENCHMARK(BM_Forward<float, Way::eigen>)->Name("Forward/float/eigen")->UseRealTime();
BENCHMARK(BM_Forward<float, Way::kernel>)->Name("Forward/float/kernel")->UseRealTime();
BENCHMARK(BM_Forward<float, Way::openblas>)->Name("Forward/float/openblas")->UseRealTime();
BENCHMARK(BM_Backward<float, Way::eigen>)->Name("Backward/float/eigen")->UseRealTime();
BENCHMARK(BM_Backward<float, Way::kernel>)->Name("Backward/float/kernel")->UseRealTime();
BENCHMARK(BM_Backward<float, Way::openblas>)->Name("Backward/float/openblas")->UseRealTime();
BENCHMARK(BM_Forward<double, Way::eigen>)->Name("Forward/double/eigen")->UseRealTime();
BENCHMARK(BM_Forward<double, Way::kernel>)->Name("Forward/double/kernel")->UseRealTime();
BENCHMARK(BM_Forward<double, Way::openblas>)->Name("Forward/double/openblas")->UseRealTime();
BENCHMARK(BM_Backward<double, Way::eigen>)->Name("Backward/double/eigen")->UseRealTime();
BENCHMARK(BM_Backward<double, Way::kernel>)->Name("Backward/double/kernel")->UseRealTime();
BENCHMARK(BM_Backward<double, Way::openblas>)->Name("Backward/double/openblas")->UseRealTime();
BENCHMARK_MAIN();
