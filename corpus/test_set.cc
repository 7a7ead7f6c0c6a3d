#include "corpus/test_set.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "corpus/near_copy_referee.h"
#include "engine/scan/leak_scanner.h"
#include "shingler/fingerprint_key.h"
#include "shingler/shingler.h"
#include "shingler/tokenizer.h"

namespace leakhound {
namespace {

constexpr size_t kMaxVocabulary = 20000;

uint64_t Below(std::mt19937_64& rng, uint64_t n) { return rng() % n; }

// A document's tokens with the prefix sums of their word weight: a word
// weighs 2 units, a per-character (CJK) token 1, so two CJK characters make
// a word as in the shingler's default.
struct Tokenized {
  std::vector<Token> tokens;
  std::vector<uint32_t> units;  // size tokens + 1
  uint32_t words() const { return units.back() / 2; }
};

std::string EscapeHtml(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string_view FirstLine(std::string_view text) {
  const size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return "document";
  text.remove_prefix(start);
  return text.substr(0, std::min(text.find('\n'), size_t{80}));
}

// One outbound document as pieces of host text and excerpts, rendered in
// a format.
struct Segment {
  std::string text;
  bool excerpt;
};

std::string Render(const std::vector<Segment>& segments, Format format,
                   std::string_view title) {
  std::string out;
  switch (format) {
    case Format::kText:
      for (const Segment& s : segments) out += s.text;
      return out;
    case Format::kMarkdown:
      // Excerpts quoted as in a mail reply: "> " before every line.
      out = absl::StrCat("# ", std::string(title), "\n\n");
      for (const Segment& s : segments) {
        if (!s.excerpt) {
          out += s.text;
          continue;
        }
        size_t at = 0;
        while (at < s.text.size()) {
          size_t end = s.text.find('\n', at);
          if (end == std::string::npos) end = s.text.size() - 1;
          absl::StrAppend(&out, "> ", s.text.substr(at, end + 1 - at));
          at = end + 1;
        }
        out += "\n";
      }
      return out;
    case Format::kHtml: {
      out = absl::StrCat(
          "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>",
          EscapeHtml(title),
          "</title>\n<style>p { margin: 0 }</style>\n<script>var "
          "shown = 1;</script></head>\n<body>\n");
      for (const Segment& s : segments) {
        if (s.excerpt) {
          // The first word in bold, the rest plain: inline markup must not
          // split the excerpt.
          const size_t space = s.text.find(' ');
          absl::StrAppend(&out, "<blockquote><p><b>",
                          EscapeHtml(s.text.substr(0, space)), "</b>",
                          space == std::string::npos
                              ? ""
                              : EscapeHtml(s.text.substr(space)),
                          "</p></blockquote>\n");
          continue;
        }
        size_t at = 0;
        while (at < s.text.size()) {
          size_t end = s.text.find("\n\n", at);
          if (end == std::string::npos) end = s.text.size();
          absl::StrAppend(&out, "<p>", EscapeHtml(s.text.substr(at, end - at)),
                          "</p>\n");
          at = end + 2;
        }
      }
      out += "</body></html>\n";
      return out;
    }
  }
  return out;
}

class Generator {
 public:
  Generator(const DocumentPool& pool, const TestSetConfig& config,
            uint64_t seed, std::unique_ptr<Tokenizer> tokenizer,
            std::unique_ptr<Shingler> shingler)
      : pool_(pool),
        config_(config),
        rng_(seed),
        tokenizer_(std::move(tokenizer)),
        shingler_(std::move(shingler)) {}

  absl::StatusOr<TestSet> Run();

 private:
  const Tokenized& Tokens(const PoolDocument& doc);
  // A random source among `sources` with at least `words` words.
  const PoolDocument* PickSource(
      const std::vector<const PoolDocument*>& sources, uint32_t words);
  // `words` consecutive words of `doc` from a random start (from the first
  // word when they are the whole document), drawn again (up to
  // kExcerptAttempts times) while MostlyBoilerplate.
  std::string Excerpt(const PoolDocument& doc, uint32_t words);
  // Whether more than a quarter of the words of `excerpt` (text of a
  // protected document) lie only in shingles held by more than
  // kCommonDocuments protected documents: boilerplate, which the negatives
  // count as benign, not a passage of one document.
  bool MostlyBoilerplate(std::string_view excerpt);
  // Host text with `pieces` inserted at distinct random line starts.
  std::vector<Segment> InsertInto(std::string_view host,
                                  std::vector<std::string> pieces);
  // Splits an excerpt into `n` pieces of equal word counts.
  std::vector<std::string> Split(std::string_view excerpt, uint32_t n);

  absl::Status IndexProtected();
  // Whether `text` holds a near-copy of a protected document sharing a
  // fingerprint with it, by the evaluation's own referee
  // (corpus/near_copy_referee.h, not the engine's second stage): a chain of
  // aligned segments of at least the default rule's min_words words, with
  // at most one word in five substituted or inserted, tokens only in
  // shingles held by more than kCommonDocuments protected documents not
  // counting. Fixed before any scan; the filter never enters.
  absl::StatusOr<bool> NearCopy(std::string_view text);
  void FindBoilerplateLines();
  // The documents of `docs` that are no near-copy; the others are appended
  // to *near.
  std::vector<const PoolDocument*> CleanOf(
      const std::vector<const PoolDocument*>& docs,
      std::vector<const PoolDocument*>* near);

  void AddPositive(OutboundCase c, const std::vector<Segment>& segments,
                   std::string_view title);
  absl::Status AddPositives();
  void AddNegatives();

  const DocumentPool& pool_;
  const TestSetConfig config_;
  std::mt19937_64 rng_;
  std::unique_ptr<Tokenizer> tokenizer_;
  std::unique_ptr<Shingler> shingler_;
  std::map<const PoolDocument*, Tokenized> tokens_;
  absl::flat_hash_map<uint64_t, std::vector<uint32_t>> exact_;  // fp -> docs
  std::vector<std::string> vocabulary_;
  std::vector<const PoolDocument*> en_sources_, zh_sources_;
  std::vector<const PoolDocument*> en_hosts_, zh_hosts_, held_out_;
  // Hosts and held-out documents that are near-copies: their own class.
  std::vector<const PoolDocument*> near_hosts_, near_held_out_;
  TestSet set_;
};

const Tokenized& Generator::Tokens(const PoolDocument& doc) {
  auto it = tokens_.find(&doc);
  if (it != tokens_.end()) return it->second;
  Tokenized t;
  tokenizer_->Tokenize(doc.text, &t.tokens);
  t.units.reserve(t.tokens.size() + 1);
  t.units.push_back(0);
  for (const Token& token : t.tokens) {
    t.units.push_back(t.units.back() + (token.per_character ? 1 : 2));
  }
  return tokens_.emplace(&doc, std::move(t)).first->second;
}

const PoolDocument* Generator::PickSource(
    const std::vector<const PoolDocument*>& sources, uint32_t words) {
  for (int attempt = 0; attempt < 10000; ++attempt) {
    const PoolDocument* doc = sources[Below(rng_, sources.size())];
    if (Tokens(*doc).words() >= words) return doc;
  }
  return nullptr;
}

std::string Generator::Excerpt(const PoolDocument& doc, uint32_t words) {
  const Tokenized& t = Tokens(doc);
  const uint32_t need = 2 * words;
  const uint32_t total = t.units.back();
  // Starts s with units[s] + need <= total.
  const auto last = static_cast<size_t>(
      std::upper_bound(t.units.begin(), t.units.end(), total - need) -
      t.units.begin() - 1);
  std::string excerpt;
  for (uint32_t attempt = 0; attempt < kExcerptAttempts; ++attempt) {
    const size_t s = Below(rng_, last + 1);
    const auto e = static_cast<size_t>(
        std::lower_bound(t.units.begin() + static_cast<ptrdiff_t>(s),
                         t.units.end(), t.units[s] + need) -
        t.units.begin());
    const uint32_t b = t.tokens[s].byte_begin;
    excerpt = doc.text.substr(b, t.tokens[e - 1].byte_end - b);
    if (last == 0 || !MostlyBoilerplate(excerpt)) break;
    if (attempt + 1 == kExcerptAttempts) {
      ++set_.excerpts_left_boilerplate;  // no better stretch found
    } else {
      ++set_.excerpts_redrawn;
    }
  }
  return excerpt;
}

bool Generator::MostlyBoilerplate(std::string_view excerpt) {
  auto shingled = shingler_->Shingle(excerpt);
  if (!shingled.ok() || shingled->token_count == 0) return false;
  // distinct[t]: token t lies in a shingle held by at most
  // kCommonDocuments protected documents.
  std::vector<bool> distinct(shingled->token_count);
  for (const Shingle& sh : shingled->shingles) {
    auto it = exact_.find(sh.fingerprint);
    if (it != exact_.end() && it->second.size() > kCommonDocuments) continue;
    for (uint32_t i = sh.token_begin; i < sh.token_end; ++i) distinct[i] = true;
  }
  const auto n = static_cast<uint32_t>(
      std::count(distinct.begin(), distinct.end(), true));
  return 4 * n < 3 * shingled->token_count;
}

std::vector<std::string> Generator::Split(std::string_view excerpt,
                                          uint32_t n) {
  std::vector<Token> tokens;
  tokenizer_->Tokenize(excerpt, &tokens);
  std::vector<std::string> pieces;
  size_t at = 0;
  for (uint32_t i = 1; i <= n; ++i) {
    const size_t end_token = tokens.size() * i / n;
    const size_t end = i == n ? excerpt.size() : tokens[end_token].byte_begin;
    pieces.emplace_back(excerpt.substr(at, end - at));
    at = end;
  }
  return pieces;
}

std::vector<Segment> Generator::InsertInto(std::string_view host,
                                           std::vector<std::string> pieces) {
  std::vector<size_t> starts = {0};
  for (size_t i = 0; i + 1 < host.size(); ++i) {
    if (host[i] == '\n') starts.push_back(i + 1);
  }
  starts.push_back(host.size());
  std::shuffle(starts.begin(), starts.end(), rng_);
  starts.resize(std::min(starts.size(), pieces.size()));
  while (starts.size() < pieces.size()) starts.push_back(host.size());
  std::sort(starts.begin(), starts.end());
  std::vector<Segment> out;
  size_t at = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    out.push_back(Segment{
        absl::StrCat(std::string(host.substr(at, starts[i] - at)), "\n"),
        false});
    out.push_back(Segment{absl::StrCat(pieces[i], "\n"), true});
    at = starts[i];
  }
  out.push_back(
      Segment{absl::StrCat("\n", std::string(host.substr(at))), false});
  return out;
}

absl::Status Generator::IndexProtected() {
  for (uint32_t d = 0; d < pool_.protected_docs.size(); ++d) {
    auto shingled = shingler_->Shingle(pool_.protected_docs[d].text);
    if (!shingled.ok()) return shingled.status();
    absl::flat_hash_set<uint64_t> seen;
    for (const Shingle& s : shingled->shingles) {
      if (seen.insert(s.fingerprint).second) exact_[s.fingerprint].push_back(d);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> Generator::NearCopy(std::string_view text) {
  auto shingled = shingler_->Shingle(text);
  if (!shingled.ok()) return shingled.status();
  auto common = [this](uint64_t fp) {
    auto it = exact_.find(fp);
    return it != exact_.end() && it->second.size() > kCommonDocuments;
  };
  std::set<uint32_t> sharing;
  for (const Shingle& s : shingled->shingles) {
    auto it = exact_.find(s.fingerprint);
    if (it != exact_.end() && it->second.size() <= kCommonDocuments) {
      sharing.insert(it->second.begin(), it->second.end());
    }
  }
  if (sharing.empty()) return false;
  std::vector<Token> tokens;
  tokenizer_->Tokenize(text, &tokens);
  if (tokens.size() != shingled->token_count) {
    return absl::InternalError("the shingler and the tokenizer disagree");
  }
  // A token counts unless every shingle over it is boilerplate.
  std::vector<bool> covered(tokens.size()), counted(tokens.size());
  for (const Shingle& s : shingled->shingles) {
    const bool boilerplate = common(s.fingerprint);
    for (uint32_t t = s.token_begin; t < s.token_end; ++t) {
      covered[t] = true;
      counted[t] = counted[t] || !boilerplate;
    }
  }
  std::vector<uint64_t> hashes(tokens.size());
  std::vector<uint32_t> counts(tokens.size() + 1, 0);
  for (size_t t = 0; t < tokens.size(); ++t) {
    hashes[t] = tokens[t].hash;
    const uint32_t units =
        shingled->word_units[t + 1] - shingled->word_units[t];
    counts[t + 1] = counts[t] + (counted[t] || !covered[t] ? units : 0);
  }
  const RefereeText scanned{hashes, counts, shingled->units_per_word};
  const ScanOptions rule;
  std::vector<uint64_t> source;
  for (uint32_t doc : sharing) {
    const Tokenized& t = Tokens(pool_.protected_docs[doc]);
    source.resize(t.tokens.size());
    for (size_t i = 0; i < source.size(); ++i) source[i] = t.tokens[i].hash;
    if (LongestNearCopyWords(scanned, source, RefereeOptions{}) >=
        rule.min_words) {
      return true;
    }
  }
  return false;
}

void Generator::FindBoilerplateLines() {
  absl::flat_hash_map<std::string, uint32_t> docs_with;
  for (const PoolDocument& doc : pool_.protected_docs) {
    absl::flat_hash_set<std::string> lines;
    size_t at = 0;
    while (at < doc.text.size()) {
      size_t end = doc.text.find('\n', at);
      if (end == std::string::npos) end = doc.text.size();
      std::string_view line(doc.text.data() + at, end - at);
      const size_t b = line.find_first_not_of(" \t\r");
      const size_t e = line.find_last_not_of(" \t\r");
      if (b != std::string_view::npos && e + 1 - b >= 30) {
        lines.emplace(line.substr(b, e + 1 - b));
      }
      at = end + 1;
    }
    for (const std::string& line : lines) ++docs_with[line];
  }
  for (const auto& [line, n] : docs_with) {
    if (n >= kBoilerplateMinDocs) set_.boilerplate_lines.push_back(line);
  }
  std::sort(set_.boilerplate_lines.begin(), set_.boilerplate_lines.end());
}

std::vector<const PoolDocument*> Generator::CleanOf(
    const std::vector<const PoolDocument*>& docs,
    std::vector<const PoolDocument*>* near) {
  std::vector<const PoolDocument*> clean;
  for (const PoolDocument* doc : docs) {
    auto is_near = NearCopy(doc->text);
    if (is_near.ok() && !*is_near) {
      clean.push_back(doc);
    } else {
      near->push_back(doc);
    }
  }
  return clean;
}

void Generator::AddPositive(OutboundCase c,
                            const std::vector<Segment>& segments,
                            std::string_view title) {
  static constexpr std::array<const char*, 3> kExtension = {".txt", ".md",
                                                                 ".html"};
  c.klass = CaseClass::kPositive;
  c.file = absl::StrCat("p", set_.cases.size(),
                        kExtension[static_cast<size_t>(c.format)]);
  c.bytes = Render(segments, c.format, title);
  set_.cases.push_back(std::move(c));
}

absl::Status Generator::AddPositives() {
  const uint32_t n = config_.cases_per_cell;
  // n cases of `cell` (its group, size_words, obfuscation, format and
  // pieces set): each an excerpt of a random source among `sources` into a
  // random host among `hosts`.
  auto cases = [&](const OutboundCase& cell,
                   const std::vector<const PoolDocument*>& sources,
                   const std::vector<const PoolDocument*>& hosts) {
    const uint32_t words = cell.size_words;
    for (uint32_t i = 0; i < n; ++i) {
      const PoolDocument* source = PickSource(sources, words);
      if (source == nullptr) {
        return absl::FailedPreconditionError(
            absl::StrCat("no protected document has ", words,
                         " words for group ", cell.group));
      }
      const PoolDocument& host = *hosts[Below(rng_, hosts.size())];
      const HanVariants* han = source->collection == "zh_tw"
                                   ? &pool_.to_simplified
                                   : &pool_.to_traditional;
      std::string excerpt = Obfuscate(Excerpt(*source, words), cell.obfuscation,
                                      vocabulary_, rng_, han);
      OutboundCase c = cell;
      c.inserts.push_back(Insert{source->id, words});
      c.host_id = host.id;
      std::vector<Segment> segments =
          InsertInto(host.text, Split(excerpt, c.pieces));
      AddPositive(std::move(c), segments, FirstLine(host.text));
    }
    return absl::OkStatus();
  };
  auto cell = [](const char* group, uint32_t words, Obfuscation obfuscation,
                 Format format, uint32_t pieces) {
    OutboundCase c;
    c.group = group;
    c.size_words = words;
    c.obfuscation = obfuscation;
    c.format = format;
    c.pieces = pieces;
    return c;
  };
  for (uint32_t size : kExcerptWords) {
    for (Obfuscation o : kAllObfuscations) {
      if (auto s = cases(cell("size", size, o, Format::kText, 1), en_sources_,
                         en_hosts_);
          !s.ok()) {
        return s;
      }
    }
  }
  // `percent` % of `source`, verbatim, into a random English host.
  auto share = [&](const char* group, const PoolDocument& source,
                   uint32_t percent) {
    const uint32_t words =
        std::max(1u, Tokens(source).words() * percent / 100);
    const PoolDocument& host = *en_hosts_[Below(rng_, en_hosts_.size())];
    OutboundCase c;
    c.group = group;
    c.size_percent = percent;
    c.inserts.push_back(Insert{source.id, words});
    c.host_id = host.id;
    std::vector<Segment> segments =
        InsertInto(host.text, {Excerpt(source, words)});
    AddPositive(std::move(c), segments, FirstLine(host.text));
  };
  for (uint32_t percent : kSourcePercents) {
    for (uint32_t i = 0; i < n; ++i) {
      share("percent", *en_sources_[Below(rng_, en_sources_.size())], percent);
    }
  }
  for (uint32_t size : kFormatWords) {
    for (Format format : {Format::kText, Format::kMarkdown, Format::kHtml}) {
      if (auto s = cases(cell("format", size, Obfuscation::kNone, format, 1),
                         en_sources_, en_hosts_);
          !s.ok()) {
        return s;
      }
    }
  }
  for (SplitCell split : kSplits) {
    if (auto s = cases(cell("split", split.words, Obfuscation::kNone,
                            Format::kText, split.pieces),
                       en_sources_, en_hosts_);
        !s.ok()) {
      return s;
    }
  }
  for (uint32_t i = 0; i < n; ++i) {
    const PoolDocument* a = PickSource(en_sources_, 50);
    const PoolDocument* b = PickSource(en_sources_, 50);
    while (b == a) b = PickSource(en_sources_, 50);
    const PoolDocument& host = *en_hosts_[Below(rng_, en_hosts_.size())];
    OutboundCase c;
    c.group = "two_sources";
    c.size_words = 50;
    c.pieces = 2;
    c.inserts = {Insert{a->id, 50}, Insert{b->id, 50}};
    c.host_id = host.id;
    AddPositive(std::move(c),
                InsertInto(host.text, {Excerpt(*a, 50), Excerpt(*b, 50)}),
                FirstLine(host.text));
  }
  for (uint32_t size : kExcerptWords) {
    for (Obfuscation o : kChineseObfuscations) {
      if (auto s = cases(cell("chinese", size, o, Format::kText, 1),
                         zh_sources_, zh_hosts_);
          !s.ok()) {
        return s;
      }
    }
  }
  // Figure 2: the English source closest to the paper's 4,000 words.
  const PoolDocument* source = en_sources_.front();
  for (const PoolDocument* doc : en_sources_) {
    auto distance = [&](const PoolDocument* d) {
      return std::abs(static_cast<int64_t>(Tokens(*d).words()) - 4000);
    };
    if (distance(doc) < distance(source)) source = doc;
  }
  set_.figure2_source = source->id;
  for (uint32_t percent = 5; percent <= 50; percent += 5) {
    share("figure2", *source, percent);
  }
  return absl::OkStatus();
}

void Generator::AddNegatives() {
  auto add = [&](CaseClass klass, const char* prefix, std::string id,
                 std::string bytes) {
    OutboundCase c;
    c.klass = klass;
    c.group = std::string(CaseClassName(klass));
    c.file = absl::StrCat(prefix, set_.cases.size(), ".txt");
    c.host_id = std::move(id);
    c.bytes = std::move(bytes);
    set_.cases.push_back(std::move(c));
  };
  std::vector<const PoolDocument*> hosts = en_hosts_;
  hosts.insert(hosts.end(), zh_hosts_.begin(), zh_hosts_.end());
  std::shuffle(hosts.begin(), hosts.end(), rng_);
  for (size_t i = 0; i < hosts.size() && i < config_.negatives_per_class; ++i) {
    add(CaseClass::kCleanHost, "h", hosts[i]->id, hosts[i]->text);
  }
  for (const PoolDocument* doc : held_out_) {
    add(CaseClass::kHeldOut, "o", doc->id, doc->text);
  }
  const std::vector<std::string>& lines = set_.boilerplate_lines;
  for (uint32_t i = 0; i < config_.negatives_per_class && !lines.empty(); ++i) {
    std::string text;
    const uint64_t count = 5 + Below(rng_, 26);
    for (uint64_t l = 0; l < count; ++l) {
      absl::StrAppend(&text, lines[Below(rng_, lines.size())], "\n");
    }
    add(CaseClass::kBoilerplate, "b", absl::StrCat("boilerplate#", i),
        std::move(text));
  }
  for (const auto* near : {&near_hosts_, &near_held_out_}) {
    for (const PoolDocument* doc : *near) {
      add(CaseClass::kNearCopy, "n", doc->id, doc->text);
    }
  }
}

absl::StatusOr<TestSet> Generator::Run() {
  if (auto s = IndexProtected(); !s.ok()) return s;
  FindBoilerplateLines();
  std::vector<const PoolDocument*> en_hosts, zh_hosts, held_out;
  for (const PoolDocument& doc : pool_.protected_docs) {
    (doc.chinese ? zh_sources_ : en_sources_).push_back(&doc);
  }
  for (const PoolDocument& doc : pool_.hosts) {
    (doc.chinese ? zh_hosts : en_hosts).push_back(&doc);
  }
  for (const PoolDocument& doc : pool_.held_out) held_out.push_back(&doc);
  en_hosts_ = CleanOf(en_hosts, &near_hosts_);
  zh_hosts_ = CleanOf(zh_hosts, &near_hosts_);
  held_out_ = CleanOf(held_out, &near_held_out_);
  set_.near_copy_hosts = static_cast<uint32_t>(near_hosts_.size());
  set_.near_copy_held_out = static_cast<uint32_t>(near_held_out_.size());
  if (en_sources_.empty() || zh_sources_.empty() || en_hosts_.empty() ||
      zh_hosts_.empty()) {
    return absl::FailedPreconditionError(
        "the pool needs English and Chinese protected and host documents");
  }
  // Substitution vocabulary: the host documents' ASCII words of 3+ letters.
  std::set<std::string> words;
  for (const PoolDocument* doc : en_hosts_) {
    const std::string& text = doc->text;
    size_t i = 0;
    while (i < text.size() && words.size() < kMaxVocabulary) {
      size_t j = i;
      while (j < text.size() &&
             std::isalpha(static_cast<unsigned char>(text[j]))) {
        ++j;
      }
      if (j - i >= 3) words.insert(text.substr(i, j - i));
      i = j + 1;
    }
  }
  vocabulary_.assign(words.begin(), words.end());
  if (auto s = AddPositives(); !s.ok()) return s;
  AddNegatives();
  return std::move(set_);
}

}  // namespace

const char* CaseClassName(CaseClass klass) {
  switch (klass) {
    case CaseClass::kPositive: return "positive";
    case CaseClass::kCleanHost: return "clean_host";
    case CaseClass::kHeldOut: return "held_out";
    case CaseClass::kBoilerplate: return "boilerplate";
    case CaseClass::kNearCopy: return "near_copy";
  }
  return "unknown";
}

const char* FormatName(Format format) {
  switch (format) {
    case Format::kText: return "text";
    case Format::kMarkdown: return "markdown";
    case Format::kHtml: return "html";
  }
  return "unknown";
}

absl::StatusOr<FingerprintKey> EvaluationKey(uint64_t seed) {
  std::array<uint8_t, FingerprintKey::kKeyBytes> key_bytes{};
  std::mt19937_64 key_rng(seed ^ 0x6c65616b686f756eULL);
  for (uint8_t& b : key_bytes) b = static_cast<uint8_t>(key_rng());
  return FingerprintKey::FromBytes(key_bytes);
}

absl::StatusOr<TestSet> GenerateTestSet(const DocumentPool& pool,
                                        const TestSetConfig& config,
                                        uint64_t seed) {
  auto tokenizer = Tokenizer::Create();
  if (!tokenizer.ok()) return tokenizer.status();
  // The set depends on nothing but the pool, the config and the seed.
  auto key = EvaluationKey(seed);
  if (!key.ok()) return key.status();
  auto shingler = Shingler::Create(ShinglerOptions{}, *key);
  if (!shingler.ok()) return shingler.status();
  Generator generator(pool, config, seed, std::move(*tokenizer),
                      std::move(*shingler));
  return generator.Run();
}

absl::Status WriteTestSet(const TestSet& set, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(fs::path(dir) / "outbound", error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot create ", dir, ": ", error.message()));
  }
  std::ofstream truth(fs::path(dir) / "truth.tsv", std::ios::binary);
  truth << "file\tclass\tgroup\tsize_words\tsize_percent\tobfuscation\tformat"
           "\tpieces\thost\tsource\tsource_words\n";
  for (const OutboundCase& c : set.cases) {
    std::ofstream out(fs::path(dir) / "outbound" / c.file, std::ios::binary);
    out << c.bytes;
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", c.file));
    const std::string common = absl::StrCat(
        c.file, "\t", CaseClassName(c.klass), "\t", c.group, "\t",
        c.size_words, "\t", c.size_percent, "\t",
        ObfuscationName(c.obfuscation), "\t", FormatName(c.format), "\t",
        c.pieces, "\t", c.host_id);
    if (c.inserts.empty()) truth << common << "\t-\t0\n";
    for (const Insert& insert : c.inserts) {
      truth << common << "\t" << insert.source_id << "\t" << insert.words
            << "\n";
    }
  }
  std::ofstream boilerplate(fs::path(dir) / "boilerplate.txt",
                            std::ios::binary);
  for (const std::string& line : set.boilerplate_lines) {
    boilerplate << line << "\n";
  }
  if (!truth || !boilerplate) {
    return absl::InternalError(absl::StrCat("cannot write the truth in ", dir));
  }
  return absl::OkStatus();
}

}  // namespace leakhound
