#pragma once
// SIGINT and SIGTERM during `run` and `resume`: the first asks the chains to stop (within 64 steps);
// the run then writes what it kept — a record with status "interrupted" that `resume` continues — and
// exits 128 + the signal. A second signal exits at once, removing the outputs' temporaries.
// The commands that keep nothing worth writing when stopped (convert, thin, sweep) exit at the first
// signal, removing the temporaries likewise (issue #40: `convert` left .NAME.nc.XXXXXX behind); a
// target is left as it was or complete (run::output::finish_all holds the signals while it renames).
// During set-up (before the chains' first step: reading the config, a record or data, generating data,
// the mode search) the first signal exits at once too, 128 + the signal, removing the temporaries and
// writing nothing: nothing has been drawn that a record could keep, and set-up polls no flag (a long
// CSV load or mode search made a signal wait until it ended). run::Options::sampling tells the two apart.
#include <atomic>

#include <signal.h>

namespace sgmcmc::cli::detail {

/// Set by the first signal; the run's stop flag (run::Options::stop).
std::atomic<bool>& interrupt_requested();
/// The signal that asked (0: none).
std::atomic<int>& interrupt_signal();
/// Set by the run as its chains start (run::Options::sampling); until then a signal exits at once.
std::atomic<bool>& sampling_started();

/// What the first signal does: ask the chains to stop (run, resume), or exit at once (the others).
enum class FirstSignal { stops_chains, exits };

/// Installs the handlers for its lifetime (and restores the previous ones).
class InterruptHandlers {
 public:
  explicit InterruptHandlers(FirstSignal first = FirstSignal::stops_chains);
  InterruptHandlers(const InterruptHandlers&) = delete;
  InterruptHandlers& operator=(const InterruptHandlers&) = delete;
  ~InterruptHandlers();

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

}  // namespace sgmcmc::cli::detail
