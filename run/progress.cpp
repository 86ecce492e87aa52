// The progress bar (run/progress.hpp).
#include <sgmcmc/run/progress.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include <sgmcmc/modules/parallel/worker_pool.hpp>

namespace sgmcmc::run::detail {

namespace {
void draw(std::uint64_t n, std::uint64_t total, double secs) {
  const double f = std::min(1.0, static_cast<double>(n) / static_cast<double>(total));
  const int width = 30, filled = static_cast<int>(f * width);
  std::fprintf(stderr, "\r[%s%s] %3d%% %llu/%llu steps %.1fs", std::string(static_cast<std::size_t>(filled), '#').c_str(),
               std::string(static_cast<std::size_t>(width - filled), ' ').c_str(), static_cast<int>(100 * f),
               static_cast<unsigned long long>(n), static_cast<unsigned long long>(total), secs);
  std::fflush(stderr);
}
}  // namespace

ProgressBar::ProgressBar(bool on, std::uint64_t total, const std::atomic<std::uint64_t>& count) {
  if (!on || total == 0) return;
  const parallel::ProcessSignalsBlocked inherited;  // the display leaves SIGINT and SIGTERM to the run's thread
  thread_ = std::jthread([&count, total](std::stop_token stop) {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
    while (!stop.stop_requested()) {
      draw(count.load(std::memory_order_relaxed), total, seconds());
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    draw(count.load(std::memory_order_relaxed), total, seconds());
    std::fputc('\n', stderr);
  });
}

}  // namespace sgmcmc::run::detail
