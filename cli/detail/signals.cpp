// The command line's signal handlers (cli/detail/signals.hpp).
#include <sgmcmc/cli/detail/signals.hpp>

#include <unistd.h>

#include <sgmcmc/run/output/atomic_file.hpp>

namespace sgmcmc::cli::detail {

std::atomic<bool>& interrupt_requested() {
  static std::atomic<bool> flag{false};
  return flag;
}
std::atomic<int>& interrupt_signal() {
  static std::atomic<int> sig{0};
  return sig;
}
std::atomic<bool>& sampling_started() {
  static std::atomic<bool> flag{false};
  return flag;
}

namespace {
std::atomic<bool> exit_at_first{false};

void on_interrupt(int sig) {
  // A second signal, a command that keeps nothing when stopped, or set-up (nothing drawn yet): at once.
  if (interrupt_signal().exchange(sig) != 0 || exit_at_first.load() || !sampling_started().load()) {
    run::detail::Temporaries::instance().remove_all_now();
    ::_exit(128 + sig);
  }
  interrupt_requested().store(true);
}
}  // namespace

InterruptHandlers::InterruptHandlers(FirstSignal first) {
  exit_at_first.store(first == FirstSignal::exits);
  interrupt_requested().store(false);
  interrupt_signal().store(0);
  sampling_started().store(false);
  (void)run::detail::Temporaries::instance();  // constructed before any signal can need it
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, &old_int_);
  ::sigaction(SIGTERM, &action, &old_term_);
}
InterruptHandlers::~InterruptHandlers() {
  ::sigaction(SIGINT, &old_int_, nullptr);
  ::sigaction(SIGTERM, &old_term_, nullptr);
}

}  // namespace sgmcmc::cli::detail
