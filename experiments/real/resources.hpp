#pragma once
// Peak resident memory of this process (Linux: VmHWM in /proc/self/status), for docs/benchmarks.md.
#include <fstream>
#include <string>

namespace sgmcmc::experiments {

inline double peak_rss_mb() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmHWM:") {
      double kb = 0;
      in >> kb;
      return kb / 1024.0;
    }
    std::getline(in, key);
  }
  return 0.0;
}

}  // namespace sgmcmc::experiments
