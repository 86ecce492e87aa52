// What a data-parallel step costs in communication against computation, measured on this machine for
// the scaling model of docs/benchmarks.md ("MPI"): run as `mpirun -np 2 bench_mpi_comm` (rank 0 prints
// JSON lines; scripts/bench_mpi.sh runs it and fits the model).
//   - ping-pong between ranks 0 and 1 for messages of 8 B to 8 MiB: the one-way time t(s) = α + β·s;
//   - the chain group's reduction of a d-vector (run/distributed/mpi.hpp's group_sum: an allgather and
//     an in-order sum, the same bits on every rank) and, for comparison, MPI_Allreduce, for d = 50 and
//     d = 1000;
//   - one shard's part of a logistic-regression minibatch gradient (models::LogisticRegression's batched
//     path) for m examples at d = 50, from a shard of 10⁴ examples (in cache) and of 10⁶ (400 MB: every
//     row a cache miss, as at N = 10⁷ and beyond);
//   - the batch's indices at N = 10⁷, which every rank of a group computes whole.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/models/logistic.hpp>
#include <sgmcmc/models/minibatch.hpp>
#include <sgmcmc/run/distributed/mpi.hpp>

using namespace sgmcmc;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Repeats `f` until it has taken at least `budget` seconds (and at least 10 times); the mean time of one.
template <class F>
double time_per_call(F&& f, double budget, MPI_Comm comm) {
  int reps = 10;
  for (;;) {
    MPI_Barrier(comm);
    const auto t0 = Clock::now();
    for (int i = 0; i < reps; ++i) f();
    double t = seconds(t0);
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, comm);  // every rank decides alike
    if (t >= budget) return t / reps;
    reps *= 4;
  }
}

}  // namespace

int main(int argc, char** argv) {
  run::distributed::Session session(argc, argv);
  run::distributed::MpiTransport transport;
  const int rank = transport.rank(), size = transport.size();
  if (size < 2) {
    if (rank == 0) std::fprintf(stderr, "bench_mpi_comm: run with mpirun -np 2 (or more)\n");
    return 2;
  }
  // Ping-pong 0 <-> 1.
  for (std::size_t bytes = 8; bytes <= (std::size_t{8} << 20); bytes *= 4) {
    std::vector<char> buf(bytes);
    const double t = time_per_call(
        [&] {
          if (rank == 0) {
            MPI_Send(buf.data(), static_cast<int>(bytes), MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf.data(), static_cast<int>(bytes), MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          } else if (rank == 1) {
            MPI_Recv(buf.data(), static_cast<int>(bytes), MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf.data(), static_cast<int>(bytes), MPI_BYTE, 0, 0, MPI_COMM_WORLD);
          }
        },
        0.2, MPI_COMM_WORLD);
    if (rank == 0) std::printf("{\"kind\":\"pingpong\",\"bytes\":%zu,\"one_way_seconds\":%.9g}\n", bytes, t / 2);
  }
  // The group's reduction of a d-vector over all ranks, and MPI_Allreduce.
  const run::distributed::Shard shard = transport.shard(size);
  for (int d : {50, 1000}) {
    Eigen::VectorXd v = Eigen::VectorXd::Constant(d, 1.0 + rank), w(d);
    const double ours = time_per_call([&] { shard.sum(v); v.setConstant(1.0 + rank); }, 0.2, MPI_COMM_WORLD);
    const double allreduce = time_per_call(
        [&] { MPI_Allreduce(v.data(), w.data(), d, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); }, 0.2, MPI_COMM_WORLD);
    if (rank == 0)
      std::printf("{\"kind\":\"reduce\",\"ranks\":%d,\"d\":%d,\"group_sum_seconds\":%.9g,\"allreduce_seconds\":%.9g}\n", size, d,
                  ours, allreduce);
  }
  // One shard's gradient part, on rank 0 alone (the others wait).
  if (rank == 0) {
    for (std::size_t rows : {std::size_t{10'000}, std::size_t{1'000'000}}) {
      auto data = std::make_shared<const data::Dataset<double>>(data::synthetic_logistic_rows(0, rows, rows, 50, 1).data);
      models::LogisticRegression model{data, 1.0};
      const Eigen::VectorXd theta = Eigen::VectorXd::Constant(50, 0.01);
      Eigen::VectorXd g(50);
      std::vector<std::size_t> idx;
      std::uint64_t b = 0;
      for (std::size_t m : {std::size_t{25}, std::size_t{50}, std::size_t{100}, std::size_t{1000}, std::size_t{10000}}) {
        const double t = time_per_call(
            [&] {
              models::batch_indices(b++, m, rows, models::Sampling::with_replacement, 7, 0, idx);
              g.setZero();
              model.add_batch_gradient(theta, idx, g, 1.0);
            },
            0.2, MPI_COMM_SELF);
        std::printf("{\"kind\":\"gradient\",\"shard_rows\":%zu,\"d\":50,\"batch\":%zu,\"seconds\":%.9g}\n", rows, m, t);
      }
    }
  }
  // The batch's indices, which every rank of a group computes in full (the same batch everywhere): the
  // part of a step that does not shrink with R. Without replacement (the default) a keyed permutation
  // of N = 10⁷ is evaluated per index; with replacement one Philox block.
  if (rank == 0) {
    std::vector<std::size_t> idx;
    std::uint64_t b = 0;
    for (const auto sampling : {models::Sampling::without_replacement, models::Sampling::with_replacement}) {
      const double t = time_per_call([&] { models::batch_indices(b++, 10000, 10'000'000, sampling, 7, 0, idx); }, 0.2, MPI_COMM_SELF);
      std::printf("{\"kind\":\"indices\",\"with_replacement\":%s,\"N\":10000000,\"batch\":10000,\"seconds\":%.9g}\n",
                  sampling == models::Sampling::with_replacement ? "true" : "false", t);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return 0;
}
