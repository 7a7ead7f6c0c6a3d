#include "cli/gateway/message_verdict.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "cli/formats/extraction.h"
#include "cli/incidents/incident_evidence.h"
#include "cli/gateway/duplicate_cache.h"
#include "cli/gateway/index_holder.h"
#include "engine/content_digest.h"

namespace leakhound {

const char* VerdictName(MessageVerdict::Kind kind) {
  switch (kind) {
    case MessageVerdict::Kind::kClean: return "clean";
    case MessageVerdict::Kind::kLeak: return "leak";
    case MessageVerdict::Kind::kError: return "error";
  }
  return "?";
}

MessageScanner::MessageScanner(IndexHolder* holder, DuplicateCache* cache,
                               const ScanOptions& options,
                               const ExtractionLimits& limits,
                               Evidence evidence)
    : holder_(holder),
      cache_(cache),
      options_(options),
      limits_(limits),
      evidence_(evidence) {}

MessageVerdict MessageScanner::Scan(std::string_view message) const {
  const auto start = std::chrono::steady_clock::now();
  MessageVerdict v;
  auto finish = [&](MessageVerdict verdict) {
    verdict.milliseconds = std::chrono::duration<double, std::milli>(
                               std::chrono::steady_clock::now() - start)
                               .count();
    return verdict;
  };
  auto extraction = ExtractBytesAs(FileKind::kMail, "message.eml",
                                   std::string(message), limits_);
  if (!extraction.ok()) {
    v.kind = MessageVerdict::Kind::kError;
    v.error = std::string(extraction.status().message());
    return finish(v);
  }
  for (const SkippedPart& skipped : extraction->skipped) {
    v.unread.push_back(
        std::string(skipped.name) + " (" + UnreadableName(skipped.kind) + ")");
  }
  const IndexHolder::Snapshot snapshot = holder_->Current();
  std::string digest;
  if (cache_ != nullptr) {
    std::string all;
    for (const std::string& unread : v.unread) all.append(unread).push_back('\0');
    for (const ExtractedPart& p : extraction->parts) {
      all.append(p.name).push_back('\0');
      all.append(p.text).push_back('\0');
    }
    digest = ContentDigest(all);
    if (auto cached = cache_->Lookup(digest, snapshot.generation)) {
      cached->duplicate = true;
      return finish(*cached);
    }
  }
  // A scanner from the pool. One built on another index instance is
  // rebuilt: it does not keep its instance alive (an idle scanner must not
  // pin a retired one), so it is used only while a snapshot of the same
  // instance is held.
  PooledScanner local;
  {
    absl::MutexLock lock(&pool_mu_);
    if (!pool_.empty()) {
      local = std::move(pool_.back());
      pool_.pop_back();
    }
  }
  if (local.scanner == nullptr || local.serial != snapshot.serial) {
    auto scanner = LeakScanner::Create(*snapshot.index, options_);
    if (!scanner.ok()) {
      v.kind = MessageVerdict::Kind::kError;
      v.error = std::string(scanner.status().message());
      return finish(v);
    }
    local.scanner = std::move(*scanner);
    local.serial = snapshot.serial;
  }
  auto give_back = [&] {
    absl::MutexLock lock(&pool_mu_);
    pool_.push_back(std::move(local));
  };
  for (const ExtractedPart& part : extraction->parts) {
    auto report = local.scanner->Scan(part.text);
    if (!report.ok()) {
      give_back();
      v.documents.clear();
      v.locations.clear();
      v.evidence.clear();
      v.parts.clear();
      v.kind = MessageVerdict::Kind::kError;
      v.error = std::string(report.status().message());
      return finish(v);
    }
    for (const DocumentMatch& m : report->matches) {
      if (evidence_ != Evidence::kNone) {
        AppendEvidence(*snapshot.index, part.name, part.text, m,
                       evidence_ == Evidence::kSnippets, &v.evidence);
      }
      v.kind = MessageVerdict::Kind::kLeak;
      if (std::find(v.documents.begin(), v.documents.end(), m.external_id) ==
          v.documents.end()) {
        v.documents.push_back(m.external_id);
      }
      if (std::find(v.parts.begin(), v.parts.end(), part.name) == v.parts.end()) {
        v.parts.push_back(part.name);
      }
    }
    for (const LocationFinding& f : report->locations) {
      if (evidence_ != Evidence::kNone) {
        AppendLocationEvidence(part.name, part.text, f,
                               evidence_ == Evidence::kSnippets, &v.evidence);
      }
      v.kind = MessageVerdict::Kind::kLeak;
      if (std::find(v.locations.begin(), v.locations.end(), f.prefix) ==
          v.locations.end()) {
        v.locations.push_back(f.prefix);
      }
      if (std::find(v.parts.begin(), v.parts.end(), part.name) == v.parts.end()) {
        v.parts.push_back(part.name);
      }
    }
  }
  give_back();
  if (cache_ != nullptr) cache_->Insert(digest, snapshot.generation, v);
  return finish(v);
}

}  // namespace leakhound
