#pragma once
// IDX files (LeCun's MNIST format, also Fashion-MNIST's), gzip-compressed: big-endian u32 magic
// 0x00000803 for u8 images (then n, rows, cols at offsets 4, 8, 12, pixels from 16) and 0x00000801
// for u8 labels (n at 4, labels from 8). Debian's dataset-fashion-mnist installs them under
// /usr/share/datasets/fashion-mnist (scripts/data.sh fashion-mnist).
#include <cstdint>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/data/gzip.hpp>

namespace sgmcmc::data {

inline constexpr const char* fashion_mnist_dir = "/usr/share/datasets/fashion-mnist";
inline constexpr const char* fashion_mnist_hint = "install it with scripts/data.sh fashion-mnist";

namespace detail {
inline std::uint32_t be32(const std::string& b, std::size_t at) {
  const auto u = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + k])); };
  return u(0) << 24 | u(1) << 16 | u(2) << 8 | u(3);
}
}  // namespace detail

/// Pixels of an IDX image file scaled to [0, 1]: a (rows·cols) × n float matrix, one image a column.
inline Eigen::MatrixXf read_idx_images(const std::filesystem::path& path, const std::string& hint = "") {
  const std::string b = read_gzip(path, "IDX images (magic 0x00000803)", hint);
  if (b.size() < 16) throw Error(fmt::format("{}: expected an IDX image file (16-byte header), got {} bytes", shown(path), b.size()));
  const std::uint32_t magic = detail::be32(b, 0);
  if (magic != 0x803)
    throw Error(fmt::format("{}: expected IDX image magic 0x00000803 (the file's first 4 bytes are not it)", shown(path)));
  const std::uint64_t n = detail::be32(b, 4), rows = detail::be32(b, 8), cols = detail::be32(b, 12);
  // Sizes in 128 bits: n·rows·cols of three 32-bit counts overflows 64, and a header of 2^31 images of
  // 2^31×4 pixels wrapped to 0 and matched a 16-byte file (fuzz finding D2: a 2^64-float allocation).
  // An image is at most 2^31 pixels, so that 0 images of 2^32×2^32 ask for no impossible matrix either.
  if (rows == 0 || cols == 0 || rows * cols > (std::uint64_t{1} << 31))
    throw Error(fmt::format("{}: header says images of {}×{} pixels: expected 1 to 2^31 pixels an image", shown(path), rows, cols));
  if (static_cast<random::u128>(b.size() - 16) != static_cast<random::u128>(n) * rows * cols)
    throw Error(fmt::format("{}: header says {} images of {}×{}, the file has {} bytes after its 16-byte header", shown(path), n,
                            rows, cols, b.size() - 16));
  Eigen::MatrixXf x(static_cast<Eigen::Index>(rows * cols), static_cast<Eigen::Index>(n));
  detail::advise_huge_pages(x);  // before the pixels are written: a batch gathers random columns
  const auto* p = reinterpret_cast<const unsigned char*>(b.data()) + 16;
  float* out = x.data();  // column-major: image k's pixels are contiguous, in file order
  for (std::uint64_t k = 0; k < n * rows * cols; ++k) out[k] = static_cast<float>(p[k]) * (1.0f / 255.0f);
  return x;
}

/// Labels of an IDX label file.
inline Eigen::VectorXi read_idx_labels(const std::filesystem::path& path, const std::string& hint = "") {
  const std::string b = read_gzip(path, "IDX labels (magic 0x00000801)", hint);
  if (b.size() < 8) throw Error(fmt::format("{}: expected an IDX label file (8-byte header), got {} bytes", shown(path), b.size()));
  const std::uint32_t magic = detail::be32(b, 0);
  if (magic != 0x801)
    throw Error(fmt::format("{}: expected IDX label magic 0x00000801 (the file's first 4 bytes are not it)", shown(path)));
  const std::uint64_t n = detail::be32(b, 4);
  if (b.size() != 8 + n)
    throw Error(fmt::format("{}: header says {} labels ({} bytes), the file has {} bytes", shown(path), n, 8 + n, b.size()));
  Eigen::VectorXi y(static_cast<Eigen::Index>(n));
  for (std::uint64_t k = 0; k < n; ++k) y[static_cast<Eigen::Index>(k)] = static_cast<unsigned char>(b[8 + k]);
  return y;
}

/// An image file and its label file as one data set; the counts must agree.
inline Dataset<float> load_idx(const std::filesystem::path& images, const std::filesystem::path& labels,
                               const std::string& hint = "") {
  Dataset<float> d;
  d.x = read_idx_images(images, hint);
  d.y = read_idx_labels(labels, hint);
  if (d.x.cols() != d.y.size())
    throw Error(fmt::format("{}: {} labels, but {} has {} images", shown(labels), d.y.size(), shown(images), d.x.cols()));
  d.source = images.string();
  return d;
}

/// Fashion-MNIST's "train" (60,000) or "t10k" (10,000) part from `dir`.
inline Dataset<float> load_fashion_mnist(const std::filesystem::path& dir, const std::string& part) {
  if (part != "train" && part != "t10k") throw Error(fmt::format("fashion-mnist part: expected train or t10k, got '{}'", printable(part)));
  return load_idx(dir / (part + "-images-idx3-ubyte.gz"), dir / (part + "-labels-idx1-ubyte.gz"), fashion_mnist_hint);
}

}  // namespace sgmcmc::data
