#include "corpus/test_set.h"

#include <map>
#include <set>
#include <sstream>
#include <string>

#include "corpus/document_pool.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_paths.h"

namespace leakhound {
namespace {

// The corpus prepared by the eval_corpus test fixture
// (corpus/prepare_corpora.sh), real documents from Debian packages.
DocumentPool SmallPool() {
  PoolLimits limits;
  limits.per_collection_role = 12;
  auto pool = LoadDocumentPool(test_paths::kEvalCorpus, 3, limits);
  EXPECT_TRUE(pool.ok()) << pool.status();
  return pool.ok() ? std::move(*pool) : DocumentPool{};
}

TestSetConfig Tiny() {
  TestSetConfig config;
  config.cases_per_cell = 1;
  config.negatives_per_class = 5;
  return config;
}

TEST(TestSetTest, SameSeedGivesTheSameSet) {
  const DocumentPool pool = SmallPool();
  auto a = GenerateTestSet(pool, Tiny(), 5);
  auto b = GenerateTestSet(pool, Tiny(), 5);
  auto c = GenerateTestSet(pool, Tiny(), 6);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok() && c.ok());
  ASSERT_EQ(a->cases.size(), b->cases.size());
  bool differs_from_c = a->cases.size() != c->cases.size();
  for (size_t i = 0; i < a->cases.size(); ++i) {
    EXPECT_EQ(a->cases[i].bytes, b->cases[i].bytes) << a->cases[i].file;
    if (!differs_from_c && a->cases[i].bytes != c->cases[i].bytes) {
      differs_from_c = true;
    }
  }
  EXPECT_TRUE(differs_from_c);
}

TEST(TestSetTest, VerbatimExcerptsAreInTheFileAndTheirSource) {
  const DocumentPool pool = SmallPool();
  auto set = GenerateTestSet(pool, Tiny(), 5);
  ASSERT_TRUE(set.ok()) << set.status();
  std::map<std::string, const PoolDocument*> by_id;
  for (const PoolDocument& doc : pool.protected_docs) by_id[doc.id] = &doc;
  std::map<std::string, const PoolDocument*> hosts;
  for (const PoolDocument& doc : pool.hosts) hosts[doc.id] = &doc;
  int checked = 0;
  for (const OutboundCase& c : set->cases) {
    if (c.klass != CaseClass::kPositive) {
      EXPECT_TRUE(c.inserts.empty());
      continue;
    }
    ASSERT_FALSE(c.inserts.empty()) << c.file;
    for (const Insert& insert : c.inserts) {
      ASSERT_TRUE(by_id.contains(insert.source_id)) << insert.source_id;
    }
    if (c.group != "size" || c.obfuscation != Obfuscation::kNone) continue;
    // The file is the host with "\n" + excerpt + "\n\n" inserted at a
    // line start s: recover the excerpt and find it in the source.
    const std::string& source = by_id[c.inserts[0].source_id]->text;
    const std::string& host = hosts[c.host_id]->text;
    ASSERT_GT(c.bytes.size(), host.size() + 3);
    const size_t length = c.bytes.size() - host.size() - 3;
    bool found = false;
    for (size_t s = 0; s <= host.size() && !found; ++s) {
      if (s > 0 && host[s - 1] != '\n') continue;
      if (c.bytes.compare(0, s, host, 0, s) != 0) break;
      if (c.bytes.compare(s + length + 3, std::string::npos, host, s) != 0) {
        continue;
      }
      const std::string excerpt = c.bytes.substr(s + 1, length);
      found = source.find(excerpt) != std::string::npos;
    }
    EXPECT_TRUE(found) << c.file;
    ++checked;
  }
  EXPECT_EQ(checked, 5);  // one per size
}

TEST(TestSetTest, EveryNegativeClassIsPresent) {
  const DocumentPool pool = SmallPool();
  auto set = GenerateTestSet(pool, Tiny(), 5);
  ASSERT_TRUE(set.ok()) << set.status();
  std::map<CaseClass, int> classes;
  for (const OutboundCase& c : set->cases) ++classes[c.klass];
  EXPECT_GT(classes[CaseClass::kCleanHost], 0);
  EXPECT_GT(classes[CaseClass::kHeldOut], 0);
  EXPECT_EQ(classes[CaseClass::kBoilerplate], 5);
  EXPECT_FALSE(set->boilerplate_lines.empty());
}

// Filler of made-up words no protected document holds.
std::string Filler(int words, uint64_t seed) {
  std::string out;
  for (int w = 0; w < words; ++w) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    out += "qx";
    for (int c = 0; c < 5; ++c)
      out += static_cast<char>('a' + (seed >> (8 * c + 8)) % 26);
    out += (w % 12 == 11) ? ".\n" : " ";
  }
  return out;
}

// The referee, before any scan: a held-out document holding
// a 40-word passage of a protected document with every seventh word
// changed is a near-copy (its own class); one holding 12 copied words is
// an ordinary negative.
TEST(TestSetTest, NearCopiesByTheRefereeAreTheirOwnClass) {
  DocumentPool pool = SmallPool();
  ASSERT_FALSE(pool.protected_docs.empty());
  const PoolDocument* source = nullptr;
  for (const PoolDocument& d : pool.protected_docs) {
    if (!d.chinese && d.text.size() > 2000) source = &d;
  }
  ASSERT_NE(source, nullptr);
  std::vector<std::string> words;
  {
    std::istringstream in(source->text.substr(source->text.size() / 2));
    for (std::string w; in >> w && words.size() < 41;) words.push_back(w);
  }
  ASSERT_EQ(words.size(), 41u);
  std::string changed, short_copy;
  for (size_t i = 1; i < 41; ++i) {  // words[0] may be cut
    changed += (i % 7 == 0 ? std::string("qxzzy") : words[i]) + " ";
    if (i <= 12) short_copy += words[i] + " ";
  }
  pool.held_out.push_back({"test/near", "python", false,
                           Filler(150, 1) + changed + Filler(150, 2)});
  pool.held_out.push_back({"test/short", "python", false,
                           Filler(150, 3) + short_copy + Filler(150, 4)});
  auto set = GenerateTestSet(pool, Tiny(), 5);
  ASSERT_TRUE(set.ok()) << set.status();
  std::map<std::string, CaseClass> klass;
  for (const OutboundCase& c : set->cases) {
    if (c.host_id.rfind("test/", 0) == 0) klass[c.host_id] = c.klass;
  }
  ASSERT_TRUE(klass.contains("test/near"));
  ASSERT_TRUE(klass.contains("test/short"));
  EXPECT_EQ(klass["test/near"], CaseClass::kNearCopy);
  EXPECT_EQ(klass["test/short"], CaseClass::kHeldOut);
  EXPECT_GE(set->near_copy_held_out, 1u);
}

}  // namespace
}  // namespace leakhound
