#pragma once
// The progress display a run draws on stderr (Options::progress; the command line turns it on only
// when stderr is a terminal), from a thread of its own: one line, redrawn in place, never wider than
// the terminal (a wider line wraps, and every redraw would then scroll a new line).
#include <atomic>
#include <cstdint>
#include <deque>
#include <string>
#include <thread>
#include <vector>

namespace sgmcmc::run::detail {

/// What the run loop shares with the display: per chain, the steps done since the display began
/// (the chain's Progress counter) and whether it stopped with an error.
struct ChainProgress {
  std::atomic<std::uint64_t> steps{0};
  std::atomic<bool> failed{false};
};

/// A chain as the display sees it: where it started and ends (global steps) and the config's burn-in.
struct ChainSpan {
  std::uint64_t start = 0, end = 0;
};

/// One moment of a run, from which a line is made (plain values: the line is a pure function of it).
struct ProgressSnapshot {
  std::uint64_t done = 0, total = 0;  ///< steps done and to do, over the chains this process steps
  double seconds = 0;                 ///< since the display began
  double rate = 0;                    ///< steps per second, over the last few seconds (0: not known yet)
  unsigned burn_in = 0, sampling = 0, finished = 0, failed = 0;  ///< chains in each state
};

/// The display's line for `s`, at most `width` − 1 characters (the last column left empty: a terminal
/// wraps when a line fills it). Parts are dropped from the least useful (the bar, then the chains'
/// states, the rate) until the line fits; the percentage always stays.
std::string progress_line(const ProgressSnapshot& s, int width);

/// `1.2k`, `34M`: a count in at most 4 characters plus a suffix.
std::string short_count(double n);
/// `0:42`, `1:02:03`; `--:--` when unknown.
std::string clock_time(double seconds);

/// The terminal's width in columns (stderr's, else $COLUMNS, else 80).
int terminal_width();

/// Redraws the line every 200 ms until destroyed, then the last state and a newline; nothing when
/// `on` is false or there is nothing to do. `chains[i]` and `spans[i]` describe chain i; a chain whose
/// span is empty (another MPI rank's) is not shown. `burn_in` is the config's.
class ProgressDisplay {
 public:
  ProgressDisplay(bool on, const std::vector<ChainProgress>& chains, std::vector<ChainSpan> spans, std::uint64_t burn_in);

 private:
  std::jthread thread_;
};

/// The display's state between redraws: recent (time, steps) pairs for the rate.
class RateWindow {
 public:
  explicit RateWindow(double span_seconds = 5.0) : span_(span_seconds) {}
  /// Adds a sample and returns steps per second over the last `span` seconds (0 until two samples).
  double add(double seconds, std::uint64_t done);

 private:
  double span_;
  std::deque<std::pair<double, std::uint64_t>> samples_;
};

}  // namespace sgmcmc::run::detail
