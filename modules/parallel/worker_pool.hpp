#pragma once
// The library's one threading mechanism: a persistent pool of worker threads, used for parallel chains
// (run/), data-parallel gradients (the neural net's batch parts) and per-document loops (SAM's θ draws):
// the threads are created once and woken per call, so a gradient pays a condition-variable wake-up, not
// thread creation (which made the old per-call std::thread version slower on 2 threads than on 1).
//
// for_each(n, fn) calls fn(i, worker) for every i in [0, n) exactly once, on `size()` threads (the caller
// is worker 0). Indices are handed out dynamically (an atomic counter), so a worker slowed by a busy
// neighbour process takes fewer of them; a caller whose results must not depend on the thread count
// must make fn(i, ·) depend on i alone (SAM seeds document i's stream by i and keeps only per-worker
// scratch that each call overwrites). No allocation per call. The first exception thrown by fn is
// rethrown by for_each after every worker has stopped; the remaining indices are then skipped.
//
// A thread that cannot be started (the machine's or the user's limit on threads) is an sgmcmc::Error
// from the constructor, naming how many were asked and started, after the started ones are stopped
// and joined (before: std::terminate on the joinable threads, or a process hung for ever).
//
// Not reentrant: one for_each at a time per pool (one pool per model object, one model per chain).
// WorkerPoolSlot holds a pool lazily and gives every copy of its owner a fresh (empty) slot, so copied
// models never share threads.
#include <algorithm>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::parallel {

/// For its lifetime, the calling thread blocks the signals meant for the whole process — SIGINT,
/// SIGTERM, SIGHUP, SIGQUIT — so that a thread it starts inherits them blocked. The kernel hands such a
/// signal to any thread that does not block it; started this way, helper threads (the pool's workers,
/// a progress display) leave them to the thread that made them, whose handler may hold them while it
/// does what must not be split (run::output::finish_all renames every output under one mask).
class ProcessSignalsBlocked {
 public:
  ProcessSignalsBlocked() {
    sigset_t block;
    sigemptyset(&block);
    for (const int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&block, s);
    ::pthread_sigmask(SIG_BLOCK, &block, &old_);
  }
  ProcessSignalsBlocked(const ProcessSignalsBlocked&) = delete;
  ProcessSignalsBlocked& operator=(const ProcessSignalsBlocked&) = delete;
  ~ProcessSignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

 private:
  sigset_t old_{};
};

/// The most threads a run starts at once (chains × each chain's own, e.g. a neural net's parts): four
/// per core of this machine, at least 64. More only slow CPU-bound work; far more filled the machine's
/// task table for every other process (issue #40: `"threads": 100000`).
inline unsigned thread_cap() { return std::max(64u, 4u * std::thread::hardware_concurrency()); }

class WorkerPool {
 public:
  /// A pool of `threads` workers in all: threads − 1 background threads plus the caller.
  explicit WorkerPool(unsigned threads) : size_(threads < 1 ? 1u : threads) {
    threads_.reserve(size_ - 1);
    const ProcessSignalsBlocked inherited;  // the workers leave process signals to this thread
    try {
      for (unsigned w = 1; w < size_; ++w) threads_.emplace_back([this, w] { loop(w); });
    } catch (const std::system_error& e) {
      const std::size_t started = threads_.size();
      stop();
      throw Error(fmt::format("could not start thread {} of {} ({}): the machine's (or the user's) limit on threads is reached; "
                              "use fewer threads or chains", started + 2, size_, e.what()));
    }
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  ~WorkerPool() { stop(); }

  unsigned size() const { return size_; }

  /// fn(i, worker) for i in [0, n); worker < size(). Blocks until all are done.
  template <class F>
  void for_each(std::size_t n, F& fn) {
    if (size_ <= 1 || n <= 1) {
      for (std::size_t i = 0; i < n; ++i) fn(i, 0u);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      n_ = n;
      next_.store(0, std::memory_order_relaxed);
      context_ = static_cast<void*>(&fn);
      call_ = [](void* c, std::size_t i, unsigned w) { (*static_cast<F*>(c))(i, w); };
      error_ = nullptr;
      running_ = size_ - 1;
      ++generation_;
    }
    wake_.notify_all();
    work(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return running_ == 0; });
    context_ = nullptr;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
  }
  void work(unsigned w) {
    for (;;) {
      const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed);
      if (i >= n_) return;
      try {
        call_(context_, i, w);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
        next_.store(n_, std::memory_order_relaxed);  // skip what is left
      }
    }
  }
  void loop(unsigned w) {
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
      }
      work(w);
      bool last = false;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        last = --running_ == 0;
      }
      if (last) done_.notify_one();
    }
  }

  unsigned size_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::uint64_t generation_ = 0;
  unsigned running_ = 0;
  bool stop_ = false;
  std::atomic<std::size_t> next_{0};
  std::size_t n_ = 0;
  void* context_ = nullptr;
  void (*call_)(void*, std::size_t, unsigned) = nullptr;
  std::exception_ptr error_;
};

/// A lazily created pool owned by a model object; copies start empty (their own threads on first use).
class WorkerPoolSlot {
 public:
  WorkerPoolSlot() = default;
  WorkerPoolSlot(const WorkerPoolSlot&) {}
  WorkerPoolSlot(WorkerPoolSlot&&) noexcept = default;
  WorkerPoolSlot& operator=(const WorkerPoolSlot&) {
    pool_.reset();
    return *this;
  }
  WorkerPoolSlot& operator=(WorkerPoolSlot&&) noexcept = default;

  /// The pool of `threads` workers, created (or re-created, if the count changed) on first use.
  WorkerPool& get(unsigned threads) {
    if (!pool_ || pool_->size() != threads) pool_ = std::make_unique<WorkerPool>(threads);
    return *pool_;
  }

 private:
  std::unique_ptr<WorkerPool> pool_;
};

}  // namespace sgmcmc::parallel
