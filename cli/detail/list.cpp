// `PROG list`: the manifolds, targets, samplers and output formats the program knows, one line each.
#include <iostream>
#include <string>

#include <fmt/format.h>

#include <sgmcmc/cli/detail/command.hpp>
#include <sgmcmc/run/output/formats.hpp>

namespace sgmcmc::cli::detail {

namespace {
template <class Entry>
void list_entries(std::ostream& os, const char* what, const std::vector<Entry>& entries) {
  os << what << ":\n";
  for (const auto& e : entries) {
    os << fmt::format("  {:<28} {}\n", names_with_aliases(e.names), e.summary);
  }
}
}  // namespace

Command add_list(CLI::App& app, Context& ctx) {
  auto* sub = app.add_subcommand("list", "The manifolds, targets, samplers and output formats this program knows, one line each");
  return {sub, nullptr, /*over_ranks=*/false, [&ctx] {
            list_entries(std::cout, "manifolds", ctx.registry.manifolds());
            list_entries(std::cout, "targets", ctx.registry.targets());
            list_entries(std::cout, "samplers", ctx.registry.samplers());
            list_entries(std::cout, "output formats", ctx.registered().entries());
            return 0;
          }};
}

}  // namespace sgmcmc::cli::detail
