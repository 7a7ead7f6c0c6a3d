// IncidentSpool on a real folder, and the batch codec it writes.
#include "cli/incidents/incident_spool.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/incidents/incident_codec.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

Incident Full(int64_t time_ms) {
  Incident i;
  i.uid = "0123456789abcdef0123456789abcdef";
  i.time_ms = time_ms;
  i.source = "milter";
  i.kind = "leak";
  i.action = "quarantine";
  i.reference = "LH-ABCDEFGHJK";
  i.severity = "high";
  i.policy = "/etc/leakhound/policy.toml";
  i.would_action = "reject";
  i.rules = {{"board", "high", "quarantine", false, {"memo"}}};
  i.facts = {{"memo", {"finance"}, 40, 0.5}};
  i.queue_id = "4ABC";
  i.message_id = "<m@x>";
  i.sender = "a@corp.test";
  i.recipients = {"b@x.test", "c@x.test"};
  i.subject = std::string("caf\xE9 \0z", 7);  // not UTF-8, with a NUL
  i.client = "10.0.0.1";
  i.detail = "d";
  i.mail_state = "held";
  i.documents = {"memo"};
  IncidentMatch m;
  m.document = "memo";
  m.source = "/p/memo";
  m.labels = {"finance", "board"};
  m.part = "a.docx";
  m.byte_begin = 3;
  m.byte_end = 90;
  m.words = 40;
  m.coverage = 0.25;
  m.snippet = "..THE PASSAGE..";
  m.snippet_begin = 2;
  m.snippet_end = 13;
  i.matches = {m};
  return i;
}

TEST(IncidentCodecTest, EveryFieldComesBackByteForByte) {
  const std::vector<Incident> in = {Full(7), Full(9)};
  auto out = DecodeIncidents(EncodeIncidents(in));
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  const Incident& i = (*out)[0];
  EXPECT_EQ(i.uid, in[0].uid);
  EXPECT_EQ(i.subject, in[0].subject);
  EXPECT_EQ(i.recipients, in[0].recipients);
  EXPECT_EQ(i.rules[0].documents, in[0].rules[0].documents);
  EXPECT_EQ(i.facts[0].share, 0.5);
  EXPECT_EQ(i.matches[0].labels, in[0].matches[0].labels);
  EXPECT_EQ(i.matches[0].snippet_end, 13u);
  EXPECT_EQ(i.would_action, "reject");
  EXPECT_EQ(i.mail_state, "held");
  EXPECT_EQ((*out)[1].time_ms, 9);
  EXPECT_TRUE(i.override_offer.kind.empty());
}

TEST(IncidentCodecTest, AnOverrideOfferTravelsWithItsIncident) {
  std::vector<Incident> in = {Full(7)};
  in[0].override_offer.kind = "justify";
  in[0].override_offer.rule = "outside";
  in[0].override_offer.until_ms = 1795564800000;
  in[0].override_offer.min_chars = 25;
  in[0].override_offer.per_day = 3;
  auto out = DecodeIncidents(EncodeIncidents(in));
  ASSERT_TRUE(out.ok()) << out.status();
  const IncidentOverride& o = (*out)[0].override_offer;
  EXPECT_EQ(o.kind, "justify");
  EXPECT_EQ(o.rule, "outside");
  EXPECT_EQ(o.until_ms, 1795564800000);
  EXPECT_EQ(o.min_chars, 25u);
  EXPECT_EQ(o.per_day, 3u);
  EXPECT_EQ(o.state, "offered");
}

TEST(IncidentCodecTest, TruncatedOrForeignBytesAreDataLoss) {
  const std::string bytes = EncodeIncidents(std::vector<Incident>{Full(1)});
  EXPECT_TRUE(absl::IsDataLoss(
      DecodeIncidents(bytes.substr(0, bytes.size() / 2)).status()));
  EXPECT_TRUE(absl::IsDataLoss(DecodeIncidents("not cbor at all").status()));
}

TEST(IncidentSpoolTest, BatchesComeBackOldestFirstAndSurviveAReopen) {
  TempDir dir;
  {
    auto spool = IncidentSpool::Open(dir.Sub("s"), 100);
    ASSERT_TRUE(spool.ok()) << spool.status();
    ASSERT_TRUE((*spool)->Put(std::vector<Incident>{Full(5), Full(3)}).ok());
    ASSERT_TRUE((*spool)->Put(std::vector<Incident>{Full(8)}).ok());
    EXPECT_EQ((*spool)->depth(), 3u);
    EXPECT_EQ((*spool)->oldest_ms(), 3);
  }
  struct stat st {};
  ASSERT_EQ(::stat(dir.Sub("s").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  auto spool = IncidentSpool::Open(dir.Sub("s"), 100);
  ASSERT_TRUE(spool.ok()) << spool.status();
  EXPECT_EQ((*spool)->depth(), 3u);
  auto first = (*spool)->Oldest();
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_EQ((*first)->incidents.size(), 2u);
  ASSERT_TRUE((*spool)->Remove((*first)->seq).ok());
  auto second = (*spool)->Oldest();
  ASSERT_EQ((*second)->incidents[0].time_ms, 8);
  ASSERT_TRUE((*spool)->Remove((*second)->seq).ok());
  EXPECT_EQ((*spool)->depth(), 0u);
  EXPECT_FALSE((*(*spool)->Oldest()).has_value());
}

TEST(IncidentSpoolTest, ASecondProcessOrThreadCannotOpenItWhileHeld) {
  TempDir dir;
  auto first = IncidentSpool::Open(dir.Sub("s"), 100);
  ASSERT_TRUE(first.ok());
  auto second = IncidentSpool::Open(dir.Sub("s"), 100);
  EXPECT_TRUE(absl::IsFailedPrecondition(second.status())) << second.status();
}

TEST(IncidentSpoolTest,
     EachProcessTakesAFreeSlotAndALaterOneTakesOverADeadOnes) {
  TempDir dir;
  auto first = IncidentSpool::OpenSlot(dir.Sub("p"), 100);
  auto second = IncidentSpool::OpenSlot(dir.Sub("p"), 100);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ((*first)->dir(), dir.Sub("p/0"));
  EXPECT_EQ((*second)->dir(), dir.Sub("p/1"));
  ASSERT_TRUE((*first)->Put(std::vector<Incident>{Full(4)}).ok());
  first->reset();  // its process ended
  auto third = IncidentSpool::OpenSlot(dir.Sub("p"), 100);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ((*third)->dir(), dir.Sub("p/0"));
  EXPECT_EQ((*third)->depth(), 1u);
}

TEST(IncidentSpoolTest, AFullSpoolRefusesTheBatchWhole) {
  TempDir dir;
  auto spool = IncidentSpool::Open(dir.Sub("s"), 2);
  ASSERT_TRUE((*spool)->Put(std::vector<Incident>{Full(1)}).ok());
  EXPECT_TRUE(absl::IsResourceExhausted(
      (*spool)->Put(std::vector<Incident>{Full(2), Full(3)})));
  EXPECT_EQ((*spool)->depth(), 1u);
}

TEST(IncidentSpoolTest, AHalfWrittenFileIsRemovedAndADamagedOneMovedAside) {
  TempDir dir;
  {
    auto spool = IncidentSpool::Open(dir.Sub("s"), 100);
    ASSERT_TRUE((*spool)->Put(std::vector<Incident>{Full(1)}).ok());
    ASSERT_TRUE((*spool)->Put(std::vector<Incident>{Full(2)}).ok());
  }
  // A crash mid-write leaves a .tmp; a disk fault damages the oldest.
  std::ofstream(dir.Sub("s/00000000000000000009-1-9.batch.tmp")) << "half";
  std::string oldest;
  for (const auto& e : std::filesystem::directory_iterator(dir.Sub("s"))) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("00000000000000000001-")) oldest = e.path().string();
  }
  ASSERT_FALSE(oldest.empty());
  std::ofstream(oldest, std::ios::trunc) << "garbage";
  auto spool = IncidentSpool::Open(dir.Sub("s"), 100);
  ASSERT_TRUE(spool.ok());
  EXPECT_FALSE(
      std::filesystem::exists(dir.Sub("s/00000000000000000009-1-9.batch.tmp")));
  EXPECT_TRUE(absl::IsDataLoss((*spool)->Oldest().status()));
  EXPECT_EQ(
      std::distance(std::filesystem::directory_iterator(dir.Sub("s/damaged")),
                    std::filesystem::directory_iterator()),
      1);
  auto next = (*spool)->Oldest();
  ASSERT_TRUE(next.ok() && next->has_value());
  EXPECT_EQ((*next)->incidents[0].time_ms, 2);
  EXPECT_EQ((*spool)->depth(), 1u);
}

}  // namespace
}  // namespace leakhound
