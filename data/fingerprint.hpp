#pragma once
// A file's fingerprint — its size and a 64-bit FNV-1a hash of its bytes — so that a resumed run can
// tell that its data file is no longer the one its draws were made with (docs/run-format.md,
// "data_files"). FNV-1a (Fowler, Noll & Vo; the parameters of RFC draft-eastlake-fnv) is not a
// cryptographic hash: it catches an edited, replaced, truncated or appended file, not a forger — the
// same promise as the record's config digest, which uses it too (run/record_schema.cpp).
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::data {

/// FNV-1a over a byte stream, 64 bits: `add` the bytes in any pieces, `hex()` the result.
struct Fnv1a64 {
  std::uint64_t h = 0xcbf29ce484222325ull;
  void add(std::string_view bytes) {
    std::uint64_t v = h;
    for (const unsigned char c : bytes) v = (v ^ c) * 0x100000001b3ull;
    h = v;
  }
  /// "fnv1a64:" and the 16 hex digits.
  std::string hex() const { return fmt::format("fnv1a64:{:016x}", h); }
};

struct FileFingerprint {
  std::uint64_t bytes = 0;
  std::string hash;  ///< Fnv1a64::hex() of the bytes
  friend bool operator==(const FileFingerprint&, const FileFingerprint&) = default;
};

/// The fingerprint of a regular file, read through once in 1 MiB pieces (its speed not measured yet); none for a
/// pipe, a device or anything else that cannot be read a second time as it was (a resume cannot check
/// those). A file that cannot be read is an error naming it.
inline std::optional<FileFingerprint> fingerprint_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(fmt::format("{}: cannot open the file to fingerprint it: {}", path.string(), std::strerror(errno)));
  std::vector<char> buffer(1 << 20);
  Fnv1a64 hash;
  FileFingerprint out;
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      throw Error(fmt::format("{}: cannot read the file to fingerprint it: {}", path.string(), std::strerror(e)));
    }
    if (n == 0) break;
    hash.add(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
    out.bytes += static_cast<std::uint64_t>(n);
  }
  ::close(fd);
  out.hash = hash.hex();
  return out;
}

}  // namespace sgmcmc::data
