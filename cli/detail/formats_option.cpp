// --format and the formats' help (cli/detail/command.hpp): both from the registered formats.
#include <sgmcmc/cli/detail/command.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sgmcmc/run/output/formats.hpp>

namespace sgmcmc::cli::detail {

Context::Context(const run::Registry& r, const Program& p) : registry(r), program(p) {
  if (!p.formats.entries().empty()) default_formats = {p.formats.entries().front().names.front()};
  formats = default_formats;
}

std::string names_with_aliases(const std::vector<std::string>& names) {
  std::string out = names.front();
  for (std::size_t i = 1; i < names.size(); ++i) out += (i == 1 ? " (alias " : ", ") + names[i];
  if (names.size() > 1) out += ")";
  return out;
}

namespace {

/// `--format`'s check: each name (the option splits at commas) must be registered; the error lists them.
CLI::Validator format_check(const run::output::Formats& registered) {
  return CLI::Validator(
      [&registered](std::string& name) { return registered.find(name) != nullptr ? std::string() : registered.unknown(name); },
      "{" + registered.names_text(",") + "}");
}

/// The help's list of formats: one line each, its names, what it is and the files it writes.
std::string formats_help(const run::output::Formats& registered) {
  std::string out = fmt::format("Output formats (--format; without it, the one -o's ending names, else {}): OUT is the -o path, BASE "
                                "is OUT without a format's ending ({}), the record OUT or BASE.json:\n",
                                registered.entries().empty() ? "none" : registered.entries().front().names.front(),
                                fmt::join(registered.endings(), ", "));
  for (const auto& e : registered.entries()) {
    out += fmt::format("  {:<8} {}\n", names_with_aliases(e.names), e.summary);
    if (!e.files.empty()) out += fmt::format("  {:<8} writes {}\n", "", e.files);
  }
  return out;
}

}  // namespace

void add_format_option(CLI::App& sub, Context& ctx, bool required) {
  const auto& registered = ctx.registered();
  const std::string help =
      required ? "one or several of " + registered.names_text()
               : fmt::format("output formats, one or several of {} ({}see docs/run-format.md)", registered.names_text(),
                             ctx.default_formats.empty() ? "" : "default " + ctx.default_formats.front() + "; ");
  auto* option = sub.add_option("--format", ctx.formats, help)->delimiter(',')->check(format_check(registered));
  option->each([&ctx](const std::string&) { ctx.formats_given = true; });
  if (required) option->required();
  sub.footer(formats_help(registered));
}

}  // namespace sgmcmc::cli::detail
