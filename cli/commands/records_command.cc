#include "cli/commands/records_command.h"

#include <time.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands/command_line.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/json_text.h"
#include "cli/records/record_schema.h"
#include "cli/records/table_loader.h"
#include "engine/protected_index.h"

namespace leakhound {
namespace {

constexpr char kUsage[] =
    "usage: leakhound records add --index DIR --schema SCHEMA.toml "
    "[--name NAME] [--delimiter C] [--strict] TABLE.csv\n"
    "       leakhound records replace --index DIR --schema SCHEMA.toml "
    "[--name NAME] [--delimiter C] [--strict] TABLE.csv\n"
    "       leakhound records remove --index DIR NAME\n"
    "       leakhound records list --index DIR [--json]\n"
    "       leakhound records stats --index DIR [--json] [NAME]\n"
    "  Protected tables (exact data match): each cell normalized and hashed\n"
    "  under the index's key; a scan reports a row when its primary cell and\n"
    "  min_matches other cells of the row are within `proximity` words.\n"
    "  The table's name is --name, else the schema's `table`, else the "
    "file's stem.\n"
    "  TABLE.csv: comma-separated (RFC 4180); .tsv or --delimiter tab: "
    "tabs;\n"
    "  TABLE.xlsx: the first sheet of an Excel workbook (date cells as "
    "dates).\n"
    "  A row with fewer fields than the header is loaded (its missing cells "
    "empty)\n"
    "  and counted; --strict refuses the file at the first one.\n"
    "  docs/records.md.\n";

absl::StatusOr<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().size() > (size_t{1} << 20)) {
    return absl::InvalidArgumentError(absl::StrCat(path, " is over 1 MiB"));
  }
  return text.str();
}

absl::StatusOr<char> Delimiter(const CommandLine& line,
                               const std::string& path) {
  const std::optional<std::string> given = line.Value("delimiter");
  if (!given) return path.ends_with(".tsv") ? '\t' : ',';
  if (*given == "tab" || *given == "\\t") return '\t';
  if (given->size() == 1 && *given != "\"") return (*given)[0];
  return absl::InvalidArgumentError("--delimiter takes one character or 'tab'");
}

// A phone column's regions, its schema's first (RecordColumnRecord).
std::vector<std::string> Regions(const RecordColumnRecord& c) {
  std::vector<std::string> regions;
  if (!c.region.empty()) regions.push_back(c.region);
  for (const std::string& held : c.held_regions) {
    if (held != c.region) regions.push_back(held);
  }
  return regions;
}

std::string Columns(const RecordTableRecord& r) {
  std::vector<std::string> parts;
  for (const RecordColumnRecord& c : r.columns) {
    parts.push_back(absl::StrCat(
        c.name, ":", std::string(CellTypeName(static_cast<CellType>(c.type))),
        c.role == static_cast<uint8_t>(RecordColumnRole::kPrimary) ? "*" : "",
        Regions(c).empty() ? ""
                           : absl::StrCat("(", absl::StrJoin(Regions(c), " "),
                                          ")")));
  }
  return absl::StrJoin(parts, ",");
}

std::string Quoted(const std::vector<std::string>& values) {
  std::vector<std::string> quoted;
  for (const std::string& v : values) quoted.push_back(JsonString(v));
  return absl::StrJoin(quoted, ",");
}

std::string TableJson(std::string_view name, const RecordTableRecord& r) {
  std::vector<std::string> columns;
  for (const RecordColumnRecord& c : r.columns) {
    columns.push_back(absl::StrCat(
        "{\"name\":", JsonString(c.name), ",\"type\":\"",
        std::string(CellTypeName(static_cast<CellType>(c.type))),
        "\",\"primary\":",
        c.role == static_cast<uint8_t>(RecordColumnRole::kPrimary) ? "true"
                                                                   : "false",
        ",\"regions\":[", Quoted(Regions(c)), "]}"));
  }
  return absl::StrCat(
      "{\"table\":", JsonString(std::string(name)), ",\"rows\":", r.rows,
      ",\"skipped_rows\":", r.skipped_rows, ",\"min_matches\":", r.min_matches,
      ",\"proximity\":", r.proximity, ",\"source\":", JsonString(r.source),
      ",\"added\":\"", IsoTime(r.added_unix_ms), "\",\"columns\":[",
      absl::StrJoin(columns, ","), "]}");
}

int Load(const CommandLine& line, const std::vector<std::string>& operands,
         bool replace) {
  const char* action = replace ? "records replace" : "records add";
  if (operands.size() != 1) {
    return UsageError("records",
                      absl::InvalidArgumentError("give one table file"));
  }
  const std::optional<std::string> schema_path = line.Value("schema");
  if (!schema_path) {
    return UsageError("records",
                      absl::InvalidArgumentError("--schema is required"));
  }
  auto text = ReadSmallFile(*schema_path);
  if (!text.ok()) return ReportError(action, text.status());
  auto schema = ParseRecordSchema(*text, *schema_path);
  if (!schema.ok()) return ReportError(action, schema.status());
  TableLoadOptions options;
  // Recorded absolute, so that `rekey` finds it from anywhere.
  std::error_code ec;
  options.path = operands[0] == "-"
                     ? operands[0]
                     : std::filesystem::absolute(operands[0], ec).string();
  options.replace = replace;
  options.name = line.Value("name").value_or(
      schema->table.empty() ? std::filesystem::path(operands[0]).stem().string()
                            : schema->table);
  auto delimiter = Delimiter(line, options.path);
  if (!delimiter.ok()) return UsageError("records", delimiter.status());
  options.delimiter = *delimiter;
  auto index = OpenIndex(line, OpenMode::kWrite);
  if (!index.ok()) return ReportError(action, index.status());
  const auto start = std::chrono::steady_clock::now();
  options.strict = line.Has("strict");
  TableLoadNotes notes;
  auto loaded = LoadTable(**index, *schema, options, &notes);
  if (!loaded.ok()) return ReportError(action, loaded.status());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf(
      "%s %s: %llu rows (%llu without a primary cell skipped), "
      "%.1f s\n",
      replace ? "replaced" : "added", Printable(options.name).c_str(),
      static_cast<unsigned long long>(loaded->rows),          // NOLINT
      static_cast<unsigned long long>(loaded->skipped_rows),  // NOLINT
      seconds);
  if (notes.short_rows > 0) {
    std::vector<std::string> lines;
    for (uint64_t l : notes.short_lines) lines.push_back(absl::StrCat(l));
    std::printf(
        "%s shorter than the header, their missing cells empty (line%s %s%s; "
        "--strict refuses them)\n",
        Plural(notes.short_rows, "row").c_str(),
        notes.short_lines.size() == 1 ? "" : "s",
        absl::StrJoin(lines, ", ").c_str(),
        notes.short_rows > notes.short_lines.size() ? ", ..." : "");
  }
  return kExitOk;
}

// list and stats: the tables, their columns and counts; never a value.
int Show(const CommandLine& line, const std::string& action,
         const std::vector<std::string>& operands) {
  auto index = OpenIndex(line, OpenMode::kRead);
  if (!index.ok()) return ReportError("records", index.status());
  const auto tables = (*index)->record_tables();
  bool shown = false;
  for (const auto& t : tables->tables()) {
    if (action == "stats" && !operands.empty() && operands[0] != t->name) {
      continue;
    }
    shown = true;
    const RecordTableRecord& r = t->record;
    if (line.Has("json")) {
      std::printf("%s\n", TableJson(t->name, r).c_str());
    } else if (action == "list") {
      std::printf("%-24s %12llu rows  %s  %s\n", Printable(t->name).c_str(),
                  static_cast<unsigned long long>(r.rows),  // NOLINT
                  IsoTime(r.added_unix_ms).c_str(), Columns(r).c_str());
    } else {
      size_t set_bytes = 0;
      for (const auto& set : t->sets) {
        if (set != nullptr) set_bytes += set->MemoryBytes();
      }
      std::printf(
          "table %s\n  rows %llu (skipped %llu)\n  columns %s (* primary)\n"
          "  match: a primary cell and %u more within %u words\n"
          "  memory for lookups %.1f MiB\n  source %s\n  added %s\n",
          Printable(t->name).c_str(),
          static_cast<unsigned long long>(r.rows),          // NOLINT
          static_cast<unsigned long long>(r.skipped_rows),  // NOLINT
          Columns(r).c_str(), r.min_matches, r.proximity,
          static_cast<double>(set_bytes) / (1 << 20),
          Printable(r.source).c_str(), IsoTime(r.added_unix_ms).c_str());
    }
  }
  if (!shown && action == "stats" && !operands.empty()) {
    return ReportError(
        "records stats",
        absl::NotFoundError(absl::StrCat("no protected table ", operands[0])));
  }
  return kExitOk;
}

}  // namespace

int RunRecordsCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {{"index", true},
                                          {"schema", true},
                                          {"name", true},
                                          {"delimiter", true},
                                          {"strict", false},
                                          {"json", false}};
  int exit = kExitOk;
  auto line = ParseCommandLine("records", argc, argv, kSpecs, kUsage, &exit);
  if (!line) return exit;
  auto split = SplitAction("records", *line);
  if (!split) return kExitError;
  const auto& [action, operands] = *split;
  if (action == "add" || action == "replace") {
    return Load(*line, operands, action == "replace");
  }
  if (action == "remove") {
    if (operands.size() != 1) {
      return UsageError("records",
                        absl::InvalidArgumentError("give one table name"));
    }
    auto index = OpenIndex(*line, OpenMode::kWrite);
    if (!index.ok()) return ReportError("records remove", index.status());
    absl::Status s = (*index)->RemoveRecordTable(operands[0]);
    if (!s.ok()) return ReportError("records remove", s);
    std::printf("removed %s\n", Printable(operands[0]).c_str());
    return kExitOk;
  }
  if (action != "list" && action != "stats") {
    return UsageError("records", absl::InvalidArgumentError(absl::StrCat(
                                     "unknown action '", action,
                                     "' (add, replace, remove, list, stats)")));
  }
  return Show(*line, action, operands);
}

}  // namespace leakhound
