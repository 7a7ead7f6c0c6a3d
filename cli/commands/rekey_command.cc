#include "cli/commands/rekey_command.h"

#include <stdio.h>  // renameat2, RENAME_EXCHANGE (glibc >= 2.28)
#include <fcntl.h>  // AT_FDCWD
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
    return absl::FailedPreconditionError(absl::StrCat(
        source.path, " has changed since it was added"));
  }
  return joined;
}

}  // namespace

int RunRekeyCommand(int argc, char** argv) {
  static constexpr OptionSpec kSpecs[] = {{"index", true}};
  static constexpr auto kAllSpecs = WithLimitOptions(kSpecs);
  int exit = kExitOk;
  auto line = ParseCommandLine("rekey", argc, argv, kAllSpecs, kRekeyUsage, &exit);
  if (!line) return exit;
  if (absl::Status s = NoArguments(*line); !s.ok()) return UsageError("rekey", s);
  if (!line->args().empty()) {
    return ReportError("rekey", absl::InvalidArgumentError("rekey takes no paths"));
  }
  auto limits = FileLimits(*line);
  if (!limits.ok()) return ReportError("rekey", limits.status());
  auto dir = line->IndexDir();
  if (!dir.ok()) return ReportError("rekey", dir.status());
  // The writer lock is held until the swap is done. The old index may be
  // of an older shingler version: rekey is how it is brought up to date.
  auto old_index = OpenIndex(*line, OpenMode::kRebuild);
  if (!old_index.ok()) return ReportError("rekey", old_index.status());

  std::vector<Source> sources;
  absl::Status s = (*old_index)->ForEachDocument(
      [&](uint32_t, const DocumentRecord& r) {
        sources.push_back(
            {r.external_id, r.source, r.digest, r.labels, false, r.added_unix_ms});
        return absl::OkStatus();
      });
  if (s.ok()) {
    s = (*old_index)->store().ForEachAllowEntry(
        [&](std::string_view name, const AllowRecord& r) {
          sources.push_back(
              {std::string(name), r.source, r.digest, {}, true, r.added_unix_ms});
          return absl::OkStatus();
        });
  }
  auto locations = (*old_index)->ListLocations();
  if (s.ok()) s = locations.status();
  if (!s.ok()) return ReportError("rekey", s);

  // The new index, beside the old one (a rename never crosses file systems).
  // Absolute, so that "." or "idx/" name the directory itself.
  std::error_code ec;
  std::string index_dir = fs::absolute(*dir, ec).lexically_normal().string();
  if (ec) return ReportError("rekey", absl::InternalError(ec.message()));
  while (index_dir.size() > 1 && index_dir.back() == '/') index_dir.pop_back();
  std::string fresh_dir = index_dir + ".rekey-XXXXXX";
  if (::mkdtemp(fresh_dir.data()) == nullptr) {
    return ReportError("rekey", absl::ErrnoToStatus(
                                    errno, "cannot create a directory beside "
                                           "the index for the new one"));
  }
  auto discard = [&fresh_dir] {
    std::error_code ignored;
    fs::remove_all(fresh_dir, ignored);
  };
  auto fresh = ProtectedIndex::Create(fresh_dir, (*old_index)->options());
  if (!fresh.ok()) {
    discard();
    return ReportError("rekey", fresh.status());
  }
  auto shingler = (*fresh)->NewShingler();
  if (!shingler.ok()) {
    discard();
    return ReportError("rekey", shingler.status());
  }

  // One pass: read, check and stage; after the first problem, only check,
  // so that every source that cannot be read again is named.
  size_t problems = 0, documents = 0, allowed = 0, pending_bytes = 0;
  for (const Source& source : sources) {
    auto text = ReadAgain(source, *limits);
    if (!text.ok()) {
      ++problems;
      ReportError("rekey", text.status(),
                  absl::StrCat(source.allow ? "allow-list entry " : "",
                               source.name));
      continue;
    }
    if (problems > 0) continue;
    if (source.allow) {
      s = (*fresh)->AddAllowed(source.name, source.path, *text).status();
      if (!s.ok()) break;
      ++allowed;
      continue;
    }
    auto prepared = ProtectedIndex::Prepare(
        **shingler, DocumentInput{source.name, source.path, source.labels, *text});
    if (!prepared.ok()) {
      s = prepared.status();
      break;
    }
    prepared->added_unix_ms = source.added_unix_ms;
    auto staged = (*fresh)->Stage(std::move(*prepared));
    if (!staged.ok()) {
      s = staged.status();
      break;
    }
    ++documents;
    pending_bytes += text->size();
    if (pending_bytes >= kBatchBytes) {
      s = (*fresh)->Commit();
      if (!s.ok()) break;
      pending_bytes = 0;
    }
  }
  if (s.ok() && problems == 0) s = (*fresh)->Commit();
  if (s.ok() && problems == 0) {
    std::vector<std::string> given;
    for (const auto& [key, record] : *locations) given.push_back(record.given);
    if (!given.empty()) s = (*fresh)->AddLocations(given).status();
  }
  fresh->reset();  // closed: its files complete on disk
  if (!s.ok() || problems > 0) {
    discard();
    if (!s.ok()) return ReportError("rekey", s);
    return ReportError(
        "rekey", absl::FailedPreconditionError(absl::StrCat(
                     problems, " of ", sources.size(),
                     " protected sources cannot be read again as they were "
                     "added (above); nothing changed, the index keeps its key")));
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
      "rekeyed %s: %zu documents, %zu allow-list entries and %zu locations "
      "under a new key\n",
      index_dir.c_str(), documents, allowed, locations->size());
  return kExitOk;
}

}  // namespace leakhound
