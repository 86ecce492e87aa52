// The progress display (run/progress.hpp): its line at every terminal width, and the display as a
// terminal shows it (under script(1), which gives the run a pseudo-terminal) or not at all.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <sgmcmc/run/progress.hpp>

#include "../support/cli.hpp"

namespace test_cli_progress {

using namespace sgmcmc::run::detail;
using namespace sgmcmc_test::cli;

ProgressSnapshot mid_run() {
  ProgressSnapshot s;
  s.done = 1'234'567;
  s.total = 4'000'000;
  s.seconds = 10;
  s.rate = 123'456.7;
  s.burn_in = 2;
  s.sampling = 1;
  s.finished = 1;
  return s;
}

TEST_CASE("progress line: rate, ETA and the chains' states; never as wide as the terminal") {
  const ProgressSnapshot s = mid_run();
  const std::string wide = progress_line(s, 200);
  // Catches a display without rate, ETA or burn-in/sampling (the complaint), or a wrong ETA:
  // (4e6 − 1234567) / 123456.7 = 22.4 s.
  CHECK(wide == "[#########.....................]  30% 1.2M/4.0M steps | ETA 0:22 | 123k steps/s | "
                "2 burn-in, 1 sampling, 1 done");
  // Catches a line that fills or passes the last column at any width (the terminal then wraps and
  // every redraw scrolls), and a narrow terminal losing the percentage.
  for (int width = 1; width <= 200; ++width) {
    const std::string line = progress_line(s, width);
    CHECK(static_cast<int>(line.size()) <= std::max(0, width - 1));
    if (width > 20) CHECK(line.find("30%") != std::string::npos);
  }
  // What goes first when it does not fit: the bar, then the rate, then the chains; the ETA stays.
  // 78 characters: the whole line fits a 79-column terminal without the bar; at 78 it loses the rate,
  // which leaves room for a bar of 77 − 63 − 3 = 11.
  CHECK(progress_line(s, 79) == " 30% 1.2M/4.0M steps | ETA 0:22 | 123k steps/s | 2 burn-in, 1 sampling, 1 done");
  CHECK(progress_line(s, 78) == "[###........]  30% 1.2M/4.0M steps | ETA 0:22 | 2 burn-in, 1 sampling, 1 done");
  CHECK(progress_line(s, 64) == " 30% 1.2M/4.0M steps | ETA 0:22 | 2 burn-in, 1 sampling, 1 done");
  // Without the chains' states the line is 31 characters: room for a bar of 62 − 31 − 3 = 28, 30 % of it filled.
  CHECK(progress_line(s, 63) == "[########....................]  30% 1.2M/4.0M steps | ETA 0:22");
  CHECK(progress_line(s, 40) == " 30% 1.2M/4.0M steps | ETA 0:22");
}

TEST_CASE("progress line: unknown rate, a finished run and a failed chain") {
  ProgressSnapshot s = mid_run();
  s.rate = 0;
  CHECK(progress_line(s, 60).find("ETA --:--") != std::string::npos);
  s.done = s.total;
  s.burn_in = s.sampling = 0;
  s.finished = 3;
  s.failed = 1;
  s.seconds = 3725;
  CHECK(progress_line(s, 120) == "[##############################] 100% 4.0M/4.0M steps | 1:02:05 elapsed | 3 done, 1 failed");
}

TEST_CASE("short counts, clock times and the rate window") {
  CHECK(short_count(0) == "0");
  CHECK(short_count(999) == "999");
  CHECK(short_count(1000) == "1.0k");
  CHECK(short_count(12'345) == "12k");
  CHECK(short_count(2.5e9) == "2.5G");
  CHECK(clock_time(59.4) == "0:59");
  CHECK(clock_time(3600) == "1:00:00");
  CHECK(clock_time(-1) == "--:--");
  RateWindow w(5);
  CHECK(w.add(0, 0) == 0);           // one sample: no rate yet
  CHECK(w.add(1, 100) == 100);
  CHECK(w.add(2, 400) == 200);       // (400 − 0) / 2
  CHECK(w.add(10, 1200) == 100);     // samples older than 5 s dropped: (1200 − 400) / 8 (the oldest kept is at t = 2)
}

TEST_CASE("the display in a terminal, and nothing when stderr is not one") {
  const auto dir = scratch_dir("cli_progress");
  write_json(dir, "c.json", {{"sampler", {{"name", "sgld"}, {"step_size", 0.1}}},
                             {"target", {{"name", "gaussian"}, {"mean", {0}}}},
                             {"steps", 1'000'000}, {"burn_in", 1000}, {"thin", 1000}, {"chains", 2}, {"seed", 1}});
  // Not a terminal (stderr a file): no carriage returns, no escape codes.
  const Result plain = run_cli_in(dir, "run c.json -o plain.json");
  REQUIRE(plain.code == 0);
  CHECK(plain.err.find('\r') == std::string::npos);
  CHECK(plain.err.find('\x1b') == std::string::npos);
  // A 50-column pseudo-terminal: every redraw fits in 49 columns, and the last one says the run is done.
  const Result tty = run_cli_after(dir, "cd '" + dir.string() + "' && COLUMNS=50 script -qfec \"stty cols 50 2>/dev/null;",
                                   "run c.json -o tty.json\" /dev/null");
  REQUIRE(tty.code == 0);
  std::vector<std::string> redraws;
  std::string text = tty.out + tty.err;
  for (std::size_t at = text.find('\r'); at != std::string::npos; at = text.find('\r', at + 1)) {
    const std::size_t end = text.find('\x1b', at);
    if (end != std::string::npos) redraws.push_back(text.substr(at + 1, end - at - 1));
  }
  REQUIRE(!redraws.empty());
  for (const auto& r : redraws) CHECK(r.size() <= 49);
  CHECK(redraws.back().find("100%") != std::string::npos);
  CHECK(redraws.back().find("elapsed") != std::string::npos);
}

}  // namespace test_cli_progress
