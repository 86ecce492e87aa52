// The progress display (run/progress.hpp).
#include <sgmcmc/run/progress.hpp>

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include <sgmcmc/modules/parallel/worker_pool.hpp>

namespace sgmcmc::run::detail {

std::string short_count(double n) {
  static constexpr const char* suffix[] = {"", "k", "M", "G", "T", "P", "E"};
  int k = 0;
  while (n >= 999.5 && k < 6) {
    n /= 1000;
    ++k;
  }
  if (k == 0) return fmt::format("{:.0f}", n);
  return n < 9.95 ? fmt::format("{:.1f}{}", n, suffix[k]) : fmt::format("{:.0f}{}", n, suffix[k]);
}

std::string clock_time(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0 || seconds > 360000 * 99.0) return "--:--";
  const auto s = static_cast<long long>(std::llround(seconds));
  if (s < 3600) return fmt::format("{}:{:02}", s / 60, s % 60);
  return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
}

double RateWindow::add(double seconds, std::uint64_t done) {
  samples_.emplace_back(seconds, done);
  while (samples_.size() > 2 && samples_.front().first < seconds - span_) samples_.pop_front();
  const auto& [t0, n0] = samples_.front();
  if (samples_.size() < 2 || seconds <= t0) return 0;
  return static_cast<double>(done - n0) / (seconds - t0);
}

std::string progress_line(const ProgressSnapshot& s, int width) {
  const double f = s.total ? std::min(1.0, static_cast<double>(s.done) / static_cast<double>(s.total)) : 1.0;
  const std::string head = fmt::format("{:3d}% {}/{} steps", static_cast<int>(100 * f), short_count(static_cast<double>(s.done)),
                                       short_count(static_cast<double>(s.total)));
  const bool over = s.done >= s.total;
  const std::string eta = over ? fmt::format("{} elapsed", clock_time(s.seconds))
                               : fmt::format("ETA {}", s.rate > 0 ? clock_time(static_cast<double>(s.total - s.done) / s.rate) : "--:--");
  const std::string rate = s.rate > 0 ? fmt::format("{} steps/s", short_count(s.rate)) : std::string();
  std::string states;
  const auto add_state = [&](unsigned n, const char* what) {
    if (n) states += fmt::format("{}{} {}", states.empty() ? "" : ", ", n, what);
  };
  add_state(s.burn_in, "burn-in");
  add_state(s.sampling, "sampling");
  add_state(s.finished, "done");
  add_state(s.failed, "failed");
  // The parts in the order shown, each with its priority (higher stays longer).
  struct Part {
    std::string text;
    int priority;
  };
  std::vector<Part> parts = {{head, 5}, {eta, 4}, {rate, 2}, {states, 3}};
  const int room = std::max(0, width - 1);
  const auto length = [&](int bar) {
    int n = bar > 0 ? bar + 3 : 0;  // "[" bar "] "
    bool first = true;
    for (const auto& p : parts)
      if (!p.text.empty()) {
        n += static_cast<int>(p.text.size()) + (first ? 0 : 3);  // " | "
        first = false;
      }
    return n;
  };
  for (int priority = 1; priority <= 4 && length(0) > room; ++priority)
    for (auto& p : parts)
      if (p.priority == priority) p.text.clear();
  const int bar = std::min(30, room - length(0) - 3);
  std::string line;
  if (bar >= 10) {
    const int filled = static_cast<int>(f * bar);
    line = fmt::format("[{}{}] ", std::string(static_cast<std::size_t>(filled), '#'), std::string(static_cast<std::size_t>(bar - filled), '.'));
  }
  bool first = true;
  for (const auto& p : parts)
    if (!p.text.empty()) {
      line += (first ? "" : " | ") + p.text;
      first = false;
    }
  if (static_cast<int>(line.size()) > room && length(0) > room) line.resize(static_cast<std::size_t>(room));  // the head alone is too wide
  return line;
}

int terminal_width() {
  winsize w{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    const int n = std::atoi(c);
    if (n > 0 && n < 10000) return n;
  }
  return 80;
}

namespace {

ProgressSnapshot snapshot(const std::vector<ChainProgress>& chains, const std::vector<ChainSpan>& spans, std::uint64_t burn_in) {
  ProgressSnapshot s;
  for (std::size_t i = 0; i < chains.size(); ++i) {
    const ChainSpan& span = spans[i];
    if (span.end <= span.start) continue;
    const std::uint64_t todo = span.end - span.start;
    const std::uint64_t done = std::min(todo, chains[i].steps.load(std::memory_order_relaxed));
    s.done += done;
    s.total += todo;
    const std::uint64_t at = span.start + done;
    if (chains[i].failed.load(std::memory_order_relaxed)) ++s.failed;
    else if (at >= span.end) ++s.finished;
    else if (at < burn_in) ++s.burn_in;
    else ++s.sampling;
  }
  return s;
}

void draw(const std::string& line) {
  // "\r" and erase-to-end-of-line: a shorter line leaves nothing of the previous one behind.
  std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
  std::fflush(stderr);
}

}  // namespace

ProgressDisplay::ProgressDisplay(bool on, const std::vector<ChainProgress>& chains, std::vector<ChainSpan> spans, std::uint64_t burn_in) {
  if (!on || snapshot(chains, spans, burn_in).total == 0) return;
  const parallel::ProcessSignalsBlocked inherited;  // the display leaves SIGINT and SIGTERM to the run's thread
  thread_ = std::jthread([&chains, spans = std::move(spans), burn_in](std::stop_token stop) {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    RateWindow window;
    const auto redraw = [&] {
      ProgressSnapshot s = snapshot(chains, spans, burn_in);
      s.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
      s.rate = window.add(s.seconds, s.done);
      draw(progress_line(s, terminal_width()));
    };
    while (!stop.stop_requested()) {
      redraw();
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    redraw();
    std::fputc('\n', stderr);
  });
}

}  // namespace sgmcmc::run::detail
