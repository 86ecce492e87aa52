#pragma once
// Whole-file gzip input through zlib (Debian's zlib1g-dev; link ZLIB::ZLIB). zlib reads an
// uncompressed file transparently, so a gunzipped copy loads too.
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <zlib.h>

#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/modules/error.hpp>

namespace sgmcmc::data {

/// The decompressed bytes of a gzip file; a missing, unreadable or corrupt file is an Error naming it.
inline std::string read_gzip(const std::filesystem::path& path, const std::string& what, const std::string& hint = "") {
  require_file(path, what, hint);
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw Error(fmt::format("{}: cannot open the {} file for reading", shown(path), what));
  gzbuffer(f, 1 << 17);
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const int n = gzread(f, buf, sizeof buf);
    if (n < 0) {
      int code = 0;
      const std::string msg = gzerror(f, &code);
      gzclose(f);
      throw Error(fmt::format("{}: corrupt gzip data in the {} file ({})", shown(path), what, msg));
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  // A truncated gzip stream reads as EOF without an error on some zlib versions: gzclose reports it.
  const int rc = gzclose(f);
  if (rc != Z_OK && rc != Z_BUF_ERROR)
    throw Error(fmt::format("{}: corrupt or truncated gzip data in the {} file (zlib code {})", shown(path), what, rc));
  if (rc == Z_BUF_ERROR)
    throw Error(fmt::format("{}: truncated gzip data in the {} file (the stream ends early)", shown(path), what));
  return out;
}

}  // namespace sgmcmc::data
