// run() (run/runner.hpp).
#include <sgmcmc/run/runner.hpp>

#include <sgmcmc/run/make_chain.hpp>
#include <sgmcmc/run/streaming.hpp>
#include <sgmcmc/run/tune.hpp>

namespace sgmcmc::run {

json run(const json& config, const Options& opt, const Registry& registry, std::span<output::Writer* const> writers) {
  const auto t0 = detail::Clock::now();
  RunConfig c = detail::agreed([&] { return parse_config(config, registry, {opt.transport}); }, opt);
  // Every rank tunes alike (the same arms from the same seed; a tuned config is not sharded).
  if (c.tune) detail::agreed([&] { return tune(c, registry, opt); }, opt);
  detail::write_paths_for(c, opt);
  std::vector<std::unique_ptr<AnyChain>> chains;
  for (std::uint64_t i = 0; i < c.chains; ++i) chains.push_back(make_chain(c, static_cast<std::uint32_t>(i)));
  const output::RunHeader header = detail::header_of(c, *chains.front(), c.steps);
  for (output::Writer* w : writers) w->begin(header);
  return detail::continue_run(chains, c, std::vector<std::uint64_t>(chains.size(), c.steps), opt, header, writers,
                              std::vector<std::uint64_t>(chains.size(), 0),
                              json::array(), "run", detail::seconds_since(t0));
}

json run(const json& config, const Options& opt, const Registry& registry) {
  output::RecordInMemory memory;
  output::Writer* writers[] = {&memory};
  run(config, opt, registry, writers);
  return std::move(memory.record());
}

}  // namespace sgmcmc::run
