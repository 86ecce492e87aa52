// `sgmcmc convert` (run/convert.hpp).
#include <sgmcmc/run/convert.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <sgmcmc/run/data_files.hpp>
#include <sgmcmc/run/make_chain.hpp>
#include <sgmcmc/run/output/json_record.hpp>
#include <sgmcmc/run/record_schema.hpp>
#include <sgmcmc/run/log_likelihood.hpp>

namespace sgmcmc::run {

void convert(const std::string& path, const Registry& registry, std::span<output::Writer* const> writers, const json& stein,
             const std::filesystem::path& output_folder) {
  json record = output::read_record(path, [](const output::RecordDraw&) {});
  try {
    validate_record(record);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  RunConfig c = detail::config_of(record, registry, {nullptr, true}, folder);
  detail::write_paths_for(c, Options{.output_folder = output_folder});
  detail::move_record_paths(record, folder, output_folder);
  detail::refuse_outputs_over_data(c, writers);
  // The chain at step 0 gives the sampler's statistics and the draw's shape; the record gives the rest.
  const auto chain = make_chain(c, 0);
  output::RunHeader header = detail::header_of(c, *chain, c.steps);
  std::uint64_t longest = 0;
  for (const auto& ch : record["chains"]) longest = std::max<std::uint64_t>(longest, ch.value("draws", std::uint64_t{0}));
  header.expected_draws = longest;
  for (output::Writer* w : writers) w->begin(header);
  detail::warm_ups_from_record(writers, record, c);
  {
    output::BlockBuffer buffer(writers, header, log_likelihood_of(chain->target(), header.dim()));
    std::vector<std::uint64_t> seen(c.chains, 0);
    output::read_record(path, [&](const output::RecordDraw& d) {
      if (d.chain >= c.chains) return;
      detail::check_width(d, header, seen[d.chain]++);
      detail::add_draw(buffer, d);
    });
    buffer.flush();
  }
  record["schema_version"] = schema_version;
  for (auto& ch : record["chains"]) {
    ch.erase("samples");
    ch.erase("sample_stats");
    ch.erase("burn_in_draws");  // the writers count the warm-up draws they were given
  }
  if (!stein.is_null()) record["stein"] = stein;
  output::finish_all(writers, record);
}

}  // namespace sgmcmc::run
