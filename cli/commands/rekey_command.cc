#include "cli/commands/rekey_command.h"

#include <fcntl.h>   // AT_FDCWD
#include <stdio.h>   // renameat2, RENAME_EXCHANGE (glibc >= 2.28)
#include <stdlib.h>  // mkdtemp

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "cli/commands/command_line.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/input_files.h"
#include "cli/records/table_loader.h"
#include "engine/content_digest.h"
#include "engine/protected_index.h"

namespace leakhound {
namespace {

namespace fs = std::filesystem;

constexpr char kRekeyUsage[] =
    "usage: leakhound rekey --index DIR [LIMITS]\n"
    "  Rebuilds the index under a fresh fingerprint key. Every protected "
    "document and\n"
    "  allow-list entry is read again from the file it was added from and "
    "must hold\n"
    "  the same text; if any cannot be, nothing changes. LIMITS: the --max-* "
    "options\n"
    "  of add (use the ones the files were added with).\n";

// A commit every this many bytes of text, as `add` does.
constexpr size_t kBatchBytes = size_t{32} << 20;

// What must be read again: a document or an allow-list entry.
struct Source {
  std::string name;  // external id, or the allow-list entry's name
  std::string path;
  std::string digest;
  std::vector<std::string> labels;
  bool allow = false;
  int64_t added_unix_ms = 0;
  std::vector<LabelRecord> sensitivity = {};
};

// The text of `source` if it is still what was added; else why not.
absl::StatusOr<std::string> ReadAgain(const Source& source,
                                      const ExtractionLimits& limits) {
  if (source.path.empty() || source.path == "-") {
    return absl::FailedPreconditionError(
        "it was added from standard input, which cannot be read again");
  }
  // Console uploads and allow-listings kept no copy before retained
  // copies (cli/console/retained_copy.h): there is nothing to read.
  if (source.path.starts_with("uploaded by console:") ||
      source.path.starts_with("console:")) {
    return absl::FailedPreconditionError(absl::StrCat(
        "it came from the console (", source.path,
        ") before the console kept copies; upload or allow-list it again, "
        "then rekey"));
  }
  auto text = ExtractFile(source.path, limits);
  if (!text.ok()) {
    return absl::Status(text.status().code(),
                        absl::StrCat("cannot read ", source.path, ": ",
                                     text.status().message()));
  }
  std::string joined = text->JoinedText();
  if (ContentDigest(joined) != source.digest) {
    return absl::FailedPreconditionError(
        absl::StrCat(source.path, " has changed since it was added"));
  }
  return joined;
}

// Every document and allow-list entry of the index, as added.
absl::StatusOr<std::vector<Source>> ReadSources(ProtectedIndex& index) {
  std::vector<Source> sources;
  absl::Status s =
      index.ForEachDocument([&](uint32_t, const DocumentRecord& r) {
        sources.push_back({r.external_id, r.source, r.digest, r.labels, false,
                           r.added_unix_ms, r.sensitivity});
        return absl::OkStatus();
      });
  if (s.ok()) {
    s = index.store().ForEachAllowEntry([&](std::string_view name,
                                            const AllowRecord& r) {
      sources.push_back(
          {std::string(name), r.source, r.digest, {}, true, r.added_unix_ms});
      return absl::OkStatus();
    });
  }
  if (!s.ok()) return s;
  return sources;
}

// What RebuildFrom staged, and the first error (or the number of sources
// that could not be read again).
struct Rebuilt {
  absl::Status status;
  size_t problems = 0, documents = 0, allowed = 0, tables = 0;
};

// Reads, checks and stages every source into `fresh` in one pass; after
// the first problem only checks, so that every source that cannot be read
// again is named. Then the locations.
Rebuilt RebuildFrom(const std::vector<Source>& sources,
                    const std::vector<std::string>& locations,
                    const ExtractionLimits& limits, ProtectedIndex& fresh,
                    Shingler& shingler) {
  Rebuilt r;
  absl::Status& s = r.status;
  size_t pending_bytes = 0;
  for (const Source& source : sources) {
    auto text = ReadAgain(source, limits);
    if (!text.ok()) {
      ++r.problems;
      ReportError(
          "rekey", text.status(),
          absl::StrCat(source.allow ? "allow-list entry " : "", source.name));
      continue;
    }
    if (r.problems > 0) continue;
    if (source.allow) {
      s = fresh.AddAllowed(source.name, source.path, *text).status();
      if (!s.ok()) break;
      ++r.allowed;
      continue;
    }
    auto prepared = ProtectedIndex::Prepare(
        shingler, DocumentInput{source.name, source.path, source.labels, *text,
                                false, source.sensitivity});
    if (!prepared.ok()) {
      s = prepared.status();
      break;
    }
    prepared->added_unix_ms = source.added_unix_ms;
    auto staged = fresh.Stage(std::move(*prepared));
    if (!staged.ok()) {
      s = staged.status();
      break;
    }
    ++r.documents;
    pending_bytes += text->size();
    if (pending_bytes >= kBatchBytes) {
      s = fresh.Commit();
      if (!s.ok()) break;
      pending_bytes = 0;
    }
  }
  if (s.ok() && r.problems == 0) s = fresh.Commit();
  if (s.ok() && r.problems == 0 && !locations.empty()) {
    s = fresh.AddLocations(locations).status();
  }
  return r;
}

// `dir` made absolute, so that "." or "idx/" name the directory itself,
// and a new empty directory beside it (a rename never crosses file
// systems) for the rebuilt index.
absl::Status MakeFreshDir(const std::string& dir, std::string* index_dir,
                          std::string* fresh_dir) {
  std::error_code ec;
  *index_dir = fs::absolute(dir, ec).lexically_normal().string();
  if (ec) return absl::InternalError(ec.message());
  while (index_dir->size() > 1 && index_dir->back() == '/') {
    index_dir->pop_back();
  }
  *fresh_dir = *index_dir + ".rekey-XXXXXX";
  if (::mkdtemp(fresh_dir->data()) == nullptr) {
    return absl::ErrnoToStatus(errno,
                               "cannot create a directory beside the index "
                               "for the new one");
  }
  return absl::OkStatus();
}

// Hashes every protected table of `old_index` again under `fresh`'s key,
// from the file it was added from (docs/records.md): the cells are not
// kept, only their hashes under the old key. FailedPrecondition naming the
// table when its file cannot be read or no longer has the rows it had.
absl::Status RehashTables(const ProtectedIndex& old_index,
                          ProtectedIndex& fresh, size_t* tables) {
  for (const auto& t : old_index.record_tables()->tables()) {
    const RecordTableRecord& r = t->record;
    TableLoadOptions options;
    options.name = t->name;
    options.path = r.source;
    options.delimiter = static_cast<char>(r.delimiter);
    auto loaded = LoadTable(fresh, SchemaOfTable(r), options);
    if (loaded.ok() && loaded->rows != r.rows) {
      loaded = absl::FailedPreconditionError(absl::StrCat(
          r.source, " now has ", loaded->rows, " rows, it had ", r.rows));
    }
    if (!loaded.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "table ", t->name,
          " cannot be hashed again from the file it was "
          "added from (",
          loaded.status().message(),
          "); bring the file "
          "back or replace the table, then rekey; nothing changed, the "
          "index keeps its key"));
    }
    ++*tables;
  }
  return absl::OkStatus();
}

// Builds the new index in `fresh_dir` from `old_index`'s sources; counts
// in *rebuilt. The new index is closed, its files complete on disk.
absl::Status BuildFresh(ProtectedIndex& old_index,
                        const std::vector<Source>& sources,
                        const std::vector<std::string>& locations,
                        const ExtractionLimits& limits,
                        const std::string& fresh_dir, Rebuilt* rebuilt) {
  auto fresh = ProtectedIndex::Create(fresh_dir, old_index.options());
  if (!fresh.ok()) return fresh.status();
  auto shingler = (*fresh)->NewShingler();
  if (!shingler.ok()) return shingler.status();
  *rebuilt = RebuildFrom(sources, locations, limits, **fresh, **shingler);
  if (!rebuilt->status.ok()) return rebuilt->status;
  if (rebuilt->problems > 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        rebuilt->problems, " of ", sources.size(),
        " protected sources cannot be read again as they were added "
        "(above); nothing changed, the index keeps its key"));
  }
  return RehashTables(old_index, **fresh, &rebuilt->tables);
}

}  // namespace

int RunRekeyCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {{"index", true}};
  static constexpr auto kAllSpecs = WithLimitOptions(kSpecs);
  int exit = kExitOk;
  auto line =
      ParseCommandLine("rekey", argc, argv, kAllSpecs, kRekeyUsage, &exit);
  if (!line) return exit;
  if (absl::Status s = NoArguments(*line); !s.ok()) {
    return UsageError("rekey", s);
  }
  auto limits = FileLimits(*line);
  if (!limits.ok()) return ReportError("rekey", limits.status());
  auto dir = line->IndexDir();
  if (!dir.ok()) return ReportError("rekey", dir.status());
  // The writer lock is held until the swap is done. The old index may be
  // of an older shingler version: rekey is how it is brought up to date.
  auto old_index = OpenIndex(*line, OpenMode::kRebuild);
  if (!old_index.ok()) return ReportError("rekey", old_index.status());
  auto sources = ReadSources(**old_index);
  if (!sources.ok()) return ReportError("rekey", sources.status());
  auto locations = (*old_index)->ListLocations();
  if (!locations.ok()) return ReportError("rekey", locations.status());
  std::vector<std::string> given;
  for (const auto& [key, record] : *locations) given.push_back(record.given);

  std::string index_dir, fresh_dir;
  if (absl::Status s = MakeFreshDir(*dir, &index_dir, &fresh_dir); !s.ok()) {
    return ReportError("rekey", s);
  }
  auto discard = [&fresh_dir] {
    std::error_code ignored;
    fs::remove_all(fresh_dir, ignored);
  };
  Rebuilt rebuilt;
  if (absl::Status s = BuildFresh(**old_index, *sources, given, *limits,
                                  fresh_dir, &rebuilt);
      !s.ok()) {
    discard();
    return ReportError("rekey", s);
  }
  // The swap: atomic, so DIR is always one whole index. The old database
  // is closed first (RocksDB works by path: closed after the swap, it would
  // write into the new index), its writer lock kept until the swap is done.
  (*old_index)->CloseKeepingLock();
  if (::renameat2(AT_FDCWD, fresh_dir.c_str(), AT_FDCWD, index_dir.c_str(),
                  RENAME_EXCHANGE) != 0) {
    const int error = errno;
    discard();
    return ReportError("rekey", absl::ErrnoToStatus(
                                    error, "cannot swap the rebuilt index in"));
  }
  old_index->reset();  // releases the lock; its files are now at fresh_dir
  discard();
  std::printf(
      "rekeyed %s: %zu documents, %zu allow-list entries, %zu locations and "
      "%zu protected tables under a new key\n",
      index_dir.c_str(), rebuilt.documents, rebuilt.allowed, locations->size(),
      rebuilt.tables);
  return kExitOk;
}

}  // namespace leakhound
