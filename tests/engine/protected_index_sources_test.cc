// ProtectedIndex's sources, labels and renames (protected_index_sources.cc)
// and the labels a replacement keeps (protected_index_write.cc), on a real
// index on disk.
#include <memory>
#include <string>
#include <vector>

#include "engine/index_verifier.h"
#include "engine/protected_index.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/engine/real_documents.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

DocumentRecord Stored(const ProtectedIndex& index, const std::string& id) {
  auto doc = index.store().FindExternalId(id);
  EXPECT_TRUE(doc.ok() && doc->has_value()) << id;
  if (!doc.ok() || !doc->has_value()) return {};
  return index.store().ReadDocument(**doc)->value_or(DocumentRecord{});
}

absl::StatusOr<AddResult> AddLabelled(ProtectedIndex& index,
                                      const TextDoc& d,
                                      std::vector<std::string> labels) {
  return index.Add(DocumentInput{d.id, "test/" + d.id, std::move(labels),
                                 d.text});
}

TEST(ProtectedIndexSourcesTest, AReplacementKeepsItsLabelsAndGainsTheGivenOnes) {
  TempDir tmp;
  auto index = ProtectedIndex::Create(tmp.Sub("idx"), SmallRows());
  ASSERT_TRUE(index.ok());
  const auto& docs = RealDocuments();
  ASSERT_TRUE(AddLabelled(**index, docs[0], {"secret"}).ok());
  // The file changes and is synced without labels (the packaged timer).
  auto replaced =
      AddLabelled(**index, TextDoc{docs[0].id, docs[1].text}, {});
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  EXPECT_EQ(replaced->outcome, AddOutcome::kReplaced);
  EXPECT_THAT(Stored(**index, docs[0].id).labels, ElementsAre("secret"));
  auto again =
      AddLabelled(**index, TextDoc{docs[0].id, docs[2].text}, {"board"});
  ASSERT_TRUE(again.ok());
  EXPECT_THAT(again->labels_added, ElementsAre("board"));
  EXPECT_THAT(Stored(**index, docs[0].id).labels,
              ElementsAre("board", "secret"));
}

TEST(ProtectedIndexSourcesTest, AnUnchangedDocumentGainsNewLabelsDurably) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  {
    auto index = ProtectedIndex::Create(dir, SmallRows());
    ASSERT_TRUE(index.ok());
    const auto& d = RealDocuments()[0];
    ASSERT_TRUE(AddLabelled(**index, d, {}).ok());
    auto same = AddLabelled(**index, d, {"secret"});
    ASSERT_TRUE(same.ok());
    EXPECT_EQ(same->outcome, AddOutcome::kUnchanged);
    EXPECT_THAT(same->labels_added, ElementsAre("secret"));
    EXPECT_THAT(AddLabelled(**index, d, {"secret"})->labels_added, IsEmpty());
  }
  auto reader = ProtectedIndex::Open(dir, OpenMode::kRead);
  ASSERT_TRUE(reader.ok());
  EXPECT_THAT(Stored(**reader, RealDocuments()[0].id).labels,
              ElementsAre("secret"));
}

TEST(ProtectedIndexSourcesTest, ARenameKeepsTextLabelsAndTimeUnderTheNewId) {
  TempDir tmp;
  auto index = CreateWith(tmp.Sub("idx"), 4);
  ASSERT_TRUE(index.ok());
  const TextDoc& d = RealDocuments()[1];
  ASSERT_TRUE((*index)->SetLabels(d.id, {"secret"}).ok());
  const DocumentRecord before = Stored(**index, d.id);
  ASSERT_TRUE((*index)->Rename(d.id, "finance/" + d.id).ok());
  auto gone = (*index)->store().FindExternalId(d.id);
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());
  const DocumentRecord after = Stored(**index, "finance/" + d.id);
  EXPECT_EQ(after.digest, before.digest);
  EXPECT_EQ(after.source, before.source);
  EXPECT_EQ(after.fingerprints, before.fingerprints);
  EXPECT_EQ(after.added_unix_ms, before.added_unix_ms);
  EXPECT_THAT(after.labels, ElementsAre("secret"));
  EXPECT_EQ((*index)->matrix().documents(), 4u);
  auto report = VerifyIndex((*index)->store());
  ASSERT_TRUE(report.ok());
  EXPECT_THAT(report->problems, IsEmpty());
  // The old text is still a duplicate: the rename did not lose it.
  auto dup = AddDoc(**index, TextDoc{"copy", d.text});
  ASSERT_TRUE(dup.ok());
  EXPECT_EQ(dup->outcome, AddOutcome::kDuplicateContent);
  EXPECT_EQ(dup->existing_id, "finance/" + d.id);
  EXPECT_EQ((*index)->Rename("nope", "x").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ((*index)->Rename("finance/" + d.id, RealDocuments()[0].id).code(),
            absl::StatusCode::kAlreadyExists);
}

SourceRecord RootOnly(const std::string& root) {
  SourceRecord r;
  r.root = root;
  return r;
}

TEST(ProtectedIndexSourcesTest, SourcesAreKeptInTheIndexAndForgotten) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  SourceRecord finance;
  finance.root = "/srv/finance";
  finance.labels = {"secret"};
  finance.exclude = {"*.tmp"};
  finance.folder_labels = {{"board", {"board-only"}}};
  {
    auto index = ProtectedIndex::Create(dir, SmallRows());
    ASSERT_TRUE(index.ok());
    ASSERT_TRUE((*index)->PutSource("finance", finance).ok());
    ASSERT_TRUE((*index)->PutSource("hr", RootOnly("/srv/hr")).ok());
    EXPECT_EQ((*index)->PutSource("a/b", RootOnly("/x")).code(),
              absl::StatusCode::kInvalidArgument);
  }
  {
    auto reader = ProtectedIndex::Open(dir, OpenMode::kRead);
    ASSERT_TRUE(reader.ok());
    auto listed = (*reader)->ListSources();
    ASSERT_TRUE(listed.ok());
    ASSERT_EQ(listed->size(), 2u);
    EXPECT_EQ((*listed)[0].name, "finance");
    EXPECT_EQ((*listed)[0].record, finance);
    EXPECT_EQ((*listed)[1].name, "hr");
  }
  auto writer = ProtectedIndex::Open(dir, OpenMode::kWrite);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->RemoveSource("hr").ok());
  EXPECT_EQ((*writer)->RemoveSource("hr").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ((*writer)->ListSources()->size(), 1u);
  // The metadata and state keys beside them are untouched.
  EXPECT_TRUE((*writer)->store().ReadState().ok());
}

}  // namespace
}  // namespace leakhound
