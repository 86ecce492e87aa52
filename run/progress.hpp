#pragma once
// The progress bar a run draws on stderr (Options::progress), from a thread of its own.
#include <atomic>
#include <cstdint>
#include <thread>

namespace sgmcmc::run::detail {

/// Redraws the bar from `count` of `total` steps every 200 ms until destroyed; nothing when `on` is
/// false or there is nothing to do.
class ProgressBar {
 public:
  ProgressBar(bool on, std::uint64_t total, const std::atomic<std::uint64_t>& count);

 private:
  std::jthread thread_;
};

}  // namespace sgmcmc::run::detail
