// The data files a run read (run/data_files.hpp).
#include <sgmcmc/run/data_files.hpp>

#include <fmt/format.h>

#include <sgmcmc/run/output/atomic_file.hpp>

namespace sgmcmc::run::detail {

namespace {

namespace fs = std::filesystem;

// The field a valid pointer names in `config` (null when there is none).
json* field_at(json& config, const std::string& pointer) {
  try {
    const json::json_pointer p(pointer);
    return config.contains(p) ? &config[p] : nullptr;
  } catch (const json::exception&) {
    return nullptr;
  }
}

std::string describe_print(const json& entry) {
  if (!entry.contains("bytes") || !entry["bytes"].is_number_unsigned()) return "no fingerprint (not a regular file)";
  return fmt::format("{} bytes, {}", entry["bytes"].get<std::uint64_t>(),
                     entry.contains("hash") && entry["hash"].is_string() ? printable(entry["hash"].get<std::string>()) : "no hash");
}

}  // namespace

json data_files_of(const RunConfig& c) {
  json out = json::array();
  for (const DataFile& f : c.target.files) {
    json e = {{"pointer", f.pointer}, {"bytes", nullptr}, {"hash", nullptr}};
    if (f.print) e["bytes"] = f.print->bytes, e["hash"] = f.print->hash;
    if (c.target.examples) e["examples"] = *c.target.examples;
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<std::string> data_pointers(const json& record) {
  std::vector<std::string> out;
  if (!record.contains("data_files")) return out;
  const json& files = record["data_files"];
  if (!files.is_array()) fail("/data_files", fmt::format("expected an array of data files, got {}", describe(files)));
  json config = record.contains("config") ? record["config"] : json();
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string at = fmt::format("/data_files/{}", i);
    if (!files[i].is_object()) fail(at, fmt::format("expected an object, got {}", describe(files[i])));
    if (!files[i].contains("pointer") || !files[i]["pointer"].is_string())
      fail(at + "/pointer", "expected the config field naming the file, as a JSON pointer (e.g. \"/target/data\")");
    const std::string p = files[i]["pointer"].get<std::string>();
    const json* field = field_at(config, p);
    if (!field || !field->is_string())
      fail(at + "/pointer", fmt::format("\"{}\" names no file path of the record's config", printable(p)));
    out.push_back(p);
  }
  return out;
}

void rebase_paths(json& config, std::span<const std::string> pointers, const fs::path& from, const fs::path& to) {
  if (from == to) return;
  std::error_code ec;
  const fs::path base_from = fs::absolute(from.empty() ? fs::path(".") : from, ec).lexically_normal();
  const fs::path base_to = fs::absolute(to.empty() ? fs::path(".") : to, ec).lexically_normal();
  for (const std::string& p : pointers) {
    json* field = field_at(config, p);
    if (!field || !field->is_string()) continue;
    const fs::path path = field->get<std::string>();
    if (path.empty() || path.is_absolute()) continue;
    const fs::path whole = (base_from / path).lexically_normal();
    const fs::path rel = whole.lexically_relative(base_to);
    *field = (rel.empty() ? whole : rel).string();
  }
}

void refuse_outputs_over_data(const RunConfig& c, std::span<output::Writer* const> writers) {
  for (const DataFile& f : c.target.files)
    for (const output::Writer* w : writers)
      for (const std::string& out : w->files())
        if (same_file(out, f.path))
          throw Error(fmt::format("{}: that is the data file the record's config names ({}); the output would overwrite it",
                                  printable(out, 200), f.pointer));
}

bool data_changed(const json& record, const RunConfig& c, const Options& opt) {
  if (c.target.files.empty()) return false;
  const auto refuse = [&](const std::string& at, const std::string& what) {
    if (opt.allow_changed_config) return true;
    fail(at, what + ". Resume with the file the run read, or allow the change explicitly (--allow-changed; C++: "
                    "Options::allow_changed_config), which the resumed record notes");
  };
  const json now = data_files_of(c);
  bool changed = false;
  for (std::size_t k = 0; k < c.target.files.size(); ++k) {
    const DataFile& f = c.target.files[k];
    const std::string name = printable(f.path);
    const json* then = nullptr;
    std::size_t i = 0;
    if (record.contains("data_files"))
      for (; i < record["data_files"].size(); ++i)
        if (record["data_files"][i]["pointer"] == f.pointer) {
          then = &record["data_files"][i];
          break;
        }
    if (!then) {
      changed |= refuse("/data_files", fmt::format("required field is missing: the run reads data file {} ({}), and the record does "
                                                   "not say which file its draws were made with (its size and hash), so a resume "
                                                   "cannot tell whether it changed", name, f.pointer));
      continue;
    }
    const std::string at = fmt::format("/data_files/{}", i);
    if (!f.print) {
      changed |= refuse(at, fmt::format("data file {} ({}) is not a regular file (a pipe or device), which cannot be checked", name,
                                        f.pointer));
      continue;
    }
    const json& e = now[k];
    const bool same = (*then)["bytes"] == e["bytes"] && (*then)["hash"] == e["hash"] &&
                      (!then->contains("examples") || !e.contains("examples") || (*then)["examples"] == e["examples"]);
    if (!same)
      changed |= refuse(at, fmt::format("data file {} ({}) is not the file the run read: {} then, {} now", name, f.pointer,
                                        describe_print(*then), describe_print(e)));
  }
  return changed;
}

}  // namespace sgmcmc::run::detail
