#include "cli/commands/admin_commands.h"

#include <time.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands/command_line.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/json_text.h"
#include "cli/console/retained_copy.h"
#include "engine/index_verifier.h"
#include "engine/protected_index.h"

namespace leakhound {
namespace {

const char* PackingName(uint8_t packing) {
  switch (static_cast<PackingMode>(packing)) {
    case PackingMode::kPseudoMatrix:
      return "pmbf";
    case PackingMode::kOneDocumentPerRow:
      return "mbf";
    case PackingMode::kSingleFilter:
      return "single";
  }
  return "unknown";
}

// --- init ---------------------------------------------------------------

// The usage text, with the defaults of FilterParams.
const char* InitUsage() {
  static const std::string usage = absl::StrCat(
      "usage: leakhound init --index DIR [--fpr P] [--row-capacity N] "
      "[--fill F]\n"
      "                      [--shingle-words W] [--winnow W] "
      "[--packing pmbf|mbf|single]\n"
      "                      [--row-groups G] [--filter-winnow W]\n"
      "  Creates an empty index in DIR (which must not exist or be empty).\n"
      "  --fpr P            false-positive rate of one fingerprint against a "
      "full row (default 0.001)\n"
      "  --row-capacity N   fingerprints per row (default ",
      FilterParams{}.row_capacity,
      ")\n"
      "  --fill F           fraction of a row filled before the next (default "
      "1.0)\n"
      "  --shingle-words W  words per shingle (default 5)\n"
      "  --winnow W         winnowing window in shingles, 0 = off (default 0)\n"
      "  --filter-winnow W  the filter holds only the fingerprints winnowing "
      "selects with\n"
      "                     window W (the second stage still compares every "
      "shingle);\n"
      "                     0 = every fingerprint (default ",
      kDefaultFilterWinnowWindow,
      ")\n"
      "  --packing MODE     pmbf (default), mbf (one document per row) or "
      "single (one filter)\n"
      "  --row-groups G     rows per group of the filter's second level, a "
      "multiple of 64,\n"
      "                     or 0 = one level (default 0); 256 keeps queries "
      "fast from about\n"
      "                     10,000 rows on, at twice the memory and disk\n"
      "  --key-file PATH    keep the index key at PATH (absolute, a folder "
      "only the service\n"
      "                     reads) instead of DIR/key: a copy of the index "
      "then cannot\n"
      "                     test guesses; a replica needs the key installed "
      "there too\n");
  return usage.c_str();
}

}  // namespace

int RunInitCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {
      {"index", true},   {"fpr", true},           {"row-capacity", true},
      {"fill", true},    {"shingle-words", true}, {"winnow", true},
      {"packing", true}, {"row-groups", true},    {"filter-winnow", true},
      {"key-file", true}};
  int exit = kExitOk;
  auto line = ParseCommandLine("init", argc, argv, kSpecs, InitUsage(), &exit);
  if (!line) return exit;
  if (absl::Status s = NoArguments(*line); !s.ok())
    return UsageError("init", s);
  if (!line->args().empty()) {
    ReportError("init", absl::InvalidArgumentError("init takes no paths"));
    return kExitError;
  }
  auto dir = line->IndexDir();
  if (!dir.ok()) return ReportError("init", dir.status());
  IndexOptions options;
  auto fpr = line->Double("fpr", 1e-3, 1e-12, 0.5);
  auto capacity = line->Unsigned("row-capacity", FilterParams{}.row_capacity,
                                 64, uint64_t{1} << 26);
  auto fill = line->Double("fill", 1.0, 0.01, 1.0);
  auto words = line->Unsigned("shingle-words", 5, 1, 64);
  auto winnow = line->Unsigned("winnow", 0, 0, 1024);
  auto groups = line->Unsigned("row-groups", 0, 0, 65536);
  auto filter_winnow =
      line->Unsigned("filter-winnow", kDefaultFilterWinnowWindow, 0, 1024);
  for (const absl::Status& s :
       {fpr.status(), capacity.status(), fill.status(), words.status(),
        winnow.status(), groups.status(), filter_winnow.status()}) {
    if (!s.ok()) return ReportError("init", s);
  }
  if (*groups % 64 != 0) {
    return ReportError("init", absl::InvalidArgumentError(
                                   "--row-groups must be a multiple of 64"));
  }
  options.group_rows = static_cast<uint32_t>(*groups);
  options.key_file = line->Value("key-file").value_or("");
  if (!options.key_file.empty() && options.key_file[0] != '/') {
    return ReportError("init", absl::InvalidArgumentError(absl::StrCat(
                                   "--key-file ", options.key_file,
                                   ": an absolute path, please")));
  }
  options.filter = {*fpr, static_cast<uint32_t>(*capacity), *fill};
  options.shingler.shingle_words = static_cast<int>(*words);
  options.shingler.winnow_window = static_cast<int>(*winnow);
  options.shingler.filter_winnow_window = static_cast<int>(*filter_winnow);
  const std::string packing = line->Value("packing").value_or("pmbf");
  if (packing == "pmbf") {
    options.packing = PackingMode::kPseudoMatrix;
  } else if (packing == "mbf") {
    options.packing = PackingMode::kOneDocumentPerRow;
  } else if (packing == "single") {
    options.packing = PackingMode::kSingleFilter;
  } else {
    return ReportError("init", absl::InvalidArgumentError(
                                   "--packing must be pmbf, mbf or single"));
  }
  auto index = ProtectedIndex::Create(*dir, options);
  if (!index.ok()) return ReportError("init", index.status());
  const MetadataRecord& m = (*index)->metadata();
  std::printf(
      "created index %s: %u bits and %u hashes per row of %u fingerprints "
      "(fpr %g, fill %g, %s), %u-word shingles%s%s%s\n",
      dir->c_str(), m.bits, m.hashes, m.row_capacity, m.fpr, m.fill,
      PackingName(m.packing), m.shingle_words,
      m.winnow_window > 1
          ? absl::StrCat(", winnowing window ", m.winnow_window).c_str()
          : "",
      m.filter_winnow_window > 1
          ? absl::StrCat(", filter winnowing window ", m.filter_winnow_window)
                .c_str()
          : "",
      m.group_rows > 0 ? absl::StrCat(", row groups of ", m.group_rows).c_str()
                       : "");
  return kExitOk;
}

// --- remove ---------------------------------------------------------------

namespace {
constexpr char kRemoveUsage[] =
    "usage: leakhound remove --index DIR ID...\n"
    "  Removes documents by id, rebuilding only the rows that held them.\n";
}  // namespace

int RunRemoveCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {{"index", true}};
  int exit = kExitOk;
  auto line =
      ParseCommandLine("remove", argc, argv, kSpecs, kRemoveUsage, &exit);
  if (!line) return exit;
  if (line->args().empty()) {
    UsageError("remove", absl::InvalidArgumentError("no document id given"));
    return kExitError;
  }
  auto index = OpenIndex(*line, OpenMode::kWrite);
  if (!index.ok()) return ReportError("remove", index.status());
  const std::vector<std::string>& ids = line->args();
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string& id = ids[i];
    const std::string source = DocumentSource(**index, id);
    auto stats = (*index)->Remove(id);
    if (stats.ok()) {
      // A console upload's retained copy goes with it.
      if (auto dir = line->IndexDir(); dir.ok()) {
        DropRetainedCopy(*dir, source).IgnoreError();
      }
    }
    if (!stats.ok() && absl::IsNotFound(stats.status())) {
      exit = ReportError("remove", stats.status());
      continue;
    }
    if (!stats.ok()) {
      // The index could not be written (a full disk, an I/O error): each
      // removal is one commit, so the ids before this one are removed and
      // the index is as it was before this one. The writer refuses
      // further changes: one line for them all.
      return ReportError(
          "remove",
          absl::Status(
              stats.status().code(),
              absl::StrCat(stats.status().message(), "; ", id,
                           ids.size() - i > 1
                               ? absl::StrCat(" and the ", ids.size() - i - 1,
                                              " id(s) after it")
                               : std::string(),
                           " were not removed")));
    }
    std::printf("removed %s (%s rebuilt, %u freed)\n", id.c_str(),
                Plural(stats->rows_rebuilt(), "row").c_str(),
                stats->rows_freed);
  }
  return exit;
}

// --- list -----------------------------------------------------------------

namespace {
constexpr char kListUsage[] =
    "usage: leakhound list --index DIR [--json]\n"
    "  Lists the protected documents (one JSON object per line with "
    "--json).\n";
}  // namespace

namespace {

// A document's sensitivity labels, by name (their id when unnamed).
std::string SensitivityText(const DocumentRecord& d) {
  std::vector<std::string> names;
  for (const LabelRecord& l : d.sensitivity) {
    names.push_back(l.name.empty() ? l.id : l.name);
  }
  return absl::StrJoin(names, ",");
}

// [{"id":..,"name":..}], the same as JSON.
std::string SensitivityJson(const DocumentRecord& d) {
  std::vector<std::string> items;
  for (const LabelRecord& l : d.sensitivity) {
    items.push_back(absl::StrCat("{\"id\":", JsonString(l.id),
                                 ",\"name\":", JsonString(l.name), "}"));
  }
  return absl::StrCat("[", absl::StrJoin(items, ","), "]");
}

}  // namespace

int RunListCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {{"index", true}, {"json", false}};
  int exit = kExitOk;
  auto line = ParseCommandLine("list", argc, argv, kSpecs, kListUsage, &exit);
  if (!line) return exit;
  if (absl::Status s = NoArguments(*line); !s.ok())
    return UsageError("list", s);
  auto index = OpenIndex(*line, OpenMode::kRead);
  if (!index.ok()) return ReportError("list", index.status());
  const bool json = line->Has("json");
  if (!json) {
    std::printf("%-40s %10s %9s %5s  %-20s  %-16s  %-16s  %s\n", "id", "bytes",
                "shingles", "rows", "added (UTC)", "labels", "sensitivity",
                "source");
  }
  absl::Status s =
      (*index)->ForEachDocument([&](uint32_t, const DocumentRecord& d) {
        if (json) {
          std::vector<std::string> rows;
          for (uint32_t r : d.rows) rows.push_back(absl::StrCat(r));
          std::printf(
              "{\"id\":%s,\"source\":%s,\"bytes\":%llu,\"shingles\":%u,"
              "\"fingerprints\":%u,\"rows\":[%s],\"added\":%s,"
              "\"labels\":%s,\"sensitivity\":%s}\n",
              JsonString(d.external_id).c_str(), JsonString(d.source).c_str(),
              static_cast<unsigned long long>(d.bytes), d.occurrences,
              d.fingerprints, absl::StrJoin(rows, ",").c_str(),
              JsonString(IsoTime(d.added_unix_ms)).c_str(),
              JsonStrings(d.labels).c_str(), SensitivityJson(d).c_str());
        } else {
          std::printf("%-40s %10llu %9u %5zu  %-20s  %-16s  %-16s  %s\n",
                      Printable(d.external_id).c_str(),
                      static_cast<unsigned long long>(d.bytes), d.occurrences,
                      d.rows.size(), IsoTime(d.added_unix_ms).c_str(),
                      Printable(absl::StrJoin(d.labels, ",")).c_str(),
                      Printable(SensitivityText(d)).c_str(),
                      Printable(d.source).c_str());
        }
        return absl::OkStatus();
      });
  if (!s.ok()) return ReportError("list", s);
  return kExitOk;
}

// --- stats ----------------------------------------------------------------

namespace {
constexpr char kStatsUsage[] =
    "usage: leakhound stats --index DIR [--json]\n"
    "  Prints the index's size, row fill, memory and disk use.\n";
}  // namespace

namespace {

// What `leakhound stats` reports of an index.
struct IndexStats {
  const PseudoMatrix* matrix = nullptr;
  const MetadataRecord* m = nullptr;
  uint64_t generation = 0;
  uint64_t stored = 0;  // fingerprints in the filter
  uint32_t in_use = 0;  // rows
  std::vector<uint32_t> fill =
      std::vector<uint32_t>(10, 0);  // rows by
                                     // decile of the fill limit
  uint64_t shingles = 0;
  uint32_t allow_entries = 0;
  uint64_t allow_fps = 0;
  double bits_per_fp = 0, theory = 0;
  uint64_t memory = 0, disk = 0;
};

absl::StatusOr<IndexStats> StatsOf(const ProtectedIndex& ix) {
  IndexStats st;
  st.matrix = &ix.matrix();
  st.m = &ix.metadata();
  st.generation = ix.generation();
  for (const RowInfo& row : st.matrix->rows()) {
    if (row.segments.empty()) continue;
    ++st.in_use;
    st.stored += row.fingerprints;
    const double f = static_cast<double>(row.fingerprints) /
                     st.matrix->geometry().fill_limit;
    ++st.fill[std::min<size_t>(9, static_cast<size_t>(f * 10))];
  }
  absl::Status s = ix.ForEachDocument([&](uint32_t, const DocumentRecord& d) {
    st.shingles += d.occurrences;
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  s = ix.store().ForEachAllowEntry([&](std::string_view, const AllowRecord& a) {
    ++st.allow_entries;
    st.allow_fps += a.fingerprints.size();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  st.bits_per_fp = st.stored == 0
                       ? 0
                       : static_cast<double>(st.in_use) * st.m->bits /
                             static_cast<double>(st.stored);
  st.theory = -std::log(st.m->fpr) / (std::log(2.0) * std::log(2.0));
  st.memory = st.matrix->MemoryBytes();
  st.disk = ix.store().DiskBytes();
  return st;
}

void PrintStatsJson(const IndexStats& st) {
  std::vector<std::string> deciles;
  for (uint32_t n : st.fill) deciles.push_back(absl::StrCat(n));
  std::printf(
      "{\"documents\":%zu,\"shingles\":%llu,\"fingerprints\":%llu,"
      "\"rows\":%zu,\"rows_in_use\":%u,\"row_fill_deciles\":[%s],"
      "\"bits_per_fingerprint\":%.3f,\"bits_per_fingerprint_theory\":%.3f,"
      "\"memory_bytes\":%llu,\"disk_bytes\":%llu,\"allow_entries\":%u,"
      "\"allow_fingerprints\":%llu,\"fpr\":%g,\"row_capacity\":%u,"
      "\"fill\":%g,\"bits\":%u,\"hashes\":%u,\"packing\":%s,"
      "\"shingle_words\":%u,\"winnow\":%u,\"filter_winnow\":%u,"
      "\"group_rows\":%u,"
      "\"format_version\":%u,\"shingler_version\":%u,\"generation\":%llu}\n",
      st.matrix->documents(), static_cast<unsigned long long>(st.shingles),
      static_cast<unsigned long long>(st.stored), st.matrix->rows().size(),
      st.in_use, absl::StrJoin(deciles, ",").c_str(), st.bits_per_fp, st.theory,
      static_cast<unsigned long long>(st.memory),
      static_cast<unsigned long long>(st.disk), st.allow_entries,
      static_cast<unsigned long long>(st.allow_fps), st.m->fpr,
      st.m->row_capacity, st.m->fill, st.m->bits, st.m->hashes,
      JsonString(PackingName(st.m->packing)).c_str(), st.m->shingle_words,
      st.m->winnow_window, st.m->filter_winnow_window, st.m->group_rows,
      st.m->format_version, st.m->shingler_version,
      static_cast<unsigned long long>(st.generation));
}

void PrintStats(const IndexStats& st) {
  std::printf("generation         %llu (of the state read; +1 per change)\n",
              static_cast<unsigned long long>(st.generation));
  std::printf("documents          %zu (%llu shingles)\n",
              st.matrix->documents(),
              static_cast<unsigned long long>(st.shingles));
  std::printf("fingerprints       %llu in the filter\n",
              static_cast<unsigned long long>(st.stored));
  std::printf(
      "rows               %u in use, %zu free; %u bits, %u hashes, "
      "up to %u fingerprints each\n",
      st.in_use, st.matrix->rows().size() - st.in_use, st.m->bits, st.m->hashes,
      st.matrix->geometry().fill_limit);
  std::printf("row fill           ");
  for (size_t d = 0; d < st.fill.size(); ++d) {
    std::printf("%s%zu-%zu%%:%u", d ? "  " : "", d * 10, d * 10 + 10,
                st.fill[d]);
  }
  std::printf("\n");
  std::printf("bits/fingerprint   %.2f (a Bloom filter at fpr %g needs %.2f)\n",
              st.bits_per_fp, st.m->fpr, st.theory);
  std::printf("memory             %.1f MB (filter and row index)\n",
              static_cast<double>(st.memory) / 1e6);
  std::printf("disk               %.1f MB\n",
              static_cast<double>(st.disk) / 1e6);
  std::printf("allow-list         %u entries, %llu fingerprints\n",
              st.allow_entries, static_cast<unsigned long long>(st.allow_fps));
  std::printf(
      "parameters         fpr %g, row capacity %u, fill %g, %s, "
      "%u-word shingles, winnow %u, filter winnow %u, row groups "
      "of %u\n",
      st.m->fpr, st.m->row_capacity, st.m->fill, PackingName(st.m->packing),
      st.m->shingle_words, st.m->winnow_window, st.m->filter_winnow_window,
      st.m->group_rows);
}

}  // namespace

int RunStatsCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {{"index", true}, {"json", false}};
  int exit = kExitOk;
  auto line = ParseCommandLine("stats", argc, argv, kSpecs, kStatsUsage, &exit);
  if (!line) return exit;
  if (absl::Status s = NoArguments(*line); !s.ok())
    return UsageError("stats", s);
  auto index = OpenIndex(*line, OpenMode::kRead);
  if (!index.ok()) return ReportError("stats", index.status());
  auto stats = StatsOf(**index);
  if (!stats.ok()) return ReportError("stats", stats.status());
  if (line->Has("json")) {
    PrintStatsJson(*stats);
  } else {
    PrintStats(*stats);
  }
  return kExitOk;
}

// --- compact ----------------------------------------------------------------

namespace {
constexpr char kCompactUsage[] =
    "usage: leakhound compact --index DIR\n"
    "  Repacks rows filled below half their limit and compacts the files.\n";
}  // namespace

int RunCompactCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {{"index", true}};
  int exit = kExitOk;
  auto line =
      ParseCommandLine("compact", argc, argv, kSpecs, kCompactUsage, &exit);
  if (!line) return exit;
  if (absl::Status s = NoArguments(*line); !s.ok())
    return UsageError("compact", s);
  auto index = OpenIndex(*line, OpenMode::kWrite);
  if (!index.ok()) return ReportError("compact", index.status());
  const uint64_t before = (*index)->store().DiskBytes();
  auto stats = (*index)->Compact();
  if (!stats.ok()) return ReportError("compact", stats.status());
  std::printf("compacted: %s rebuilt, %u freed; disk %.1f MB -> %.1f MB\n",
              Plural(stats->rows_rebuilt(), "row").c_str(), stats->rows_freed,
              static_cast<double>(before) / 1e6,
              static_cast<double>((*index)->store().DiskBytes()) / 1e6);
  return kExitOk;
}

// --- snapshot ---------------------------------------------------------------

namespace {
constexpr char kSnapshotUsage[] =
    "usage: leakhound snapshot --index DIR [--wait SECONDS] OUT_DIR\n"
    "  Writes a consistent read-only copy of the index to OUT_DIR (which must\n"
    "  not exist): a RocksDB checkpoint, hard links where OUT_DIR is on the\n"
    "  same file system. It takes the writer lock for the moment of the\n"
    "  checkpoint: while another writer runs it waits up to --wait seconds\n"
    "  (default 60). Ship OUT_DIR to readers with rsync; docs/scale.md has "
    "the\n"
    "  replica flow.\n";
}  // namespace

int RunSnapshotCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {{"index", true}, {"wait", true}};
  int exit = kExitOk;
  auto line =
      ParseCommandLine("snapshot", argc, argv, kSpecs, kSnapshotUsage, &exit);
  if (!line) return exit;
  auto wait = line->Unsigned("wait", 60, 0, 86400);
  if (!wait.ok()) return ReportError("snapshot", wait.status());
  if (line->args().size() != 1) {
    return ReportError("snapshot",
                       absl::InvalidArgumentError("expected one OUT_DIR"));
  }
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(*wait);
  auto index = OpenIndex(*line, OpenMode::kWrite);
  while (!index.ok() && absl::IsUnavailable(index.status()) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    index = OpenIndex(*line, OpenMode::kWrite);
  }
  if (!index.ok()) return ReportError("snapshot", index.status());
  if (absl::Status s = (*index)->store().Snapshot(line->args()[0]); !s.ok()) {
    return ReportError("snapshot", s);
  }
  std::printf("snapshot: generation %llu, %zu documents, in %s\n",
              static_cast<unsigned long long>((*index)->generation()),
              (*index)->matrix().documents(), line->args()[0].c_str());
  return kExitOk;
}

// --- verify -----------------------------------------------------------------

namespace {
constexpr char kVerifyUsage[] =
    "usage: leakhound verify --index DIR\n"
    "  Checks every invariant of the index; exit 0 when sound, 1 when a "
    "problem is found.\n";
}  // namespace

int RunVerifyCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {{"index", true}};
  int exit = kExitOk;
  auto line =
      ParseCommandLine("verify", argc, argv, kSpecs, kVerifyUsage, &exit);
  if (!line) return exit;
  if (absl::Status s = NoArguments(*line); !s.ok())
    return UsageError("verify", s);
  auto index = OpenIndex(*line, OpenMode::kRead);
  if (!index.ok()) return ReportError("verify", index.status());
  auto report = VerifyIndex((*index)->store());
  if (!report.ok()) return ReportError("verify", report.status());
  for (const std::string& p : report->problems) {
    std::printf("problem: %s\n", p.c_str());
  }
  std::printf("%s: %u documents, %u rows, %llu shingles checked\n",
              report->problems.empty() ? "index OK" : "index DAMAGED",
              report->documents, report->rows,
              static_cast<unsigned long long>(report->occurrences));
  return report->problems.empty() ? kExitOk : kExitLeak;
}

// --- locations --------------------------------------------------------------

namespace {
constexpr char kLocationsUsage[] =
    "usage: leakhound locations add --index DIR LOCATION...\n"
    "       leakhound locations remove --index DIR LOCATION...\n"
    "       leakhound locations list --index DIR [--json]\n"
    "  Protected locations: URL and share-path prefixes (https://host/path/,\n"
    "  \\\\server\\share\\dir, smb://server/share, /srv/dir, C:\\dir). "
    "scan reports\n"
    "  every URL or path under one of them. Compared case-insensitively; "
    "docs/cli.md.\n";
}  // namespace

int RunLocationsCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {{"index", true}, {"json", false}};
  int exit = kExitOk;
  auto line =
      ParseCommandLine("locations", argc, argv, kSpecs, kLocationsUsage, &exit);
  if (!line) return exit;
  auto split = SplitAction("locations", *line);
  if (!split) return kExitError;
  const auto& [action, operands] = *split;
  if (action == "list") {
    auto index = OpenIndex(*line, OpenMode::kRead);
    if (!index.ok()) return ReportError("locations", index.status());
    auto listed = (*index)->ListLocations();
    if (!listed.ok()) return ReportError("locations", listed.status());
    for (const auto& [key, record] : *listed) {
      if (line->Has("json")) {
        std::printf("{\"key\":%s,\"given\":%s,\"added\":\"%s\"}\n",
                    JsonString(key).c_str(), JsonString(record.given).c_str(),
                    IsoTime(record.added_unix_ms).c_str());
      } else {
        std::printf("%-50s %s  %s\n", key.c_str(),
                    IsoTime(record.added_unix_ms).c_str(),
                    record.given.c_str());
      }
    }
    return kExitOk;
  }
  if (action != "add" && action != "remove") {
    UsageError("locations",
               absl::InvalidArgumentError(absl::StrCat(
                   "unknown action '", action, "' (add, remove or list)")));
    return kExitError;
  }
  if (operands.empty()) {
    return ReportError("locations",
                       absl::InvalidArgumentError("no location given"));
  }
  auto index = OpenIndex(*line, OpenMode::kWrite);
  if (!index.ok()) return ReportError("locations", index.status());
  if (action == "remove") {
    absl::Status s = (*index)->RemoveLocations(operands);
    if (!s.ok()) return ReportError("locations", s);
    for (const std::string& location : operands) {
      std::printf("removed   %s\n", location.c_str());
    }
    return kExitOk;
  }
  auto added = (*index)->AddLocations(operands);
  if (!added.ok()) return ReportError("locations", added.status());
  for (const auto& [key, is_new] : *added) {
    std::printf("%-9s %s\n", is_new ? "added" : "unchanged", key.c_str());
  }
  return kExitOk;
}

}  // namespace leakhound
