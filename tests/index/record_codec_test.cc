#include "index/record_codec.h"

#include <sys/resource.h>

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

MetadataRecord SampleMetadata() {
  MetadataRecord r;
  r.format_version = 1;
  r.shingler_version = 1;
  r.unicode_version = "15.0";
  r.shingle_words = 5;
  r.cjk_chars_per_word = 2;
  r.winnow_window = 0;
  r.fpr = 1e-3;
  r.row_capacity = 16384;
  r.fill = 1.0;
  r.bits = 235570;
  r.hashes = 10;
  r.packing = 0;
  r.created_unix_ms = 1795000000000;
  r.group_rows = 256;
  r.filter_winnow_window = 4;
  return r;
}

DocumentRecord SampleDocument() {
  DocumentRecord r;
  r.external_id = "merger-memo.txt";
  r.source = "protected/merger-memo.txt";
  r.digest = std::string(32, '\xab');
  r.bytes = 4096;
  r.fingerprints = 700;
  r.occurrences = 702;
  r.rows = {3, 4};
  r.added_unix_ms = 1795000000123;
  r.labels = {"legal"};
  r.sensitivity = {{"f42aa342-8706-4288-bd11-ebb85995028c", "Confidential"}};
  return r;
}

FingerprintsRecord SampleFingerprints() {
  FingerprintsRecord r;
  r.occurrences = {{0x0123456789abcdefULL, 0, 5, 0, 27},
                   {0xfedcba9876543210ULL, 1, 6, 4, 33},
                   {0x00000000000000ffULL, 2, 7, 9, 40}};
  r.word_checks = "\x11\x22\x33\x44\x55\x66\xf7";
  return r;
}

RowRecord SampleRow() {
  RowRecord r;
  r.segments = {{7, 0, 300}, {9, 0, 12}};
  r.fingerprints = 312;
  r.bits_set = 2800;
  return r;
}

AllowRecord SampleAllow() {
  AllowRecord r;
  r.source = "allow/disclaimer.txt";
  r.digest = std::string(32, '\xcd');
  r.added_unix_ms = 1795000000456;
  r.fingerprints = {0x00000000000000ffULL, 0x0123456789abcdefULL};
  return r;
}

CountBucketRecord SampleCounts() {
  CountBucketRecord r;
  r.entries = {{0x0123000000000005ULL, 1}, {0x0123000000000105ULL, 300}};
  return r;
}

template <typename Record>
Record RoundTrip(const Record& in) {
  Record out;
  EXPECT_TRUE(DecodeRecord(EncodeRecord(in), &out).ok());
  return out;
}

TEST(RecordCodecTest, EveryRecordRoundTrips) {
  EXPECT_EQ(RoundTrip(SampleMetadata()), SampleMetadata());
  StateRecord state{42, 7, 3, 0xfedcba9876543210};
  EXPECT_EQ(RoundTrip(state), state);
  EXPECT_EQ(RoundTrip(SampleDocument()), SampleDocument());
  EXPECT_EQ(RoundTrip(SampleFingerprints()), SampleFingerprints());
  EXPECT_EQ(RoundTrip(SampleRow()), SampleRow());
  EXPECT_EQ(RoundTrip(FingerprintsRecord{}), FingerprintsRecord{});
  EXPECT_EQ(RoundTrip(SampleAllow()), SampleAllow());
  EXPECT_EQ(RoundTrip(AllowRecord{}), AllowRecord{});
  EXPECT_EQ(RoundTrip(SampleCounts()), SampleCounts());
  EXPECT_EQ(RoundTrip(CountBucketRecord{}), CountBucketRecord{});
  const LocationRecord location{R"(\\fs01\HR)", 1795000000789};
  EXPECT_EQ(RoundTrip(location), location);
  EXPECT_EQ(RoundTrip(LocationRecord{}), LocationRecord{});
}

// Golden bytes: these records are on disk in users' indexes. A change here
// is a storage format change (bump kFormatVersion or a class version).
TEST(RecordCodecTest, SerializedBytesArePinned) {
  EXPECT_EQ(absl::BytesToHexString(EncodeRecord(SampleMetadata())),
            "00030000000100000001000000040000000000000031352e300500000002"
            "00000000000000fca9f1d24d62503f00400000000000000000f03f329803"
            "000a00000000005e56eea10100000001000004000000");
  EXPECT_EQ(
      absl::BytesToHexString(
          EncodeRecord(StateRecord{42, 7, 3, 0x0102030405060708})),
      "00020000002a000000070000000000000003000000000000000807060504030201");
  // DocumentRecord v2: v1's fields, then the sensitivity labels.
  EXPECT_EQ(absl::BytesToHexString(EncodeRecord(SampleDocument())),
            "00020000000f000000000000006d65726765722d6d656d6f2e7478741900"
            "00000000000070726f7465637465642f6d65726765722d6d656d6f2e7478"
            "742000000000000000ababababababababababababababababababababab"
            "ababababababababababab0010000000000000bc020000be020000020000"
            "000000000003000000040000007b5e56eea1010000000000000001000000"
            "000000000000000005000000000000006c6567616c000000000001000000"
            "00000000010000000001000000240000000000000066343261613334322d"
            "383730362d343238382d626431312d6562623835393935303238630c0000"
            "0000000000436f6e666964656e7469616c");
  EXPECT_EQ(absl::BytesToHexString(EncodeRecord(SampleFingerprints())),
            "000200000003000000000000002400000000000000efcdab896745230100"
            "05001b1032547698badcfe0205081dff0000000000000002050a1f070000"
            "0000000000112233445566f7");
  EXPECT_EQ(absl::BytesToHexString(EncodeRecord(SampleRow())),
            "000100000000000000000200000000000000010000000001000000070000"
            "00000000002c01000009000000000000000c00000038010000f00a0000");
  EXPECT_EQ(absl::BytesToHexString(EncodeRecord(SampleAllow())),
            "00010000001400000000000000616c6c6f772f646973636c61696d65722e"
            "7478742000000000000000cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd"
            "cdcdcdcdcdcdcdcdcdcdcdcdcdc85f56eea1010000100000000000000"
            "0ff00000000000000efcdab8967452301");
  EXPECT_EQ(absl::BytesToHexString(EncodeRecord(
                LocationRecord{"https://a.example/b/", 1795000000789})),
            "0001000000140000000000000068747470733a2f2f612e6578616d706c65"
            "2f622f156156eea1010000");
  EXPECT_EQ(absl::BytesToHexString(EncodeRecord(SampleCounts())),
            "000100000002000000000000000e00000000000000858080808080c091"
            "01018002ac02");
}

RecordTableRecord SampleTable() {
  RecordTableRecord t;
  t.table_id = 3;
  t.data_generation = 2;
  t.source = "c.csv";
  t.columns = {{"card", 3, 1, 0, "", "", {}, false},
               {"id", 5, 0, 0, "[A-Z]{2}", "", {}, false}};
  t.min_matches = 1;
  t.proximity = 50;
  t.date_order = 0;
  t.rows = 7;
  t.skipped_rows = 1;
  t.set_entries = {7, 0};
  t.sets_digest = 0x0102030405060708;
  t.added_unix_ms = 1795000000789;
  return t;
}

// A phone column's regions and a name column's folded accents came with
// column version 2.
RecordTableRecord SampleTableWithRegions() {
  RecordTableRecord t = SampleTable();
  t.columns.push_back({"tel", 2, 0, 0, "", "DE", {"DE", "AT"}, false});
  t.columns.push_back({"who", 7, 0, 2, "", "", {}, true});
  t.set_entries.push_back(0);
  t.set_entries.push_back(0);
  return t;
}

TEST(RecordCodecTest, ARecordTableRoundTripsAndItsBytesArePinned) {
  EXPECT_EQ(RoundTrip(SampleTableWithRegions()), SampleTableWithRegions());
  EXPECT_EQ(RoundTrip(RecordTableRecord{}), RecordTableRecord{});
  // Golden: a change here is a storage format change.
  EXPECT_EQ(absl::BytesToHexString(EncodeRecord(SampleTableWithRegions())),
            "000100000003000000020000000500000000000000632e637376000000000004"
            "0000000000000002000000000200000004000000000000006361726403010000"
            "0000000000000000000000000000000000000000000000000000000000000000"
            "000200000000000000696405000008000000000000005b412d5a5d7b327d0000"
            "00000000000000000000000000000000000000030000000000000074656c0200"
            "0000000000000000000200000000000000444502000000000000000000000002"
            "0000000000000044450200000000000000415400030000000000000077686f07"
            "0002000000000000000000000000000000000000000000000000000000000101"
            "00000032000000002c0107000000000000000100000000000000040000000000"
            "0000070000000000000000000000000000000000000000000000000000000000"
            "00000807060504030201156156eea1010000");
}

TEST(RecordCodecTest, ARecordTableOfColumnVersionOneDecodesWithoutRegions) {
  // SampleTable() as column version 1 wrote it (before issue 67).
  const std::string bytes = absl::HexStringToBytes(
      "000100000003000000020000000500000000000000632e637376000000000002"
      "0000000000000001000000000100000004000000000000006361726403010000"
      "000000000000000200000000000000696405000008000000000000005b412d5a"
      "5d7b327d0100000032000000002c010700000000000000010000000000000002"
      "0000000000000007000000000000000000000000000000080706050403020115"
      "6156eea1010000");
  RecordTableRecord decoded;
  ASSERT_TRUE(DecodeRecord(bytes, &decoded).ok());
  EXPECT_EQ(decoded, SampleTable());
}

SourceRecord SampleSource() {
  SourceRecord s;
  s.root = "/srv/fin";
  s.labels = {"secret"};
  s.include = {"*.txt"};
  s.exclude = {"d/*"};
  s.folder_labels = {{"board", {"b"}}};
  s.added_unix_ms = 1795000000789;
  return s;
}

TEST(RecordCodecTest, ASourceRoundTripsAndItsBytesArePinned) {
  EXPECT_EQ(RoundTrip(SampleSource()), SampleSource());
  EXPECT_EQ(RoundTrip(SourceRecord{}), SourceRecord{});
  // Golden: a change here is a storage format change.
  EXPECT_EQ(absl::BytesToHexString(EncodeRecord(SampleSource())),
            "000100000008000000000000002f7372762f66696e0000000000010000000000"
            "0000000000000600000000000000736563726574010000000000000000000000"
            "05000000000000002a2e74787401000000000000000000000003000000000000"
            "00642f2a00000000000100000000000000010000000001000000050000000000"
            "0000626f617264010000000000000000000000010000000000000062156156ee"
            "a1010000");
}

TEST(RecordCodecTest, DocumentVersionOneDecodesWithoutSensitivity) {
  // SampleDocument as DocumentRecord v1 wrote it (before labels were read
  // from files, docs/labels.md).
  const std::string v1 = absl::HexStringToBytes(
      "00010000000f000000000000006d65726765722d6d656d6f2e7478741900"
      "00000000000070726f7465637465642f6d65726765722d6d656d6f2e7478"
      "742000000000000000ababababababababababababababababababababab"
      "ababababababababababab0010000000000000bc020000be020000020000"
      "000000000003000000040000007b5e56eea1010000000000000001000000"
      "000000000000000005000000000000006c6567616c");
  DocumentRecord decoded;
  ASSERT_TRUE(DecodeRecord(v1, &decoded).ok());
  DocumentRecord expected = SampleDocument();
  expected.sensitivity.clear();
  EXPECT_EQ(decoded, expected);
}

TEST(RecordCodecTest, FingerprintsVersionOneDecodesWithoutWordChecks) {
  // SampleFingerprints() as version 1 wrote it (before word checks).
  const std::string bytes = absl::HexStringToBytes(
      "000100000003000000000000002400000000000000efcdab896745230100"
      "05001b1032547698badcfe0205081dff0000000000000002050a1f");
  FingerprintsRecord decoded;
  ASSERT_TRUE(DecodeRecord(bytes, &decoded).ok());
  EXPECT_EQ(decoded.occurrences, SampleFingerprints().occurrences);
  EXPECT_TRUE(decoded.word_checks.empty());
}

TEST(RecordCodecTest, CountBucketsStoreAscendingDeltas) {
  CountBucketRecord many;
  for (uint64_t i = 1; i <= 10000; ++i) {
    many.entries.push_back({0x7fff000000000000ULL + i * 0x1000000ULL, 1});
  }
  // Deltas of 2^24: 4-byte varints, plus a one-byte count.
  EXPECT_LE(EncodeRecord(many).size(), 10000u * 5 + 64);
  EXPECT_EQ(RoundTrip(many), many);
  // Unsorted, repeated or zero-count entries do not decode.
  for (const CountBucketRecord& bad :
       {CountBucketRecord{{{9, 1}, {5, 1}}},
        CountBucketRecord{{{9, 1}, {9, 2}}}, CountBucketRecord{{{9, 0}}}}) {
    CountBucketRecord out;
    EXPECT_EQ(DecodeRecord(EncodeRecord(bad), &out).code(),
              absl::StatusCode::kDataLoss);
  }
}

TEST(RecordCodecTest, FingerprintListIsDeltaVarintEncoded) {
  // 3 occurrences: 8 bytes of fingerprint + 4 one-byte varints each, plus
  // 7 word checks, the archive's class header, count and two lengths.
  const std::string bytes = EncodeRecord(SampleFingerprints());
  EXPECT_LT(bytes.size(), 3 * 12 + 7 + 40u);
  FingerprintsRecord many;
  for (uint32_t i = 0; i < 10000; ++i) {
    many.occurrences.push_back(
        {uint64_t{i} * 0x9e3779b97f4a7c15ULL, i, i + 5, 6 * i, 6 * i + 30});
  }
  many.word_checks.assign(10004, 'x');
  EXPECT_LE(EncodeRecord(many).size(), 10000u * 13 + 64);
  EXPECT_EQ(RoundTrip(many), many);
}

// Every strict prefix of `record`'s bytes, and the bytes plus one, are
// refused as DataLoss.
// A version-1 metadata record (before row groups) still decodes, with no
// groups.
TEST(RecordCodecTest, MetadataVersionOneDecodesWithoutRowGroups) {
  const std::string v1 = absl::HexStringToBytes(
      "00010000000100000001000000040000000000000031352e300500000002"
      "00000000000000fca9f1d24d62503f00400000000000000000f03f329803"
      "000a00000000005e56eea1010000");
  MetadataRecord decoded;
  ASSERT_TRUE(DecodeRecord(v1, &decoded).ok());
  MetadataRecord expected = SampleMetadata();
  expected.group_rows = 0;
  expected.filter_winnow_window = 0;
  EXPECT_EQ(decoded, expected);
}

// A version-2 metadata record (before the filter's winnowing window)
// decodes with every fingerprint in the filter (window 0).
TEST(RecordCodecTest, MetadataVersionTwoDecodesWithAFilterOfEveryFingerprint) {
  const std::string v2 = absl::HexStringToBytes(
      "00020000000100000001000000040000000000000031352e300500000002"
      "00000000000000fca9f1d24d62503f00400000000000000000f03f329803"
      "000a00000000005e56eea101000000010000");
  MetadataRecord decoded;
  ASSERT_TRUE(DecodeRecord(v2, &decoded).ok());
  MetadataRecord expected = SampleMetadata();
  expected.filter_winnow_window = 0;
  EXPECT_EQ(decoded, expected);
}

// A state written before v2 (every index until the row digest): it reads
// as "no digest recorded", and a reader checks each view whole.
TEST(RecordCodecTest, StateVersionOneDecodesWithoutARowsDigest) {
  const std::string v1 = absl::HexStringToBytes(
      "00010000002a00000007000000000000000300000000000000");
  StateRecord decoded{0, 0, 0, 99};
  ASSERT_TRUE(DecodeRecord(v1, &decoded).ok());
  EXPECT_EQ(decoded, (StateRecord{42, 7, 3, 0}));
}

template <typename Record>
void ExpectDamagedBytesRefused(const Record& record) {
  const std::string bytes = EncodeRecord(record);
  for (size_t n = 0; n < bytes.size(); ++n) {
    Record out;
    EXPECT_EQ(DecodeRecord(bytes.substr(0, n), &out).code(),
              absl::StatusCode::kDataLoss)
        << "prefix of " << n << " bytes";
  }
  Record out;
  EXPECT_EQ(DecodeRecord(bytes + "x", &out).code(),
            absl::StatusCode::kDataLoss);
}

TEST(RecordCodecTest, TruncatedOrExtendedBytesAreDataLoss) {
  ExpectDamagedBytesRefused(SampleDocument());
  ExpectDamagedBytesRefused(SampleFingerprints());
  ExpectDamagedBytesRefused(SampleAllow());
  ExpectDamagedBytesRefused(SampleCounts());
}

TEST(RecordCodecTest, NewerClassVersionIsRefusedWithAClearError) {
  std::string row = EncodeRecord(SampleRow());
  // Byte layout: class tracking flag (1), class version (4 bytes LE) first.
  ASSERT_GE(row.size(), 5u);
  row[1] = 2;
  RowRecord out;
  const absl::Status s = DecodeRecord(row, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("newer leakhound"), std::string::npos)
      << s.message();
}

// The largest resident set this process has had, in KiB.
long PeakResidentKiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// Overwrites the 8-byte little-endian length at `offset` after checking it
// holds `expected` (so the test damages the field it means to).
void DamageLength(std::string& bytes, size_t offset, uint64_t expected,
                  uint64_t damaged) {
  ASSERT_LE(offset + 8, bytes.size());
  uint64_t stored = 0;
  for (int i = 7; i >= 0; --i) {
    stored = (stored << 8) |
             static_cast<uint8_t>(bytes[offset + static_cast<size_t>(i)]);
  }
  ASSERT_EQ(stored, expected) << "not the length field at " << offset;
  for (size_t i = 0; i < 8; ++i) {
    bytes[offset + i] = static_cast<char>(damaged >> (8 * i));
  }
}

// fuzz_records found it: Boost sizes a string or vector before reading it,
// so a damaged length of 2^54 asked for 2^54 bytes (and one of a gigabyte
// was allocated and zero-filled before the read failed).
TEST(RecordCodecTest, ADamagedLengthIsDataLossWithoutAllocatingIt) {
  const long peak_before = PeakResidentKiB();
  for (const uint64_t length : {uint64_t{1} << 30, uint64_t{1} << 54}) {
    // Tracking flag (1 byte) and class version (4) come first, then the
    // external id's length.
    std::string document = EncodeRecord(SampleDocument());
    DamageLength(document, 5, SampleDocument().external_id.size(), length);
    DocumentRecord document_out;
    EXPECT_EQ(DecodeRecord(document, &document_out).code(),
              absl::StatusCode::kDataLoss);

    // A row starts with its segments' vector: its tracking flag and
    // version, then its count.
    std::string row = EncodeRecord(SampleRow());
    DamageLength(row, 10, SampleRow().segments.size(), length);
    RowRecord row_out;
    EXPECT_EQ(DecodeRecord(row, &row_out).code(), absl::StatusCode::kDataLoss);
  }
  EXPECT_LT(PeakResidentKiB() - peak_before, 256 * 1024)
      << "a damaged length was allocated";
}

// A fingerprints record holding `count` occurrences coded as `blob`:
// tracking flag and version, the count, the blob's length, the blob.
std::string FingerprintsBytes(uint64_t count, const std::string& blob) {
  std::string bytes("\x00\x01\x00\x00\x00", 5);
  for (uint64_t v : {count, uint64_t{blob.size()}}) {
    for (int i = 0; i < 8; ++i)
      bytes.push_back(static_cast<char>(v >> (8 * i)));
  }
  return bytes + blob;
}

std::string Bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

// fuzz_records found the first: a token delta that overflowed the running
// position (undefined behaviour); the second decoded to a shingle ending
// before it began.
TEST(RecordCodecTest, OccurrenceDeltasAndLengthsOutOfRangeAreDataLoss) {
  const std::string fingerprint(8, '\x11');
  const std::string max_varint =
      Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01});
  // Occurrence 1: token 5..10, bytes 0..27; varints: zigzag(5), 5, 0, 27.
  const std::string first = fingerprint + Bytes({0x0a, 0x05, 0x00, 0x1b});
  FingerprintsRecord out;
  ASSERT_TRUE(DecodeRecord(FingerprintsBytes(1, first), &out).ok());
  ASSERT_EQ(out.occurrences[0].token_end, 10u);
  // Occurrence 2 as the first's: zigzag(0), 5, zigzag(0), 27.
  ASSERT_TRUE(DecodeRecord(FingerprintsBytes(2, first + fingerprint +
                                                    Bytes({0, 5, 0, 0x1b})),
                           &out)
                  .ok());

  // Occurrence 2's token delta is zigzag(2^63 - 1): far past 2^32.
  const std::string huge_delta =
      fingerprint +
      Bytes({0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}) +
      Bytes({0x05, 0x00, 0x1b});
  EXPECT_EQ(DecodeRecord(FingerprintsBytes(2, first + huge_delta), &out).code(),
            absl::StatusCode::kDataLoss);
  // Occurrence 2's token length is 2^64 - 1, which wraps to end before the
  // begin.
  const std::string wrapping_length =
      fingerprint + Bytes({0x00}) + max_varint + Bytes({0x00, 0x1b});
  EXPECT_EQ(
      DecodeRecord(FingerprintsBytes(2, first + wrapping_length), &out).code(),
      absl::StatusCode::kDataLoss);
  // Occurrence 2's byte position is 0 - 1.
  const std::string negative = fingerprint + Bytes({0x00, 0x05, 0x01, 0x1b});
  EXPECT_EQ(DecodeRecord(FingerprintsBytes(2, first + negative), &out).code(),
            absl::StatusCode::kDataLoss);
}

TEST(RecordCodecTest, RandomBytesAreRejectedOrDecodeConsistently) {
  uint64_t x = 88172645463325252ULL;
  int rejected = 0, tries = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string junk(static_cast<size_t>(i % 97), '\0');
    for (char& c : junk) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      c = static_cast<char>(x);
    }
    // Garbage must neither crash, hang nor allocate wildly; whatever does
    // decode must be a record that survives its own round trip.
    DocumentRecord d;
    FingerprintsRecord f;
    RowRecord r;
    for (bool ok : {DecodeRecord(junk, &d).ok(), DecodeRecord(junk, &f).ok(),
                    DecodeRecord(junk, &r).ok()}) {
      ++tries;
      rejected += ok ? 0 : 1;
    }
    if (DecodeRecord(junk, &d).ok()) {
      EXPECT_EQ(RoundTrip(d), d);
    }
    if (DecodeRecord(junk, &f).ok()) {
      EXPECT_EQ(RoundTrip(f), f);
    }
    if (DecodeRecord(junk, &r).ok()) {
      EXPECT_EQ(RoundTrip(r), r);
    }
  }
  EXPECT_GT(rejected, tries * 99 / 100);
}

}  // namespace
}  // namespace leakhound
