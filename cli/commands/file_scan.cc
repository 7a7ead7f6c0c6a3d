#include "cli/commands/file_scan.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>

#include "absl/strings/escaping.h"
#include "cli/discover/content_hash.h"
#include "cli/formats/mime_extractor.h"
#include "cli/gateway/data_facts.h"
#include "cli/incidents/incident_evidence.h"
#include "engine/content_digest.h"

namespace leakhound {
namespace {

// The extraction of `file`; with `record`, from one read that also gives
// o->sha256 or o->digest and, for an e-mail, o->mail.
absl::StatusOr<Extraction> ReadAndExtract(const InputFile& file,
                                          const ExtractionLimits& limits,
                                          FileRecord record, FileOutcome* o) {
  if (record == FileRecord::kNone || !file.problem.ok()) {
    return ExtractInput(file, limits);
  }
  auto bytes = ReadFileBounded(file.path, limits.max_input_bytes);
  if (!bytes.ok()) return bytes.status();
  if (record == FileRecord::kSha256) {
    o->sha256 = absl::BytesToHexString(ContentDigest(*bytes));
  } else {
    o->digest = FastContentHash(*bytes);
  }
  const std::string_view all(*bytes);
  if (LooksLikeMailHeaders(all.substr(0, kTypeHeadBytes))) {
    // The header block alone: the body is parsed once, by extraction.
    size_t end = all.find("\r\n\r\n");
    if (end == std::string_view::npos) end = all.find("\n\n");
    o->mail = ReadMailHeaders(all.substr(0, end));
  }
  return ExtractBytes(file.path, std::move(*bytes), limits);
}

}  // namespace

FileOutcome ScanOne(const InputFile& file, LeakScanner* scanner,
                    const DataScanner& data_scanner,
                    DataScanner::Session& data_session,
                    const ExtractionLimits& limits, bool keep_text,
                    const ProtectedIndex* candidates_of,
                    UnreadablePolicy unreadable, FileRecord record) {
  const auto start = std::chrono::steady_clock::now();
  FileOutcome o;
  o.path = file.path;
  auto extraction = ReadAndExtract(file, limits, record, &o);
  if (!extraction.ok() &&
      SkipUnreadable(extraction.status(), file, unreadable)) {
    o.skipped.push_back(SkippedPart{
        "", std::string(extraction.status().message()),
        UnreadableOf(extraction.status()).value_or(Unreadable::kUnsupported)});
    std::error_code ignored;
    const auto size = std::filesystem::file_size(file.path, ignored);
    if (!ignored) o.bytes = size;
  } else if (!extraction.ok()) {
    o.error = extraction.status();
    std::error_code ignored;
    const auto size = std::filesystem::file_size(file.path, ignored);
    if (!ignored) o.bytes = size;
  } else {
    o.bytes = extraction->input_bytes;
    o.format = extraction->format;
    o.skipped = std::move(extraction->skipped);
    if (extraction->invalid_sequences > 0) {
      std::fprintf(stderr,
                   "leakhound scan: %s: %zu ill-formed UTF-8 sequences read "
                   "as U+FFFD\n",
                   file.path.c_str(), extraction->invalid_sequences);
    }
    for (ExtractedPart& part : extraction->parts) {
      auto report = scanner->Scan(part.text);
      if (!report.ok()) {
        o.error = report.status();
        o.parts.clear();
        break;
      }
      auto data = data_scanner.Scan(
          part.layout_text.empty() ? part.text : part.layout_text,
          data_session);
      if (!data.ok()) {
        o.error = data.status();
        o.parts.clear();
        break;
      }
      AddPartFacts(part, *report, &o.part_facts);
      PartOutcome p{std::move(part.name), "", std::move(*report),
                    std::move(*data),     "", {}};
      if (candidates_of != nullptr) {
        // The scanner has just read these documents: the cache holds them.
        for (DocId doc : p.report.candidates) {
          auto stored = candidates_of->ReadStoredDocument(doc);
          if (stored.ok()) p.candidate_ids.push_back((*stored)->external_id);
        }
      }
      if (keep_text &&
          (!p.report.matches.empty() || !p.report.locations.empty() ||
           !p.data.records.empty())) {
        p.text = std::move(part.text);
      }
      if (keep_text && !p.data.records.empty()) {
        p.layout_text = std::move(part.layout_text);
      }
      o.parts.push_back(std::move(p));
    }
  }
  o.elapsed_ms = std::chrono::duration<double, std::milli>(
                     std::chrono::steady_clock::now() - start)
                     .count();
  return o;
}

namespace {

// Records what an incident keeps of the file itself, read when it was
// extracted: its SHA-256 and, for an e-mail, its sender, recipients,
// subject and Message-ID (as the milter records the SMTP envelope).
void RecordFileFacts(const FileOutcome& o, Incident* incident) {
  incident->sha256 = o.sha256;
  if (o.format != "mail" || !o.mail) return;
  incident->sender = o.mail->from;
  incident->recipients = o.mail->recipients;
  incident->subject = o.mail->subject;
  incident->message_id = o.mail->message_id;
}

}  // namespace

Incident ScanIncident(const FileOutcome& o, const ProtectedIndex& index,
                      const std::string& run_id, bool snippets) {
  Incident incident;
  incident.time_ms = NowUnixMs();
  incident.source = "scan";
  incident.kind = "leak";
  incident.action = "reported";
  incident.run_id = run_id;
  // A reference as the gateway's incidents have: the SIEM's externalId and
  // the console link name it.
  incident.reference =
      o.reference.empty() ? NewIncidentReference() : o.reference;
  incident.file_path = o.path;
  incident.file_size = o.bytes;
  RecordFileFacts(o, &incident);
  for (const PartOutcome& p : o.parts) {
    for (const DocumentMatch& m : p.report.matches) {
      AppendEvidence(index, p.name, p.text, m, snippets, &incident.matches);
    }
    for (const RecordMatch& r : p.data.records) {
      AppendRecordEvidence(p.name,
                           p.layout_text.empty() ? p.text : p.layout_text, r,
                           snippets, &incident.matches);
    }
    for (const LocationFinding& f : p.report.locations) {
      AppendLocationEvidence(p.name, p.text, f, snippets, &incident.matches);
    }
  }
  return incident;
}

VerdictFacts OutcomeFacts(const ProtectedIndex& index, const FileOutcome& o) {
  VerdictFacts facts;
  for (const PartOutcome& p : o.parts) {
    AddMatchedFindings(index, p.report, &facts.documents);
    AddDataFacts(p.data, &facts);
  }
  facts.parts = o.part_facts;
  facts.unread = !o.skipped.empty();
  facts.unread_limit = std::any_of(
      o.skipped.begin(), o.skipped.end(),
      [](const SkippedPart& p) { return p.kind == Unreadable::kLimit; });
  facts.error = !o.error.ok();
  return facts;
}

MessageVerdict::Kind OutcomeKind(const VerdictFacts& facts) {
  if (facts.error) return MessageVerdict::Kind::kError;
  return !facts.documents.empty() || !facts.records.empty()
             ? MessageVerdict::Kind::kLeak
             : MessageVerdict::Kind::kClean;
}

}  // namespace leakhound
