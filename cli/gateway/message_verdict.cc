#include "cli/gateway/message_verdict.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

#include "absl/strings/escaping.h"
#include "cli/formats/extraction.h"
#include "cli/gateway/cumulative_facts.h"
#include "cli/gateway/data_facts.h"
#include "cli/gateway/document_sensitivity.h"
#include "cli/gateway/duplicate_cache.h"
#include "cli/gateway/index_holder.h"
#include "cli/gateway/label_facts.h"
#include "cli/incidents/incident_evidence.h"
#include "engine/content_digest.h"
#include "index/index_store.h"

namespace leakhound {

MessageScanner::MessageScanner(IndexHolder* holder, DuplicateCache* cache,
                               const ScanOptions& options,
                               const ExtractionLimits& limits,
                               Evidence evidence)
    : holder_(holder),
      cache_(cache),
      options_(options),
      limits_(limits),
      evidence_(evidence),
      identifiers_(std::make_shared<const std::vector<IdentifierSpec>>(
          BuiltInIdentifiers())) {}

void MessageScanner::SetIdentifiers(std::vector<IdentifierSpec> identifiers) {
  auto shared = std::make_shared<const std::vector<IdentifierSpec>>(
      std::move(identifiers));
  absl::MutexLock lock(&pool_mu_);
  identifiers_ = std::move(shared);
  ++identifiers_version_;
}

absl::Status MessageScanner::Prepare(const IndexHolder::Snapshot& snapshot,
                                     PooledScanner& local) const {
  std::shared_ptr<const std::vector<IdentifierSpec>> identifiers;
  uint64_t version = 0;
  {
    absl::MutexLock lock(&pool_mu_);
    identifiers = identifiers_;
    version = identifiers_version_;
  }
  if (local.scanner == nullptr || local.serial != snapshot.serial) {
    auto scanner = LeakScanner::Create(*snapshot.index, options_);
    if (!scanner.ok()) return scanner.status();
    local.scanner = std::move(*scanner);
    local.data.reset();
  }
  if (local.data == nullptr || local.serial != snapshot.serial ||
      local.data_version != version) {
    const ProtectedIndex& index = *snapshot.index;
    auto data = DataScanner::Create(*identifiers, index.record_tables(),
                                    &index.store(), index.store().key());
    if (!data.ok()) return data.status();
    auto session = (*data)->NewSession();
    if (!session.ok()) return session.status();
    local.data = std::move(*data);
    local.data_session = std::move(*session);
    local.data_version = version;
  }
  local.serial = snapshot.serial;
  return absl::OkStatus();
}

namespace {

// The duplicate cache's key of an extracted message: its parts' names and
// texts and its unread parts.
std::string MessageDigest(const Extraction& extraction,
                          const std::vector<std::string>& unread) {
  std::string all;
  for (const std::string& u : unread) all.append(u).push_back('\0');
  for (const ExtractedPart& p : extraction.parts) {
    all.append(p.name).push_back('\0');
    all.append(p.text).push_back('\0');
    // The same text under another label is another message to the policy.
    for (const SensitivityLabel& l : p.labels) {
      all.append(l.id).append(l.name).push_back(l.enabled ? '1' : '0');
    }
    all.push_back(p.labellable ? '1' : '0');
  }
  return ContentDigest(all);
}

// `v` with the time since `start` (extraction and scan) set.
MessageVerdict Timed(std::chrono::steady_clock::time_point start,
                     MessageVerdict v) {
  v.milliseconds = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  return v;
}

void AddOnce(std::vector<std::string>* list, const std::string& item) {
  if (std::find(list->begin(), list->end(), item) == list->end()) {
    list->push_back(item);
  }
}

// Adds `m` to the verdict's documents for the policy: its words summed
// over the parts, its largest share, its labels from the index.
void AddMatched(const ProtectedIndex& index, const DocumentMatch& m,
                std::vector<MatchedDocument>* matched) {
  for (MatchedDocument& d : *matched) {
    if (d.id != m.external_id) continue;
    d.words += m.matched_words;
    d.share = std::max(d.share, m.coverage_of_source);
    return;
  }
  MatchedDocument d;
  d.id = m.external_id;
  d.words = m.matched_words;
  d.share = m.coverage_of_source;
  if (auto record = index.store().ReadDocument(m.doc); record.ok() && *record) {
    d.labels = (*record)->labels;
    d.sensitivity = SensitivityFacts((*record)->sensitivity);
  }
  matched->push_back(std::move(d));
}

}  // namespace

void AddPartFacts(const ExtractedPart& part, const ScanReport& report,
                  std::vector<PartFacts>* parts) {
  PartFacts p;
  p.name = part.name;
  p.labellable = part.labellable;
  for (const SensitivityLabel& l : part.labels) {
    if (l.enabled) p.labels.push_back({l.id, l.name});
  }
  for (const DocumentMatch& m : report.matches) {
    AddOnce(&p.documents, m.external_id);
  }
  if (p.labels.empty() && !p.labellable && p.documents.empty()) return;
  parts->push_back(std::move(p));
}

void AddDripSpans(const ScanReport& report, const DataFindings& data,
                  std::vector<DripSpan>* spans) {
  for (const DocumentMatch& m : report.matches) {
    for (const Passage& p : m.passages) {
      DripSpan s;
      s.target = m.external_id;
      s.begin = p.source_token_begin;
      s.end = p.source_token_end;
      s.total = m.source_tokens;
      spans->push_back(std::move(s));
    }
  }
  for (const RecordMatch& r : data.records) {
    DripSpan s;
    s.target = kTableFactPrefix + r.table;
    s.row = absl::BytesToHexString(r.row_key);
    spans->push_back(std::move(s));
  }
}

void AddMatchedFindings(const ProtectedIndex& index, const ScanReport& report,
                        std::vector<MatchedDocument>* matched) {
  for (const DocumentMatch& m : report.matches) AddMatched(index, m, matched);
  for (const LocationFinding& f : report.locations) {
    const std::string id = "location " + f.prefix;
    if (std::none_of(matched->begin(), matched->end(),
                     [&](const MatchedDocument& d) { return d.id == id; })) {
      matched->push_back({id, {}, 0, 0});
    }
  }
}

DecisionRecord RecordOf(const PolicyDecision& d,
                        const std::vector<MatchedDocument>& documents) {
  DecisionRecord r;
  if (!d.matches.empty()) r.severity = SeverityName(d.severity);
  for (const RuleMatch& m : d.matches) {
    std::vector<std::string> fired;
    for (uint32_t i : m.qualifying) {
      if (i < documents.size()) fired.push_back(documents[i].id);
    }
    r.rules.push_back({m.rule->name, SeverityName(m.severity),
                       DispositionName(m.rule->disposition), m.rule->monitor,
                       std::move(fired)});
    if (m.rule->monitor) r.would_action = DispositionName(d.would);
  }
  return r;
}

std::vector<IncidentDocument> FactsRecord(const VerdictFacts& facts) {
  std::vector<IncidentDocument> out;
  for (const MatchedDocument& m : facts.documents) {
    out.push_back({m.id, LabelsWithSensitivity(m), m.words, m.share});
  }
  for (const PartFacts& p : facts.parts) out.push_back(PartFactRecord(p));
  for (const CumulativeFact& c : facts.cumulative) {
    out.push_back(CumulativeFactRecord(c));
  }
  for (const auto& [table, rows] : facts.records) {
    out.push_back({kTableFactPrefix + table, {}, rows, 0});
  }
  for (const auto& [name, values] : facts.identifiers) {
    out.push_back({kIdentifierFactPrefix + name, {}, values, 0});
  }
  return out;
}

IncidentOverride OfferOf(const PolicyDecision& decision, Disposition action,
                         const std::string& channel, int64_t now_ms) {
  IncidentOverride o;
  const PolicyRule* rule = decision.override_rule;
  if (rule == nullptr || action < Disposition::kQuarantine) return o;
  const OverrideSettings& s = rule->override_offer;
  o.kind = s.kind;
  o.rule = rule->name;
  o.until_ms = now_ms + (channel == "web" ? int64_t{s.minutes} * 60'000
                                          : int64_t{s.hours} * 3'600'000);
  o.min_chars = s.kind == "justify" ? s.min_chars : 0;
  o.per_day = s.per_day;
  return o;
}

bool Eventful(const MessageVerdict& v, const PolicyDecision& decision) {
  return v.kind != MessageVerdict::Kind::kClean || !v.unread.empty() ||
         !decision.matches.empty();
}

Incident JudgedIncident(std::string source, MessageVerdict& v,
                        Disposition action, std::string reference,
                        const Policy* policy, const PolicyDecision& decision) {
  Incident incident;
  incident.time_ms = NowUnixMs();
  incident.source = std::move(source);
  // A clean verdict a rule matched (on data identifiers) is a leak of
  // them.
  const bool matched_clean = v.kind == MessageVerdict::Kind::kClean &&
                             v.unread.empty() && !decision.matches.empty();
  incident.kind = v.kind == MessageVerdict::Kind::kLeak || matched_clean
                      ? "leak"
                  : v.kind == MessageVerdict::Kind::kError ? "error"
                                                           : "unread";
  incident.action = DispositionName(action);
  incident.reference = std::move(reference);
  if (policy != nullptr) {
    incident.policy = policy->path;
    DecisionRecord r = RecordOf(decision, v.matched);
    incident.severity = std::move(r.severity);
    incident.rules = std::move(r.rules);
    incident.would_action = std::move(r.would_action);
    incident.override_offer =
        OfferOf(decision, action, ChannelOf(incident.source), incident.time_ms);
  }
  VerdictFacts read;
  read.documents = v.matched;
  read.parts = v.part_facts;
  read.cumulative = v.cumulative;
  read.records = v.records;
  read.identifiers = v.identifiers;
  incident.facts = FactsRecord(read);
  incident.matches = std::move(v.evidence);
  if (incident.matches.empty()) {
    for (const std::string& d : v.documents) {
      IncidentMatch m;
      m.document = d;
      incident.matches.push_back(std::move(m));
    }
    // A protected table: its rows matched as words.
    for (const auto& [table, rows] : v.records) {
      IncidentMatch m;
      m.document = "table " + table;
      m.words = rows;
      incident.matches.push_back(std::move(m));
    }
  }
  return incident;
}

MessageScanner::PooledScanner MessageScanner::TakeScanner() const {
  PooledScanner local;
  absl::MutexLock lock(&pool_mu_);
  if (!pool_.empty()) {
    local = std::move(pool_.back());
    pool_.pop_back();
  }
  return local;
}

void MessageScanner::GiveBack(PooledScanner scanner,
                              size_t text_bytes) const {
  // A scanner that read a large message keeps buffers of its size: its
  // text scanner and records session are dropped (rebuilt when next
  // needed), so that a burst of large uploads does not stay resident.
  if (text_bytes > kLargeMessageBytes) {
    scanner.scanner.reset();
    if (scanner.data != nullptr) {
      auto session = scanner.data->NewSession();
      if (session.ok()) {
        scanner.data_session = std::move(*session);
      } else {
        scanner.data.reset();
        scanner.data_session.reset();
      }
    }
  }
  const size_t max_idle =
      2 * std::max<size_t>(1, std::thread::hardware_concurrency());
  absl::MutexLock lock(&pool_mu_);
  // Bounded: past a burst, the scanners beyond what the cores keep busy
  // are freed, not kept idle.
  if (pool_.size() < max_idle) pool_.push_back(std::move(scanner));
}

void MessageScanner::AddFindings(const ProtectedIndex& index,
                                 const ExtractedPart& part,
                                 const ScanReport& report,
                                 const DataFindings& data,
                                 MessageVerdict* v) const {
  const std::string& data_text =
      part.layout_text.empty() ? part.text : part.layout_text;
  for (const RecordMatch& r : data.records) {
    if (evidence_ != Evidence::kNone) {
      AppendRecordEvidence(part.name, data_text, r,
                           evidence_ == Evidence::kSnippets, &v->evidence);
    }
    v->kind = MessageVerdict::Kind::kLeak;
    AddOnce(&v->parts, part.name);
  }
  VerdictFacts counts;
  counts.records = std::move(v->records);
  counts.identifiers = std::move(v->identifiers);
  AddDataFacts(data, &counts);
  v->records = std::move(counts.records);
  v->identifiers = std::move(counts.identifiers);
  for (const DocumentMatch& m : report.matches) {
    if (evidence_ != Evidence::kNone) {
      AppendEvidence(index, part.name, part.text, m,
                     evidence_ == Evidence::kSnippets, &v->evidence);
    }
    v->kind = MessageVerdict::Kind::kLeak;
    AddOnce(&v->documents, m.external_id);
    AddOnce(&v->parts, part.name);
  }
  for (const LocationFinding& f : report.locations) {
    if (evidence_ != Evidence::kNone) {
      AppendLocationEvidence(part.name, part.text, f,
                             evidence_ == Evidence::kSnippets, &v->evidence);
    }
    v->kind = MessageVerdict::Kind::kLeak;
    AddOnce(&v->locations, f.prefix);
    AddOnce(&v->parts, part.name);
  }
  AddMatchedFindings(index, report, &v->matched);
  AddPartFacts(part, report, &v->part_facts);
  AddDripSpans(report, data, &v->spans);
}

MessageVerdict MessageScanner::Scan(std::string_view message) const {
  const auto start = std::chrono::steady_clock::now();
  return Timed(start, Judge(ExtractBytesAs(FileKind::kMail, "message.eml",
                                           std::string(message), limits_)));
}

MessageVerdict MessageScanner::ScanFile(std::string_view name,
                                        std::string bytes) const {
  const auto start = std::chrono::steady_clock::now();
  return Timed(start, Judge(ExtractBytes(name, std::move(bytes), limits_)));
}

MessageVerdict MessageScanner::ScanExtracted(
    const std::function<absl::StatusOr<Extraction>(const ExtractionLimits&)>&
        extract) const {
  const auto start = std::chrono::steady_clock::now();
  return Timed(start, Judge(extract(limits_)));
}

MessageVerdict MessageScanner::Judge(
    absl::StatusOr<Extraction> extraction) const {
  MessageVerdict v;
  const auto error = [&v](const absl::Status& s) {
    v.documents.clear();
    v.matched.clear();
    v.part_facts.clear();
    v.spans.clear();
    v.locations.clear();
    v.records.clear();
    v.identifiers.clear();
    v.evidence.clear();
    v.parts.clear();
    v.kind = MessageVerdict::Kind::kError;
    v.error = std::string(s.message());
    return v;
  };
  if (!extraction.ok()) return error(extraction.status());
  for (const SkippedPart& skipped : extraction->skipped) {
    v.unread.push_back(std::string(skipped.name) + " (" +
                       UnreadableName(skipped.kind) + ")");
    v.unread_limit = v.unread_limit || skipped.kind == Unreadable::kLimit;
  }
  const IndexHolder::Snapshot snapshot = holder_->Current();
  std::string digest;
  if (cache_ != nullptr) {
    digest = MessageDigest(*extraction, v.unread);
    {
      // A verdict counts the identifiers in force when it was made.
      absl::MutexLock lock(&pool_mu_);
      digest += std::to_string(identifiers_version_);
    }
    if (auto cached = cache_->Lookup(digest, snapshot.generation)) {
      cached->duplicate = true;
      return *cached;
    }
  }
  // A scanner from the pool. One built on another index instance is
  // rebuilt: it does not keep its instance alive (an idle scanner must not
  // pin a retired one), so it is used only while a snapshot of the same
  // instance is held.
  PooledScanner local = TakeScanner();
  if (absl::Status s = Prepare(snapshot, local); !s.ok()) return error(s);
  size_t text_bytes = 0;
  for (const ExtractedPart& part : extraction->parts) {
    text_bytes += part.text.size() + part.layout_text.size();
  }
  for (const ExtractedPart& part : extraction->parts) {
    auto report = local.scanner->Scan(part.text);
    auto data = report.ok() ? local.data->Scan(part.layout_text.empty()
                                                   ? part.text
                                                   : part.layout_text,
                                               *local.data_session)
                            : absl::StatusOr<DataFindings>(report.status());
    if (!data.ok()) {
      GiveBack(std::move(local), text_bytes);
      return error(data.status());
    }
    AddFindings(*snapshot.index, part, *report, *data, &v);
  }
  GiveBack(std::move(local), text_bytes);
  if (cache_ != nullptr) cache_->Insert(digest, snapshot.generation, v);
  return v;
}

}  // namespace leakhound
