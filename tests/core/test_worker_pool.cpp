// parallel::WorkerPool's workers leave the process's signals to the thread that made the pool: a signal
// handler that holds SIGINT/SIGTERM while it renames a set of outputs (run::output::finish_all) holds
// them in its own thread only, and the kernel would otherwise hand one to any worker (issue #40, H12).
// Catches: workers started with the creator's mask as it was (SIGINT deliverable to them), or the
// creator's mask left changed after the pool is built.
#include <doctest/doctest.h>

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <thread>
#include <vector>

#include <sgmcmc/modules/parallel/worker_pool.hpp>

namespace test_worker_pool {  // this file's names: its group compiles as one translation unit (tests/CMakeLists.txt)

namespace {

bool blocks(int sig) {
  sigset_t now;
  ::pthread_sigmask(SIG_BLOCK, nullptr, &now);
  return sigismember(&now, sig) == 1;
}

}  // namespace

TEST_CASE("worker pool: the workers block SIGINT, SIGTERM, SIGHUP and SIGQUIT; the caller's mask is kept") {
  REQUIRE_FALSE(blocks(SIGINT));
  REQUIRE_FALSE(blocks(SIGTERM));
  sgmcmc::parallel::WorkerPool pool(4);
  CHECK_FALSE(blocks(SIGINT));  // the creator takes them as before
  CHECK_FALSE(blocks(SIGTERM));
  std::vector<int> all_blocked(64, -1), on_worker(64, -1);
  auto fn = [&](std::size_t i, unsigned worker) {
    on_worker[i] = static_cast<int>(worker);
    all_blocked[i] = blocks(SIGINT) && blocks(SIGTERM) && blocks(SIGHUP) && blocks(SIGQUIT);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // so that the background workers take some
  };
  pool.for_each(all_blocked.size(), fn);
  int by_workers = 0;
  for (std::size_t i = 0; i < all_blocked.size(); ++i) {
    if (on_worker[i] == 0) {
      CHECK(all_blocked[i] == 0);  // the caller, worker 0, is the creator
    } else {
      CHECK(all_blocked[i] == 1);
      ++by_workers;
    }
  }
  CHECK(by_workers > 0);  // 64 calls of 2 ms: the three background workers take most of them
}

}  // namespace test_worker_pool
