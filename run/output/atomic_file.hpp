#pragma once
// An output file that appears whole or not at all. It is written to a temporary created exclusively
// beside the target (mkstemp: an unpredictable name, never through a planted symlink, the user's
// umask), and `commit` flushes it to disk (fsync), renames it over the target and syncs the folder: a
// reader never sees a half-written file, and a failed or abandoned write leaves the previous file as it
// was and removes the temporary. Every writer of a run's outputs (JSON record, Stan CSV, NetCDF) goes
// through it, so a killed or failed run never leaves a truncated output under the target's name.
#include <fcntl.h>
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
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::run {

namespace detail {

/// The folder a file `path` goes into (created if missing), as a path string ("." for a bare name).
inline std::string folder_of(const std::string& path) {
  if (path.empty()) throw Error("an output file name is empty");
  const std::filesystem::path target(path);
  const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::exists(folder, ec)) std::filesystem::create_directories(folder, ec);
  if (ec) throw Error(fmt::format("{}: cannot create the folder: {}", path, ec.message()));
  return folder.string();
}

/// Creates an exclusive temporary file beside `path`; returns its descriptor and fills `tmp`.
inline int create_temporary(const std::string& path, std::string& tmp) {
  const std::filesystem::path target(path);
  tmp = (std::filesystem::path(folder_of(path)) / ("." + target.filename().string() + ".XXXXXX")).string();
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
  std::string tmp;
  const int fd = detail::create_temporary(path, tmp);
  ::close(fd);
  ::unlink(tmp.c_str());
}

class AtomicFile {
 public:
  explicit AtomicFile(std::string path) : path_(std::move(path)) {
    fd_ = detail::create_temporary(path_, tmp_);
    detail::Temporaries::instance().add(tmp_);
  }
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  AtomicFile(AtomicFile&& o) noexcept
      : path_(std::move(o.path_)), tmp_(std::move(o.tmp_)), fd_(std::exchange(o.fd_, -1)), buffer_(std::move(o.buffer_)),
        done_(std::exchange(o.done_, true)) {}
  ~AtomicFile() { abandon(); }

  const std::string& path() const { return path_; }
  /// The temporary's name, for a library that writes the file by name itself (netCDF): close() first.
  const std::string& temporary_path() const { return tmp_; }

  /// Appends bytes (buffered; written in blocks of 1 MiB).
  void write(std::string_view bytes) {
    buffer_.append(bytes);
    if (buffer_.size() >= (1u << 20)) flush();
  }
  void write(const void* data, std::size_t n) { write(std::string_view(static_cast<const char*>(data), n)); }

  /// Writes the buffer out and closes the descriptor, keeping the temporary (for a library that then
  /// writes it by name; `commit` still renames it).
  void close() {
    flush();
    if (fd_ >= 0 && ::close(std::exchange(fd_, -1)) != 0) fail_with(fmt::format("close failed: {}", std::strerror(errno)));
  }

  /// Makes the file durable under its name: fsync, rename over the target, sync the folder.
  void commit() {
    flush();
    if (fd_ < 0) fd_ = ::open(tmp_.c_str(), O_RDWR | O_CLOEXEC);
    if (fd_ < 0) fail_with(fmt::format("cannot reopen the temporary: {}", std::strerror(errno)));
    if (::fsync(fd_) != 0) fail_with(fmt::format("fsync failed: {}", std::strerror(errno)));
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
    if (fd_ >= 0) ::close(std::exchange(fd_, -1));
    if (!done_) {
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
};

}  // namespace sgmcmc::run
