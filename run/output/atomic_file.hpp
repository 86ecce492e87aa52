#pragma once
// An output file that appears whole or not at all. It is written to a temporary in the target's folder
// and `commit` flushes it to disk (fsync), renames it over the target and syncs the folder: a reader
// never sees a half-written file, and a failed or abandoned write leaves the previous file as it was
// and removes the temporary. Every writer of a run's outputs (JSON record, Stan CSV, NetCDF) goes
// through it, so a killed or failed run never leaves a truncated output under the target's name.
//
// The temporary has no name while it is written (O_TMPFILE, where the file system offers it): a
// process killed outright (SIGKILL, the OOM killer) before `commit` leaves nothing behind. At `commit`
// it is linked under an unpredictable name and renamed over the target at once. A library that writes
// the file by name itself (netCDF) asks for a named temporary, created exclusively (mkstemp: an
// unpredictable name, never through a planted symlink); that one a SIGKILL can leave behind.
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string.h>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::run {

namespace detail {

/// The folder a file `path` goes into, as a path string ("." for a bare name). A missing folder is an
/// error, not created: a mistyped path should not become a new tree of folders.
inline std::string folder_of(const std::string& path) {
  if (path.empty()) throw Error("an output file name is empty");
  const std::filesystem::path target(path);
  const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec))
    throw Error(fmt::format("{}: cannot write there: the folder '{}' does not exist (create it first)", path, folder.string()));
  return folder.string();
}

/// Why an output `path` may not be written: it exists and is not a regular file (following symlinks) —
/// empty when it may. The rename that
/// makes an output appear would replace a FIFO, a device node (as root, `-o /dev/null` turned the
/// system's /dev/null into a file) or a link to a terminal with a regular file (issue #40). A missing
/// path, a regular file or a symlink to one is taken.
inline std::string special_file(const std::string& path) {
  struct ::stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return {};
  const char* kind = S_ISDIR(st.st_mode)    ? "a folder"
                     : S_ISFIFO(st.st_mode) ? "a FIFO"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a regular file";
  return fmt::format("{}: exists and is {}: an output only replaces a regular file", path, kind);
}
/// An input that must be a regular file (`why`: what it is and why, for the message): a FIFO blocks in
/// open() until a writer comes and a device never ends, so either is refused before it is opened. A
/// missing path is left to the open, whose error names it.
inline void require_regular_input(const std::string& path, const char* why) {
  struct ::stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw Error(fmt::format("{}: not a regular file (a FIFO, device or folder): {}", path, why));
}

/// Whether `a` and `b` are the same file: one existing file (symlinks and hard links included), or the
/// same absolute, normalised path when either does not exist yet. (An output must not be an input.)
inline bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec)) return true;
  const auto absolute = [](const std::string& p) {
    std::error_code e;
    return std::filesystem::absolute(p, e).lexically_normal();
  };
  return absolute(a) == absolute(b);
}

/// special_file's message as an Error.
inline void refuse_special(const std::string& path) {
  if (std::string why = special_file(path); !why.empty()) throw Error(why);
}

/// The name pattern of a temporary beside `path`: ".NAME." then six random characters.
inline std::string temporary_stem(const std::string& path) {
  const std::filesystem::path target(path);
  return (std::filesystem::path(folder_of(path)) / ("." + target.filename().string() + ".")).string();
}

/// Creates an exclusive temporary file beside `path`; returns its descriptor and fills `tmp`.
inline int create_temporary(const std::string& path, std::string& tmp) {
  tmp = temporary_stem(path) + "XXXXXX";
  std::vector<char> name(tmp.begin(), tmp.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) throw Error(fmt::format("{}: cannot create a file in its folder: {}", path, std::strerror(errno)));
  tmp.assign(name.data());
  // mkstemp creates 0600; an output gets the permissions any new file of the user's would (umask).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  return fd;
}

/// An unnamed file in `path`'s folder (O_TMPFILE, with the user's umask), or -1 where the file system or
/// the kernel has none (or /proc, through which `commit` names it, is missing): then a named one is used.
inline int create_unnamed(const std::string& path) {
#ifdef O_TMPFILE
  if (::access("/proc/self/fd", X_OK) != 0) return -1;
  return ::open(folder_of(path).c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
#else
  (void)path;
  return -1;
#endif
}

/// Gives the unnamed file `fd` a fresh unpredictable name beside `path` (linkat never replaces an
/// existing file: a name taken meanwhile is drawn again). Returns the name; -1 errno on failure.
inline std::string name_unnamed(int fd, const std::string& path) {
  const std::string stem = temporary_stem(path);
  const std::string proc = fmt::format("/proc/self/fd/{}", fd);
  static constexpr char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device random;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name = stem;
    for (int k = 0; k < 6; ++k) name += letters[random() % (sizeof letters - 1)];
    if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) return name;
    if (errno != EEXIST) break;
  }
  throw Error(fmt::format("{}: cannot name the finished file in its folder: {}", path, std::strerror(errno)));
}

/// SIGINT and SIGTERM held (blocked in this thread, delivered when it ends) for its lifetime: around the
/// steps a handler that exits at once must not cut in two — a named temporary made and registered in
/// Temporaries, a set of outputs renamed together.
struct HoldSignals {
  ::sigset_t old{};
  HoldSignals() {
    ::sigset_t held;
    ::sigemptyset(&held);
    ::sigaddset(&held, SIGINT);
    ::sigaddset(&held, SIGTERM);
    ::pthread_sigmask(SIG_BLOCK, &held, &old);
  }
  HoldSignals(const HoldSignals&) = delete;
  HoldSignals& operator=(const HoldSignals&) = delete;
  ~HoldSignals() { ::pthread_sigmask(SIG_SETMASK, &old, nullptr); }
};

/// The temporaries of outputs not yet committed, for a signal handler that must exit at once without
/// leaving them behind (the command line's second SIGINT/SIGTERM). Slots hold heap copies of the names;
/// `remove_all` only reads and unlinks, so it is async-signal-safe.
class Temporaries {
 public:
  static Temporaries& instance() {
    static Temporaries t;
    return t;
  }
  void add(const std::string& path) {
    char* copy = ::strdup(path.c_str());
    for (auto& slot : slots_) {
      char* empty = nullptr;
      if (slot.compare_exchange_strong(empty, copy)) return;
    }
    std::free(copy);  // every slot taken: this one is not removed by a second signal
  }
  void remove(const std::string& path) {
    for (auto& slot : slots_) {
      char* p = slot.load();
      if (p && path == p && slot.compare_exchange_strong(p, nullptr)) {
        std::free(p);
        return;
      }
    }
  }
  void remove_all_now() noexcept {
    for (auto& slot : slots_)
      if (const char* p = slot.load()) ::unlink(p);
  }

 private:
  std::array<std::atomic<char*>, 8192> slots_{};
};

}  // namespace detail

/// Fails (naming the file) unless a file can be created beside `path` — called before a long run, so an
/// unwritable output is found before the sampling, not after it.
inline void check_writable(const std::string& path) {
  detail::refuse_special(path);
  if (const int fd = detail::create_unnamed(path); fd >= 0) {  // nothing named: nothing a signal could leave behind
    ::close(fd);
    return;
  }
  const detail::HoldSignals hold;
  std::string tmp;
  const int fd = detail::create_temporary(path, tmp);
  ::close(fd);
  ::unlink(tmp.c_str());
}

/// Whether the temporary needs a name while it is written (a library that opens it by name: netCDF).
enum class Temporary : bool { unnamed, named };

class AtomicFile {
 public:
  explicit AtomicFile(std::string path, Temporary kind = Temporary::unnamed) : path_(std::move(path)) {
    detail::refuse_special(path_);
    if (kind == Temporary::unnamed) fd_ = detail::create_unnamed(path_);
    if (fd_ < 0) {
      const detail::HoldSignals hold;  // named and registered, or neither
      fd_ = detail::create_temporary(path_, tmp_);
      detail::Temporaries::instance().add(tmp_);
    }
  }
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  AtomicFile(AtomicFile&& o) noexcept
      : path_(std::move(o.path_)), tmp_(std::move(o.tmp_)), fd_(std::exchange(o.fd_, -1)), buffer_(std::move(o.buffer_)),
        done_(std::exchange(o.done_, true)), prepared_(o.prepared_) {}
  ~AtomicFile() { abandon(); }

  const std::string& path() const { return path_; }
  /// The temporary's name, for a library that writes the file by name itself (netCDF; constructed with
  /// Temporary::named): close() first.
  const std::string& temporary_path() const {
    if (tmp_.empty()) throw Error(fmt::format("{}: the temporary has no name (construct with Temporary::named)", path_));
    return tmp_;
  }

  /// Appends bytes (buffered; written in blocks of 1 MiB).
  void write(std::string_view bytes) {
    prepared_ = false;
    buffer_.append(bytes);
    if (buffer_.size() >= (1u << 20)) flush();
  }
  void write(const void* data, std::size_t n) { write(std::string_view(static_cast<const char*>(data), n)); }

  /// Writes the buffer out and closes the descriptor, keeping the temporary (for a library that then
  /// writes it by name; `commit` still renames it).
  void close() {
    if (tmp_.empty()) fail_with("an unnamed temporary cannot be closed before commit (construct with Temporary::named)");
    flush();
    if (fd_ >= 0 && ::close(std::exchange(fd_, -1)) != 0) fail_with(fmt::format("close failed: {}", std::strerror(errno)));
  }

  /// Makes the temporary complete and durable without giving it the target's name yet: writes the
  /// buffer, takes the replaced file's permissions, fsync. What can fail in writing a file fails here, so
  /// that outputs committed together (run::output::finish_all) are all prepared before any is renamed.
  void prepare() {
    flush();
    if (fd_ < 0) fd_ = ::open(tmp_.c_str(), O_RDWR | O_CLOEXEC);
    if (fd_ < 0) fail_with(fmt::format("cannot reopen the temporary: {}", std::strerror(errno)));
    // An output that replaces a file keeps that file's permissions, as a write in place would: a record
    // made private (0600) stays private (issue #40: it became 0644).
    if (struct ::stat old {}; ::stat(path_.c_str(), &old) == 0 && S_ISREG(old.st_mode) && ::fchmod(fd_, old.st_mode & 07777) != 0)
      fail_with(fmt::format("cannot keep the replaced file's permissions: {}", std::strerror(errno)));
    if (::fsync(fd_) != 0) fail_with(fmt::format("fsync failed: {}", std::strerror(errno)));
    prepared_ = true;
  }

  /// Makes the file durable under its name: prepare (unless done), rename over the target, sync the folder.
  void commit() {
    if (!prepared_ || !buffer_.empty()) prepare();
    if (tmp_.empty()) {  // unnamed until now: a name for the instant of the rename
      const detail::HoldSignals hold;  // named and registered, or neither
      try {
        tmp_ = detail::name_unnamed(fd_, path_);
      } catch (const Error&) {
        abandon();
        throw;
      }
      detail::Temporaries::instance().add(tmp_);
    }
    if (::close(std::exchange(fd_, -1)) != 0) fail_with(fmt::format("close failed: {}", std::strerror(errno)));
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0) fail_with(fmt::format("cannot replace the file: {}", std::strerror(errno)));
    done_ = true;
    detail::Temporaries::instance().remove(tmp_);
    // The rename is durable once the folder is synced (a crash right after cannot bring back the old file).
    if (const int dir = ::open(detail::folder_of(path_).c_str(), O_RDONLY | O_DIRECTORY); dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
  }

  /// Drops the temporary; the target keeps what it held.
  void abandon() noexcept {
    if (fd_ >= 0) ::close(std::exchange(fd_, -1));  // an unnamed temporary is gone with its descriptor
    if (!done_ && !tmp_.empty()) {
      ::unlink(tmp_.c_str());
      detail::Temporaries::instance().remove(tmp_);
    }
    done_ = true;
  }

 private:
  void flush() {
    const char* p = buffer_.data();
    std::size_t left = buffer_.size();
    while (left > 0) {
      if (fd_ < 0) fail_with("write after close");
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail_with(fmt::format("write failed: {}", std::strerror(errno)));
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    buffer_.clear();
  }
  [[noreturn]] void fail_with(const std::string& why) {
    abandon();
    throw Error(fmt::format("{}: {}", path_, why));
  }

  std::string path_, tmp_;
  int fd_ = -1;
  std::string buffer_;
  bool done_ = false;
  bool prepared_ = false;
};

}  // namespace sgmcmc::run
