#pragma once
// How a run is carried out (threads, progress, interruption, MPI), apart from what it samples (the config).
#include <atomic>
#include <filesystem>
#include <optional>

#include <sgmcmc/run/distributed/transport.hpp>

namespace sgmcmc::run {

struct Options {
  unsigned threads = 0;   ///< 0: one per core (at most one per chain)
  bool progress = false;  ///< draw a progress bar on stderr
  /// When set (by another thread or a signal handler), the chains stop within 64 steps and the run ends
  /// with what it has: every writer gets its draws, and the record, status "interrupted", resumes.
  const std::atomic<bool>* stop = nullptr;
  /// When given, set as the chains start their first step (run and resume alike). Until then — reading
  /// the config, a record or data, generating data, the mode search — a run has computed nothing a stop
  /// could keep, so a signal may end the process at once (cli/detail/signals.hpp) instead of `stop`
  /// waiting for set-up, which polls nothing, to end.
  std::atomic<bool>* sampling = nullptr;
  /// Resume a record whose config was edited after it was written (its `config_digest` differs): the
  /// resumed phase is marked `config_changed` in the record's timings. Off: such a record is refused.
  bool allow_changed_config = false;
  /// The processes of an MPI run (docs/distributed.md; run/distributed/mpi.hpp): chains over chain
  /// groups, data over the ranks of a group; rank 0 writes. Null: this process alone.
  distributed::Transport* transport = nullptr;
  /// The folder the outputs are written to (the CLI's -o; empty: the working directory). A relative
  /// data path in the recorded config is written relative to it, so that a resume finds the file from
  /// any working directory (run/data_files.hpp). None: as the config gives it (a record in memory).
  std::optional<std::filesystem::path> output_folder = std::nullopt;
};

}  // namespace sgmcmc::run
