#pragma once
// Reading and writing whole JSON documents (configs, run records, experiment results), with errors
// that name the file. A write goes to a temporary file created exclusively (mkstemp: an unpredictable
// name, never through a planted symlink) in the target's folder, is flushed to disk (fsync), renamed
// over the target and the folder synced: a reader never sees a half-written document, a failed write
// leaves the previous file as it was and removes the temporary.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::run {

inline nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open the file for reading", path));
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return nlohmann::json::parse(ss.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
}

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
  // mkstemp creates 0600; a record gets the permissions any new file of the user's would (umask).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  return fd;
}

}  // namespace detail

/// Fails (naming the file) unless a file can be created beside `path` — called before a long run, so an
/// unwritable output is found before the sampling, not after it.
inline void check_writable(const std::string& path) {
  std::string tmp;
  const int fd = detail::create_temporary(path, tmp);
  ::close(fd);
  ::unlink(tmp.c_str());
}

/// Writes `j` (indented by `indent` spaces; -1: one line) to `path`, creating its folder if needed.
inline void write_json_file(const nlohmann::json& j, const std::string& path, int indent = -1) {
  std::string tmp;
  const int fd = detail::create_temporary(path, tmp);
  const std::string text = j.dump(indent) + '\n';
  const char* p = text.data();
  std::size_t left = text.size();
  std::string failure;
  while (left > 0 && failure.empty()) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) failure = fmt::format("write failed: {}", std::strerror(errno));
    else p += n, left -= static_cast<std::size_t>(n);
  }
  if (failure.empty() && ::fsync(fd) != 0) failure = fmt::format("fsync failed: {}", std::strerror(errno));
  if (::close(fd) != 0 && failure.empty()) failure = fmt::format("close failed: {}", std::strerror(errno));
  if (failure.empty() && std::rename(tmp.c_str(), path.c_str()) != 0)
    failure = fmt::format("cannot replace the file: {}", std::strerror(errno));
  if (!failure.empty()) {
    ::unlink(tmp.c_str());
    throw Error(fmt::format("{}: {}", path, failure));
  }
  // The rename is durable once the folder is synced (a crash right after cannot bring back the old file).
  if (const int dir = ::open(detail::folder_of(path).c_str(), O_RDONLY | O_DIRECTORY); dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace sgmcmc::run
