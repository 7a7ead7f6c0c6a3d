#include "cli/records/data_scanner.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "cli/records/data_validators.h"
#include "cli/records/folded_spaces.h"
#include "cli/records/match_starts.h"
#include "cli/records/phone_numbers.h"

namespace leakhound {
namespace {

// Longest run of words a cell of each type is looked for in.
uint32_t RunWords(const RecordColumnRecord& column) {
  switch (static_cast<CellType>(column.type)) {
    case CellType::kEmail:
      return 1;
    case CellType::kDate:
      return 5;  // "2 de marzo de 1985"
    case CellType::kIban:
      return 9;
    case CellType::kName:
    case CellType::kText:
      return std::clamp<uint32_t>(column.max_words, 1, 16);
    default:
      return 6;
  }
}
// What candidates of a primary column of a pattern-found type are found
// by: its type's validator pattern, a phone's candidate pattern, or a
// national id's own (case-insensitive) pattern.
ScanPattern PrimaryPattern(const RecordColumnRecord& column) {
  switch (static_cast<CellType>(column.type)) {
    case CellType::kPhone:
      return {std::string(kPhoneCandidatePattern), false, PhoneCandidateStart};
    case CellType::kNationalId:
      return {column.pattern, true, nullptr};
    default: {
      const auto type = static_cast<CellType>(column.type);
      const Validator v = type == CellType::kCard   ? Validator::kCard
                          : type == CellType::kIban ? Validator::kIban
                                                    : Validator::kEmail;
      return {std::string(ValidatorPattern(v)), false,
              ValidatorPatternStart(v)};
    }
  }
}
bool ByWords(CellType type) {
  return type == CellType::kName || type == CellType::kText;
}

// The digit groups of `span` joined in every contiguous stretch that makes
// a phone number's length, as written (a leading 00 dropped); then the
// stretches written without a country code read in each of `regions`.
// Returns where those national readings begin in *forms (they need
// E164Valid on a hit). "+49 (0)30" reads as "+49 30".
size_t PhoneForms(std::string_view span,
                  const std::vector<PhoneRegion>& regions,
                  std::vector<std::string>* forms) {
  const std::string written = WithoutTrunkInParentheses(span);
  span = written;
  struct Group {
    std::string_view digits;
    // After a '+' or 00, or after a group that is: no national reading.
    bool international;
  };
  std::vector<Group> groups;
  for (size_t i = 0; i < span.size() && groups.size() < 8;) {
    if (span[i] < '0' || span[i] > '9') {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < span.size() && span[j] >= '0' && span[j] <= '9') ++j;
    const std::string_view digits = span.substr(i, j - i);
    const bool international =
        (!groups.empty() && groups.back().international) ||
        (i > 0 && span[i - 1] == '+') || digits.starts_with("00");
    groups.push_back({digits, international});
    i = j;
  }
  std::vector<std::string> national;
  // A number written with its country code begins there: the joins from
  // its first group are all it can be.
  const size_t starts =
      !groups.empty() && groups[0].international ? 1 : groups.size();
  for (size_t a = 0; a < starts; ++a) {
    std::string joined;
    for (size_t b = a; b < groups.size(); ++b) {
      joined += groups[b].digits;
      std::string form = joined;
      if (form.starts_with("00")) form.erase(0, 2);
      if (form.size() > 15) break;
      if (form.size() < 7) continue;
      // A national number is read from the candidate's first group only.
      if (a == 0 && !groups[a].international && !regions.empty()) {
        national.push_back(form);
      }
      forms->push_back(std::move(form));
    }
  }
  const size_t national_from = forms->size();
  for (const std::string& n : national) AddNationalForms(n, regions, forms);
  return national_from;
}

// A value's identity for distinct counts, without a copy: the 64-bit
// FNV-1a hash of its letters and digits in upper case (an e-mail address:
// of all its characters in lower case). FNV is no defence against values
// made to collide, but the values are the leaked data, which a sender does
// not choose; two distinct values of one text share a key by chance with
// odds of about 2^-64 per pair, and then count once.
uint64_t ValueKey(Validator v, std::string_view value) {
  uint64_t h = 0xcbf29ce484222325u;
  for (char c : value) {
    const auto u = static_cast<unsigned char>(c);
    unsigned char k = u;
    if (v == Validator::kEmail) {
      k = static_cast<unsigned char>(absl::ascii_tolower(u));
    } else if (absl::ascii_isalnum(u)) {
      k = static_cast<unsigned char>(absl::ascii_toupper(u));
    } else {
      continue;
    }
    h = (h ^ k) * 0x100000001b3u;
  }
  return h;
}

std::string Keyword(std::string_view word) {
  while (!word.empty() &&
         std::string_view(".:-").find(word.back()) != std::string_view::npos) {
    word.remove_suffix(1);
  }
  return absl::AsciiStrToLower(std::string(word));
}

// Whether one of `spec`'s keywords is within its distance of the match
// beginning at byte `begin`.
bool HasKeyword(std::string_view text, const std::vector<WordSpan>& words,
                uint32_t begin, const IdentifierSpec& spec) {
  auto at = std::lower_bound(
      words.begin(), words.end(), begin,
      [](const WordSpan& w, uint32_t b) { return w.end <= b; });
  const size_t w0 = static_cast<size_t>(at - words.begin());
  const size_t lo = w0 > spec.keyword_distance ? w0 - spec.keyword_distance : 0;
  const size_t hi = std::min(words.size(), w0 + 1 + spec.keyword_distance);
  if (lo >= hi) return false;
  // A keyword in a script without spaces (卡号) spans several words: it is
  // looked for in the window's text.
  const std::string_view window =
      text.substr(words[lo].begin, words[hi - 1].end - words[lo].begin);
  for (const std::string& k : spec.keywords) {
    if (std::any_of(
            k.begin(), k.end(),
            [](char c) { return static_cast<unsigned char>(c) >= 0x80; }) &&
        window.find(k) != std::string_view::npos) {
      return true;
    }
  }
  for (size_t w = lo; w < hi; ++w) {
    const std::string word =
        Keyword(text.substr(words[w].begin, words[w].end - words[w].begin));
    for (const std::string& k : spec.keywords) {
      if (word == Keyword(k)) return true;
    }
  }
  return false;
}

// Whether `word` has a character of the kind a cell of `type` begins and
// ends with: a digit for numbers, a letter for names, a letter or digit
// for the rest. A run of words is tried only between two such words, so
// that a match's span holds the value and not the words around it.
bool CanEdge(CellType type, std::string_view word) {
  const bool digits = type == CellType::kPhone || type == CellType::kCard;
  const bool letters = type == CellType::kName;
  for (char c : word) {
    const auto u = static_cast<unsigned char>(c);
    if (digits    ? absl::ascii_isdigit(u)
        : letters ? (absl::ascii_isalpha(u) || u >= 0x80)
                  : (absl::ascii_isalnum(u) || u >= 0x80)) {
      return true;
    }
  }
  return false;
}

// Whether a cell of `type` can begin with `word` (beyond CanEdge): an IBAN
// with its country's two letters, an e-mail address is one word with an @.
// Runs that cannot be such a cell are not hashed.
bool CanBegin(CellType type, std::string_view word) {
  switch (type) {
    case CellType::kIban:
      return word.size() >= 2 &&
             absl::ascii_isalpha(static_cast<unsigned char>(word[0])) &&
             absl::ascii_isalpha(static_cast<unsigned char>(word[1]));
    case CellType::kEmail:
      return word.find('@') != std::string_view::npos;
    default:
      return CanEdge(type, word);
  }
}

}  // namespace

struct DataScanner::Use {
  enum class Kind { kIdentifier, kPrimary } kind = Kind::kIdentifier;
  size_t identifier = 0;
  CellType type = CellType::kText;
  std::vector<std::pair<const LoadedRecordTable*, uint8_t>> columns;
};

struct DataScanner::Hit {
  const LoadedRecordTable* table = nullptr;
  uint8_t column = 0;
  uint32_t row = 0;
  uint64_t hash = 0;
  uint32_t begin = 0;
  uint32_t end = 0;
};

const std::vector<WordSpan>& DataScanner::Session::Words(
    std::string_view text) {
  if (!words_ready) {
    words = SplitWords(text);
    words_ready = true;
  }
  return words;
}

uint32_t DataFindings::RecordsOf(std::string_view table) const {
  uint32_t n = 0;
  for (const RecordMatch& m : records) {
    if (table.empty() || m.table == table) ++n;
  }
  return n;
}

uint32_t DataFindings::IdentifierDistinct(std::string_view name) const {
  for (const IdentifierCount& c : identifiers) {
    if (c.name == name) return c.distinct;
  }
  return 0;
}

DataScanner::~DataScanner() = default;

absl::StatusOr<std::unique_ptr<DataScanner>> DataScanner::Create(
    std::vector<IdentifierSpec> identifiers,
    std::shared_ptr<const RecordTables> tables, const IndexStore* store,
    std::string_view index_key) {
  auto scanner = std::unique_ptr<DataScanner>(new DataScanner());
  scanner->identifiers_ = std::move(identifiers);
  scanner->tables_ = store != nullptr && tables != nullptr
                         ? std::move(tables)
                         : std::make_shared<const RecordTables>();
  scanner->store_ = store;
  if (!index_key.empty()) {
    auto hasher = CellHasher::Create(index_key);
    if (!hasher.ok()) return hasher.status();
    scanner->hasher_ = std::move(*hasher);
  }
  std::vector<ScanPattern> patterns;
  std::map<std::pair<std::string, bool>, size_t> ids;
  // A pattern's start function depends on its text alone.
  auto id_of = [&](std::string regex, bool caseless, MatchStart start) {
    auto [it, added] = ids.try_emplace({regex, caseless}, patterns.size());
    if (added) {
      patterns.push_back({std::move(regex), caseless, start});
      scanner->uses_.emplace_back();
    }
    return it->second;
  };
  for (size_t i = 0; i < scanner->identifiers_.size(); ++i) {
    const IdentifierSpec& spec = scanner->identifiers_[i];
    const bool own = spec.pattern.empty();
    std::string regex =
        own ? std::string(ValidatorPattern(spec.validator)) : spec.pattern;
    if (regex.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "identifier ", spec.name, " needs a pattern or a validator"));
    }
    Use use;
    use.identifier = i;
    scanner
        ->uses_[id_of(std::move(regex), spec.caseless,
                      own ? ValidatorPatternStart(spec.validator) : nullptr)]
        .push_back(use);
  }
  if (scanner->hasher_ != nullptr) {
    for (const auto& table : scanner->tables_->tables()) {
      const auto& columns = table->record.columns;
      for (size_t c = 0; c < columns.size(); ++c) {
        scanner->AddPhoneRegions(columns[c]);
        scanner->AddRunType(columns[c]);
        const auto type = static_cast<CellType>(columns[c].type);
        if ((type == CellType::kName || type == CellType::kText) &&
            !columns[c].marks_folded) {
          scanner->unfolded_names_ = true;
        }
        if (table->sets[c] == nullptr) continue;
        ScanPattern p = PrimaryPattern(columns[c]);
        std::vector<Use>& uses =
            scanner->uses_[id_of(std::move(p.regex), p.caseless, p.start)];
        auto same = std::find_if(uses.begin(), uses.end(), [&](const Use& u) {
          return u.kind == Use::Kind::kPrimary && u.type == type;
        });
        if (same == uses.end()) {
          Use use;
          use.kind = Use::Kind::kPrimary;
          use.type = type;
          uses.push_back(use);
          same = uses.end() - 1;
        }
        same->columns.emplace_back(table.get(), static_cast<uint8_t>(c));
      }
    }
  }
  auto compiled = PatternScanner::Create(patterns);
  if (!compiled.ok()) return compiled.status();
  scanner->scanner_ = std::move(*compiled);
  return scanner;
}

absl::StatusOr<std::unique_ptr<DataScanner::Session>> DataScanner::NewSession()
    const {
  auto session = std::make_unique<Session>();
  auto scratch = scanner_->NewScratch();
  if (!scratch.ok()) return scratch.status();
  session->scratch = std::move(*scratch);
  auto normalizer = CellNormalizer::Create();
  if (!normalizer.ok()) return normalizer.status();
  session->normalizer = std::move(*normalizer);
  session->normalizer->set_phone_regions(phone_regions_);
  return session;
}

absl::StatusOr<DataFindings> DataScanner::Scan(std::string_view original,
                                               Session& session) const {
  // Byte offsets are 32-bit, in the folded view as in the pattern scanner.
  if (original.size() >= std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError("text too large to scan (4 GiB)");
  }
  // Numbers wrapped at a line end or split by other white space are
  // scanned as if written with one space; the ranges found are mapped back.
  const FoldedSpaces folded(original);
  const std::string_view text = folded.text();
  DataFindings findings;
  session.words_ready = false;
  absl::Status s = scanner_->Scan(text, *session.scratch, &session.matches);
  if (!s.ok()) return s;
  const std::vector<PatternMatch>& matches = session.matches;
  std::vector<Hit> hits;
  std::vector<Found> found;
  // Matches of one pattern are adjacent.
  for (size_t first = 0; first < matches.size();) {
    size_t end = first;
    while (end < matches.size() &&
           matches[end].pattern == matches[first].pattern) {
      ++end;
    }
    for (const Use& use : uses_[matches[first].pattern]) {
      if (use.kind == Use::Kind::kIdentifier) {
        FindIdentifier(use.identifier, text, matches, first, end, session,
                       found);
      } else {
        FindPrimaries(use, text, matches, first, end, session, hits);
      }
    }
    first = end;
  }
  CountIdentifiers(text, found, findings);
  if (!hits.empty()) {
    s = Corroborate(text, hits, session, findings);
    if (!s.ok()) return s;
  }
  if (folded.moved()) {
    const auto back = [&](std::pair<uint32_t, uint32_t>& span) {
      span = {folded.Original(span.first), folded.Original(span.second)};
    };
    for (RecordMatch& m : findings.records)
      std::for_each(m.spans.begin(), m.spans.end(), back);
    for (IdentifierCount& c : findings.identifiers) {
      std::for_each(c.examples.begin(), c.examples.end(), back);
    }
  }
  return findings;
}

void DataScanner::AddRunType(const RecordColumnRecord& column) {
  const auto type = static_cast<CellType>(column.type);
  const uint32_t longest = RunWords(column);
  for (auto& [t, n] : run_types_) {
    if (t == type) {
      n = std::max(n, longest);
      return;
    }
  }
  run_types_.emplace_back(type, longest);
}

void DataScanner::AddPhoneRegions(const RecordColumnRecord& column) {
  if (static_cast<CellType>(column.type) != CellType::kPhone) return;
  std::vector<std::string_view> named;
  if (!column.region.empty()) named.push_back(column.region);
  for (const std::string& held : column.held_regions) named.push_back(held);
  for (std::string_view code : named) {
    auto region = PhoneRegionNamed(code);
    if (!region) continue;  // a region a later libphonenumber dropped
    if (std::none_of(
            phone_regions_.begin(), phone_regions_.end(),
            [&](const PhoneRegion& r) { return r.region == region->region; })) {
      phone_regions_.push_back(std::move(*region));
    }
  }
}

void DataScanner::FindIdentifier(size_t index, std::string_view text,
                                 const std::vector<PatternMatch>& matches,
                                 size_t first, size_t end, Session& session,
                                 std::vector<Found>& found) const {
  const IdentifierSpec& spec = identifiers_[index];
  uint32_t covered = 0;  // matches end here or before: no overlaps
  for (size_t i = first; i < end;) {
    const uint32_t begin = matches[i].begin;
    size_t next = i;
    while (next < end && matches[next].begin == begin) ++next;
    if (begin < covered) {
      i = next;
      continue;
    }
    // The longest end that validates (ends descend within a begin).
    std::optional<uint32_t> valid_end;
    for (size_t k = i; k < next; ++k) {
      if (Validate(spec.validator,
                   text.substr(begin, matches[k].end - begin))) {
        valid_end = matches[k].end;
        break;
      }
    }
    i = next;
    if (!valid_end) continue;
    covered = *valid_end;
    if (!spec.keywords.empty() &&
        !HasKeyword(text, session.Words(text), begin, spec)) {
      continue;
    }
    found.push_back({index, begin, *valid_end});
  }
}

void DataScanner::CountIdentifiers(std::string_view text,
                                   std::vector<Found>& found,
                                   DataFindings& findings) const {
  // By begin, the longest first: a match inside an earlier-starting or
  // longer one of another identifier is dropped.
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    return a.end > b.end;
  });
  std::vector<IdentifierCount> counts(identifiers_.size());
  std::vector<absl::flat_hash_set<uint64_t>> values(identifiers_.size());
  uint32_t reach = 0;        // the furthest end of a kept match so far
  uint32_t reach_begin = 0;  // its begin
  size_t reach_of = 0;       // whose
  for (const Found& f : found) {
    // The same span found by two identifiers (a user's `validator =
    // "iban"` and the built-in iban) counts for both; only a match inside
    // another identifier's longer one is dropped.
    const bool same_span = f.begin == reach_begin && f.end == reach;
    const bool inside =
        f.end <= reach && reach_of != f.identifier && !same_span;
    if (inside) continue;
    if (f.end > reach) {
      reach = f.end;
      reach_begin = f.begin;
      reach_of = f.identifier;
    }
    IdentifierCount& c = counts[f.identifier];
    ++c.matches;
    values[f.identifier].insert(
        ValueKey(identifiers_[f.identifier].validator,
                 text.substr(f.begin, f.end - f.begin)));
    if (c.examples.size() < 5) c.examples.emplace_back(f.begin, f.end);
  }
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i].matches == 0) continue;
    counts[i].name = identifiers_[i].name;
    counts[i].distinct = static_cast<uint32_t>(values[i].size());
    findings.identifiers.push_back(std::move(counts[i]));
  }
}

void DataScanner::FindPrimaries(const Use& use, std::string_view text,
                                const std::vector<PatternMatch>& matches,
                                size_t first, size_t end, Session& session,
                                std::vector<Hit>& hits) const {
  uint32_t covered = 0;
  for (size_t i = first; i < end;) {
    const uint32_t begin = matches[i].begin;
    size_t next = i;
    while (next < end && matches[next].begin == begin) ++next;
    if (begin < covered) {
      i = next;
      continue;
    }
    session.forms.clear();
    size_t national_from = std::numeric_limits<size_t>::max();
    uint32_t found_end = matches[i].end;  // the longest
    if (use.type == CellType::kCard || use.type == CellType::kIban) {
      const Validator v =
          use.type == CellType::kCard ? Validator::kCard : Validator::kIban;
      found_end = 0;
      for (size_t k = i; k < next; ++k) {
        const std::string_view m = text.substr(begin, matches[k].end - begin);
        if (Validate(v, m)) {
          found_end = matches[k].end;
          session.forms.push_back(AlnumUpper(m));
          break;
        }
      }
    } else if (use.type == CellType::kPhone) {
      const std::string_view span = text.substr(begin, found_end - begin);
      // Digits inside a word (an IBAN's, an order code's) or a valid card
      // number are no phone number: not read as one.
      const bool inside_word =
          begin > 0 &&
          absl::ascii_isalnum(static_cast<unsigned char>(text[begin - 1]));
      if (!inside_word && !PaymentCardValid(span)) {
        national_from = PhoneForms(span, phone_regions_, &session.forms);
      }
    } else {
      session.normalizer->TextForms(
          use.type, text.substr(begin, found_end - begin), &session.forms);
    }
    i = next;
    if (session.forms.empty()) continue;
    covered = found_end;
    for (size_t f = 0; f < session.forms.size(); ++f) {
      const std::string& form = session.forms[f];
      const uint64_t hash = hasher_->Hash(use.type, form);
      for (const auto& [table, column] : use.columns) {
        session.rows.clear();
        table->sets[column]->Find(hash, &session.rows);
        // A national reading that hits is checked: an invalid number is
        // not a phone.
        if (!session.rows.empty() && f >= national_from && !E164Valid(form)) {
          continue;
        }
        for (uint32_t row : session.rows) {
          hits.push_back({table, column, row, hash, begin, found_end});
        }
      }
    }
  }
}

void DataScanner::RunHashes(
    CellType type, std::string_view text, const std::vector<WordSpan>& words,
    size_t w, uint32_t n, Session& session,
    absl::flat_hash_map<uint32_t, std::string>& word_forms,
    std::vector<uint64_t>* out) const {
  if (!ByWords(type)) {
    session.normalizer->TextForms(
        type,
        text.substr(words[w].begin, words[w + n - 1].end - words[w].begin),
        &session.forms);
    for (const std::string& f : session.forms) {
      out->push_back(hasher_->Hash(type, f));
    }
    return;
  }
  // Copies, not pointers into `word_forms`: a later insertion may rehash
  // it and move its strings.
  std::vector<std::string> forms;
  for (size_t k = w; k < w + n; ++k) {
    auto [f, fresh] = word_forms.try_emplace(static_cast<uint32_t>(k));
    if (fresh) {
      f->second = session.normalizer->WordForm(
          text.substr(words[k].begin, words[k].end - words[k].begin));
    }
    forms.push_back(f->second);
  }
  AddRunHashes(type, forms, out);
  // A table added before issue 67 kept its cells' accents.
  if (unfolded_names_) {
    std::vector<std::string> kept;
    for (size_t k = w; k < w + n; ++k) {
      kept.push_back(session.normalizer->WordForm(
          text.substr(words[k].begin, words[k].end - words[k].begin),
          /*fold_marks=*/false));
    }
    if (kept != forms) AddRunHashes(type, kept, out);
  }
}

void DataScanner::AddRunHashes(CellType type,
                               const std::vector<std::string>& forms,
                               std::vector<uint64_t>* out) const {
  const size_t n = forms.size();
  const auto hash_of = [&](size_t rotate) {
    std::string form;
    for (size_t k = 0; k < n; ++k) form += forms[(k + rotate) % n];
    if (!form.empty()) out->push_back(hasher_->Hash(type, form));
  };
  hash_of(0);
  // A name written family name first ("Smith, John", "SMITH John Paul"),
  // or the table's written so: the first word moved last, and the last
  // moved first.
  if (type == CellType::kName && n >= 2) {
    hash_of(1);
    if (n > 2) hash_of(n - 1);
  }
}

absl::StatusOr<DataScanner::HitRows> DataScanner::ReadHitRows(
    std::span<const Hit> hits) const {
  // Each row once, however many of its primaries the text holds, and the
  // rows of a table in one batched read in key order.
  std::map<const LoadedRecordTable*, std::vector<uint32_t>> wanted;
  for (const Hit& hit : hits) wanted[hit.table].push_back(hit.row);
  HitRows out;
  for (auto& [table, rows] : wanted) {
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    auto cells = RecordTables::ReadRows(*store_, *table, rows);
    if (!cells.ok()) return cells.status();
    for (size_t i = 0; i < rows.size(); ++i) {
      out.emplace(std::make_pair(table, rows[i]), std::move((*cells)[i]));
    }
  }
  return out;
}

std::pair<size_t, size_t> DataScanner::Window(
    const std::vector<WordSpan>& words, const Hit& hit) const {
  const uint32_t proximity = hit.table->record.proximity;
  const auto first_word = static_cast<size_t>(
      std::lower_bound(
          words.begin(), words.end(), hit.begin,
          [](const WordSpan& w, uint32_t b) { return w.end <= b; }) -
      words.begin());
  size_t last_word = first_word;
  while (last_word + 1 < words.size() && words[last_word + 1].begin < hit.end) {
    ++last_word;
  }
  return {first_word > proximity ? first_word - proximity : 0,
          std::min(words.size(), last_word + 1 + proximity)};
}

void DataScanner::IndexRuns(std::string_view text, std::span<const Hit> batch,
                            Session& session, RunIndex& index) const {
  index.runs.clear();
  index.word_forms.clear();
  const std::vector<WordSpan>& words = session.Words(text);
  // The hits' windows, merged: only their words are read.
  std::vector<std::pair<size_t, size_t>> spans;
  for (const Hit& hit : batch) {
    const auto [lo, hi] = Window(words, hit);
    if (!spans.empty() && lo <= spans.back().second) {
      spans.back().second = std::max(spans.back().second, hi);
    } else {
      spans.emplace_back(lo, hi);
    }
  }
  std::vector<uint64_t> hashes;
  for (const auto& [type, longest] : run_types_) {
    for (const auto& [from, to] : spans) {
      for (size_t w = from; w < to; ++w) {
        const WordSpan& a = words[w];
        if (!CanBegin(type, text.substr(a.begin, a.end - a.begin))) continue;
        for (uint32_t n = 1; n <= longest && w + n <= to; ++n) {
          const WordSpan& b = words[w + n - 1];
          if (!CanEdge(type, text.substr(b.begin, b.end - b.begin))) continue;
          hashes.clear();
          RunHashes(type, text, words, w, n, session, index.word_forms,
                    &hashes);
          for (uint64_t h : hashes) {
            auto& at = index.runs[{static_cast<uint8_t>(type), h}];
            if (at.empty() ||
                at.back() != std::make_pair(static_cast<uint32_t>(w), n)) {
              at.emplace_back(static_cast<uint32_t>(w), n);
            }
          }
        }
      }
    }
  }
}

RecordMatch DataScanner::MatchRow(std::string_view text, const Hit& hit,
                                  const std::vector<uint64_t>& row,
                                  Session& session,
                                  const RunIndex& index) const {
  const RecordTableRecord& r = hit.table->record;
  const std::vector<WordSpan>& words = session.Words(text);
  const auto [lo, hi] = Window(words, hit);
  RecordMatch match;
  match.table = hit.table->name;
  match.row_key = hasher_->RowKey(hit.table->name, hit.row);
  match.columns.push_back(r.columns[hit.column].name);
  match.types.push_back(static_cast<CellType>(r.columns[hit.column].type));
  match.spans.emplace_back(hit.begin, hit.end);
  for (size_t c = 0; c < r.columns.size(); ++c) {
    if (c == hit.column || row[c] == 0) continue;
    const auto type = static_cast<CellType>(r.columns[c].type);
    const auto at = index.runs.find({static_cast<uint8_t>(type), row[c]});
    if (at == index.runs.end()) continue;
    const uint32_t longest = RunWords(r.columns[c]);
    // The first run in the window (by first word, then length) that is
    // not the primary's.
    for (const auto& [w, n] : at->second) {
      if (n > longest || w < lo || w + n > hi) continue;
      const WordSpan& a = words[w];
      const WordSpan& b = words[w + n - 1];
      if (a.begin < hit.end && b.end > hit.begin) continue;  // the primary
      match.columns.push_back(r.columns[c].name);
      match.types.push_back(type);
      match.spans.emplace_back(a.begin, b.end);
      break;
    }
  }
  return match;
}

absl::Status DataScanner::Corroborate(std::string_view text,
                                      std::vector<Hit>& hits, Session& session,
                                      DataFindings& findings) const {
  std::sort(hits.begin(), hits.end(),
            [](const Hit& a, const Hit& b) { return a.begin < b.begin; });
  RunIndex index;
  std::map<std::pair<const LoadedRecordTable*, uint32_t>, size_t> best;
  // A batch of hits at a time: their rows in one read, and the runs of
  // their windows indexed once (memory bounded by the batch, not the text).
  constexpr size_t kHitsPerBatch = 4096;
  for (size_t first = 0; first < hits.size(); first += kHitsPerBatch) {
    const std::span<const Hit> batch(
        hits.data() + first, std::min(kHitsPerBatch, hits.size() - first));
    auto rows = ReadHitRows(batch);
    if (!rows.ok()) return rows.status();
    IndexRuns(text, batch, session, index);
    for (const Hit& hit : batch) {
      RecordMatch match =
          MatchRow(text, hit, rows->at({hit.table, hit.row}), session, index);
      if (match.columns.size() < 1 + hit.table->record.min_matches) continue;
      auto [it, added] = best.try_emplace(std::make_pair(hit.table, hit.row),
                                          findings.records.size());
      if (added) {
        findings.records.push_back(std::move(match));
      } else if (findings.records[it->second].columns.size() <
                 match.columns.size()) {
        findings.records[it->second] = std::move(match);
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace leakhound
