#include "cli/records/data_scanner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "cli/records/record_schema.h"
#include "cli/records/table_loader.h"
#include "engine/protected_index.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::UnorderedElementsAre;

constexpr char kSchema[] = R"(table = "customers"
[[column]]
name = "name"
type = "name"
[[column]]
name = "email"
type = "email"
primary = true
[[column]]
name = "phone"
type = "phone"
[[column]]
name = "card"
type = "card"
primary = true
[[column]]
name = "born"
type = "date"
)";

constexpr char kTable[] =
    "card,name,email,phone,born\n"
    "4111111111111111,John Smith,john.smith@example.com,+49 30 1234567,"
    "1985-03-02\n"
    "5500005555555559,Maria Garcia,maria@example.org,+1 415 555 0134,"
    "1970-12-24\n"
    "378282246310005,Wei Zhang,wei.zhang@example.net,+44 20 7946 0958,"
    "2001-07-09\n";

class DataScannerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto index = ProtectedIndex::Create(tmp_.Sub("idx"), IndexOptions());
    ASSERT_TRUE(index.ok()) << index.status();
    index_ = std::move(*index);
    Load(kTable, /*replace=*/false);
  }

  void Load(const std::string& table, bool replace,
            const char* schema_text = kSchema) {
    const std::string csv = tmp_.Sub("t.csv");
    std::ofstream(csv) << table;
    auto schema = ParseRecordSchema(schema_text, "s.toml");
    ASSERT_TRUE(schema.ok()) << schema.status();
    TableLoadOptions options;
    options.name = "customers";
    options.path = csv;
    options.replace = replace;
    auto loaded = LoadTable(*index_, *schema, options);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    NewScanner(BuiltInIdentifiers());
  }

  void NewScanner(std::vector<IdentifierSpec> identifiers) {
    auto scanner =
        DataScanner::Create(std::move(identifiers), index_->record_tables(),
                            &index_->store(), index_->store().key());
    ASSERT_TRUE(scanner.ok()) << scanner.status();
    scanner_ = std::move(*scanner);
    auto session = scanner_->NewSession();
    ASSERT_TRUE(session.ok());
    session_ = std::move(*session);
  }

  DataFindings Scan(std::string_view text) {
    auto found = scanner_->Scan(text, *session_);
    EXPECT_TRUE(found.ok()) << found.status();
    return found.ok() ? *found : DataFindings();
  }

  TempDir tmp_;
  std::unique_ptr<ProtectedIndex> index_;
  std::unique_ptr<DataScanner> scanner_;
  std::unique_ptr<DataScanner::Session> session_;
};

TEST_F(DataScannerTest, AReformattedRowInProseIsARecordMatch) {
  const std::string text =
      "Hi, the customer JOHN SMITH paid with 4111-1111-1111-1111 and asks "
      "to be called on +49.30.123.4567 before 2 March 1985 ends.";
  const DataFindings found = Scan(text);
  ASSERT_THAT(found.records, SizeIs(1));
  const RecordMatch& m = found.records[0];
  EXPECT_EQ(m.table, "customers");
  EXPECT_THAT(m.row_key, SizeIs(16));
  EXPECT_THAT(m.columns, ElementsAre("card", "name", "phone", "born"));
  auto span = [&](size_t i) {
    return text.substr(m.spans[i].first, m.spans[i].second - m.spans[i].first);
  };
  EXPECT_EQ(span(0), "4111-1111-1111-1111");
  EXPECT_EQ(span(1), "JOHN SMITH");
  EXPECT_EQ(span(2), "+49.30.123.4567");
  EXPECT_EQ(span(3), "2 March 1985");
  EXPECT_EQ(found.RecordsOf("customers"), 1u);
  EXPECT_EQ(found.RecordsOf(""), 1u);
}

TEST_F(DataScannerTest, ColumnsInAnotherOrderAndACsvLineMatchToo) {
  const DataFindings found = Scan(
      "born;email;name;card\n"
      "24.12.1970;MARIA@EXAMPLE.ORG;maria garcia;5500 0055 5555 5559\n"
      "09.07.2001;wei.zhang@example.net;Wei Zhang;3782 822463 10005\n");
  ASSERT_THAT(found.records, SizeIs(2));
  EXPECT_NE(found.records[0].row_key, found.records[1].row_key);
  // Both primaries of a row lead to one match, the one with most columns.
  EXPECT_THAT(found.records[0].columns,
              UnorderedElementsAre("email", "name", "card", "born"));
}

// Issue 67: two rows sharing a primary value shared one row_key.
TEST_F(DataScannerTest, RowsSharingAPrimaryValueHaveTheirOwnRowKeys) {
  Load(std::string(kTable) +
           "4111111111111111,Jane Smith,jane@example.com,+49 30 7654321,"
           "1990-01-05\n",
       /*replace=*/true);
  const DataFindings found = Scan(
      "Card 4111 1111 1111 1111: John Smith, born 2 March 1985, and Jane "
      "Smith, born 5 January 1990.");
  ASSERT_THAT(found.records, SizeIs(2));
  EXPECT_NE(found.records[0].row_key, found.records[1].row_key);
  EXPECT_THAT(found.records[0].row_key, SizeIs(16));
  // The same row has the same key in another scan.
  const DataFindings again = Scan("4111111111111111 John Smith 02/03/1985");
  ASSERT_THAT(again.records, SizeIs(1));
  EXPECT_EQ(again.records[0].row_key, found.records[0].row_key);
}

TEST_F(DataScannerTest, APrimaryWithOneOtherCellIsNotARecord) {
  EXPECT_THAT(Scan("Card 4111 1111 1111 1111 of John Smith.").records,
              IsEmpty());
}

TEST_F(DataScannerTest, CellsBeyondTheProximityDoNotCount) {
  std::string text = "Card 4111 1111 1111 1111.";
  for (int i = 0; i < 60; ++i) text += " filler";
  text += " John Smith was born on 1985-03-02.";
  EXPECT_THAT(Scan(text).records, IsEmpty());
}

TEST_F(DataScannerTest, AnotherRowsCellsDoNotCorroborate) {
  EXPECT_THAT(
      Scan("4111111111111111 Maria Garcia +1 415 555 0134 1970-12-24").records,
      IsEmpty());
}

TEST_F(DataScannerTest, AReplacedTableMatchesItsNewRowsOnly) {
  Load(
      "card,name,email,phone,born\n"
      "6011111111111117,Anna Meyer,anna@example.de,+49 89 7654321,"
      "1990-01-15\n",
      /*replace=*/true);
  EXPECT_THAT(Scan("4111111111111111 John Smith 1985-03-02").records,
              IsEmpty());
  EXPECT_THAT(Scan("6011111111111117 Anna Meyer 15.01.1990").records,
              SizeIs(1));
}

TEST_F(DataScannerTest, ASixteenDigitNumberFailingLuhnIsNeverACard) {
  const DataFindings found = Scan("ref 4111111111111112 and 4111111111111111");
  EXPECT_EQ(found.IdentifierDistinct("card"), 1u);
}

TEST_F(DataScannerTest, TenCardsFireOnACardExportNotOnOrderNumbers) {
  // A pasted export of twelve test card numbers (all Luhn-valid)...
  const std::string exported =
      "4111111111111111\n5500005555555559\n378282246310005\n"
      "6011111111111117\n4012888888881881\n5105105105105100\n"
      "4222222222222\n371449635398431\n6011000990139424\n"
      "5555555555554444\n4000056655665556\n3566002020360505\n";
  EXPECT_GE(Scan(exported).IdentifierDistinct("card"), 10u);
  // ... and a clean mail with sixteen-digit order numbers (Luhn fails).
  const std::string orders =
      "Orders shipped: 4111111111111112, 5500005555555550, 6011111111111110,"
      " 4012888888881880, 5105105105105101, 4000056655665557, "
      "3566002020360506, 5555555555554440, 6011000990139420, "
      "4222222222222222, 2223000048400010, 5200828282828211.";
  EXPECT_EQ(Scan(orders).IdentifierDistinct("card"), 0u);
}

// "Last, First" and "LAST First": 0 of 68 before issue 67. (The table
// needs two cells beside the card: the name and the birth date.)
TEST_F(DataScannerTest, ANameWrittenFamilyNameFirstCorroborates) {
  for (const char* text :
       {"Card 4111-1111-1111-1111 of Smith, John, born 2 March 1985.",
        "Card 4111-1111-1111-1111 of SMITH John, born 2 March 1985."}) {
    const DataFindings found = Scan(text);
    ASSERT_THAT(found.records, SizeIs(1)) << text;
    EXPECT_THAT(found.records[0].columns, ElementsAre("card", "name", "born"))
        << text;
  }
  // Another person's name in either order does not.
  EXPECT_THAT(
      Scan("Card 4111-1111-1111-1111 of Garcia, Maria, born 2 March 1985.")
          .records,
      IsEmpty());
}

// German month names: "März" was split at its umlaut before issue 67.
TEST_F(DataScannerTest, AGermanDateCorroborates) {
  const DataFindings found = Scan(
      "Karte 4111 1111 1111 1111 von John Smith, geboren am 2. März 1985.");
  ASSERT_THAT(found.records, SizeIs(1));
  EXPECT_THAT(found.records[0].columns, ElementsAre("card", "name", "born"));
}

// A 15-digit card grouped 4-4-4-3: 0 of 68 before issue 67.
TEST_F(DataScannerTest, AFifteenDigitCardInGroupsOfFourFourFourThree) {
  const DataFindings found =
      Scan("Amex 3782 8224 6310 005 of Wei Zhang, born 9 July 2001.");
  EXPECT_EQ(found.IdentifierDistinct("card"), 1u);
  ASSERT_THAT(found.records, SizeIs(1));
  EXPECT_THAT(found.records[0].columns, ElementsAre("card", "name", "born"));
}

// Numbers wrapped or split by white space of any kind: 58 of 280 rows of
// a PDF made from a .docx were missed before issue 67.
TEST_F(DataScannerTest, ANumberSplitByAnyWhiteSpaceIsFoundAndMappedBack) {
  for (const std::string sep :
       {"\n", "\r\n", "\t", "  ", "\xC2\xA0", " \n", "\xE2\x80\xAF"}) {
    const std::string text = "Card 4111 1111" + sep +
                             "1111 1111 of John\r\nSmith, born 2\xC2\xA0March "
                             "1985, phone +49 30" + sep + "1234567.";
    const DataFindings found = Scan(text);
    EXPECT_EQ(found.IdentifierDistinct("card"), 1u) << sep.size();
    EXPECT_EQ(found.IdentifierDistinct("phone"), 1u) << sep.size();
    ASSERT_THAT(found.records, SizeIs(1)) << sep.size();
    const RecordMatch& m = found.records[0];
    EXPECT_THAT(m.columns, ElementsAre("card", "name", "phone", "born"));
    // The spans are the original text's.
    auto span = [&](size_t i) {
      return text.substr(m.spans[i].first,
                         m.spans[i].second - m.spans[i].first);
    };
    EXPECT_EQ(span(0), "4111 1111" + sep + "1111 1111");
    EXPECT_EQ(span(1), "John\r\nSmith");
    EXPECT_EQ(span(2), "+49 30" + sep + "1234567");
    EXPECT_EQ(span(3), "2\xC2\xA0March 1985");
  }
  // A paragraph's end between groups is not joined.
  EXPECT_EQ(Scan("Card 4111 1111\n\n1111 1111.").IdentifierDistinct("card"),
            0u);
}

// Phones in national form: 0 of 68 each before issue 67. The table's
// numbers are international; their country codes (DE, US, GB) are the
// regions a number without one is read in.
TEST_F(DataScannerTest, APhoneInNationalFormCorroborates) {
  for (const char* phone : {"030 1234567", "(030) 123 45 67",
                            "+49 (0)30 1234567", "030/1234567"}) {
    const DataFindings found = Scan(absl::StrCat(
        "Card 4111 1111 1111 1111 of John Smith, call ", phone, " today."));
    ASSERT_THAT(found.records, SizeIs(1)) << phone;
    EXPECT_THAT(found.records[0].columns, ElementsAre("card", "name", "phone"))
        << phone;
  }
  const DataFindings us =
      Scan("Maria Garcia, maria@example.org, (415) 555-0134.");
  ASSERT_THAT(us.records, SizeIs(1));
  EXPECT_THAT(us.records[0].columns, ElementsAre("email", "name", "phone"));
}

constexpr char kPhoneSchema[] = R"(table = "customers"
region = "DE"
min_matches = 1
[[column]]
name = "phone"
type = "phone"
primary = true
[[column]]
name = "name"
type = "name"
)";

TEST_F(DataScannerTest, APrimaryPhoneMatchesInEveryFormOfItsRegion) {
  Load("phone,name\n030 1234567,John Smith\n+49 89 7654321,Maria Garcia\n",
       /*replace=*/true, kPhoneSchema);
  for (const char* text :
       {"John Smith: +49 30 1234567", "John Smith: 0049 30 1234567",
        "John Smith: 030 1234567", "John Smith: +49 (0)30 1234567",
        "Maria Garcia: 089 7654321", "Maria Garcia: +49 89 7654321"}) {
    EXPECT_THAT(Scan(text).records, SizeIs(1)) << text;
  }
  // Another region's trunk reading of the digits is no match.
  EXPECT_THAT(Scan("John Smith: +33 30 1234567").records, IsEmpty());
  // Nor digits inside a word, such as an account or order code's.
  EXPECT_THAT(Scan("John Smith: order K4930 1234567").records, IsEmpty());
}

// Issue 67: a CJK name inside CJK prose, and cells glued to CJK text: 0 of
// 68 each before.
TEST_F(DataScannerTest, ACjkNameAndCellsGluedToCjkTextCorroborate) {
  Load(std::string(kTable) +
           "6011000990139424,张伟,zhang.wei@example.cn,+86 138 0013 8000,"
           "1985-03-02\n",
       /*replace=*/true);
  const DataFindings found = Scan(
      "客户张伟的卡号是6011000990139424，生于1985年3月2日，"
      "电话13800138000。");
  ASSERT_THAT(found.records, SizeIs(1));
  EXPECT_THAT(found.records[0].columns,
              ElementsAre("card", "name", "phone", "born"));
  // Written in traditional characters (張偉), it is the same name.
  EXPECT_THAT(Scan("客戶張偉的卡號是6011000990139424，電話13800138000。").records,
              SizeIs(1));
  // Another person's name in the same place does not corroborate.
  EXPECT_THAT(
      Scan("客户李娜的卡号是6011000990139424，电话+86 139 0000 0000。").records,
      IsEmpty());
  // The primary glued on both sides, and an e-mail address.
  const DataFindings glued =
      Scan("张伟邮箱zhang.wei@example.cn电话13800138000谢谢");
  ASSERT_THAT(glued.records, SizeIs(1));
  EXPECT_THAT(glued.records[0].columns, ElementsAre("email", "name", "phone"));
}

// Issue 67: accents stripped from a name: only ß→ss matched before.
TEST_F(DataScannerTest, ANameWithoutItsAccentsCorroborates) {
  Load(std::string(kTable) +
           "6011000990139424,José Müller,jose@example.es,+34 91 123 45 67,"
           "1979-05-06\n",
       /*replace=*/true);
  for (const char* name : {"José Müller", "Jose Muller", "JOSE MULLER",
                           "Müller, José"}) {
    const DataFindings found = Scan(absl::StrCat(
        "Card 6011 0009 9013 9424 of ", name, ", born 6 May 1979."));
    ASSERT_THAT(found.records, SizeIs(1)) << name;
    EXPECT_THAT(found.records[0].columns, ElementsAre("card", "name", "born"))
        << name;
  }
}

TEST_F(DataScannerTest, DigitsOfAnIbanAreNotAlsoACard) {
  // Its second to fifth groups, 3806756919335056, pass Luhn on their own.
  const DataFindings found = Scan("Pay to DE90 3806 7569 1933 5056 46 now.");
  EXPECT_EQ(found.IdentifierDistinct("iban"), 1u);
  EXPECT_EQ(found.IdentifierDistinct("card"), 0u);
}

TEST_F(DataScannerTest, AnIdentifierWithKeywordsCountsOnlyNearThem) {
  IdentifierSpec spec;
  spec.name = "iban_account";
  spec.validator = Validator::kIban;
  spec.keywords = {"account", "Konto"};
  spec.keyword_distance = 5;
  NewScanner({spec});
  EXPECT_EQ(Scan("Konto: DE89 3704 0044 0532 0130 00")
                .IdentifierDistinct("iban_account"),
            1u);
  EXPECT_EQ(Scan("Ref DE89 3704 0044 0532 0130 00 as agreed in the "
                 "meeting on the account of the new office")
                .IdentifierDistinct("iban_account"),
            0u);
}

// As the gateway builds it: the built-in identifiers first, then the
// policy's. A user identifier with `validator = "iban"` or `"card"` finds
// the same spans as the built-in one, and both count (before, the user's
// was dropped as "inside" the built-in's match: docs/records.md's own
// iban_account example never counted).
TEST_F(DataScannerTest, UserIdentifiersWithABuiltInValidatorCountBesideIt) {
  std::vector<IdentifierSpec> specs = BuiltInIdentifiers();
  IdentifierSpec account;
  account.name = "iban_account";
  account.validator = Validator::kIban;
  account.keywords = {"account", "Konto"};
  IdentifierSpec plain;
  plain.name = "plain_iban";
  plain.validator = Validator::kIban;
  IdentifierSpec card;
  card.name = "corporate_card";
  card.validator = Validator::kCard;
  IdentifierSpec patterned;
  patterned.name = "patterned_iban";
  patterned.pattern = R"(\bDE\d{2}(?: ?\d{4}){4} ?\d{2}\b)";
  patterned.validator = Validator::kIban;
  for (const IdentifierSpec& s : {account, plain, card, patterned}) {
    specs.push_back(s);
  }
  NewScanner(specs);
  const DataFindings found =
      Scan("Please pay to account DE89 3704 0044 0532 0130 00 with card "
           "4111 1111 1111 1111 today.");
  for (const char* name : {"iban", "iban_account", "plain_iban",
                           "patterned_iban"}) {
    EXPECT_EQ(found.IdentifierDistinct(name), 1u) << name;
  }
  EXPECT_EQ(found.IdentifierDistinct("card"), 1u);
  EXPECT_EQ(found.IdentifierDistinct("corporate_card"), 1u);
}

TEST_F(DataScannerTest, UserPatternsWithAValidatorAreCountedPerValue) {
  IdentifierSpec spec;
  spec.name = "employee";
  spec.pattern = R"(\bEMP-\d{6}\b)";
  NewScanner({spec});
  const DataFindings found = Scan("EMP-123456 EMP-123456 EMP-654321 EMP-12");
  ASSERT_THAT(found.identifiers, SizeIs(1));
  EXPECT_EQ(found.identifiers[0].matches, 3u);
  EXPECT_EQ(found.identifiers[0].distinct, 2u);
}

TEST_F(DataScannerTest, AnIdentifierWithoutPatternOrValidatorIsRefused) {
  IdentifierSpec spec;
  spec.name = "nothing";
  auto scanner = DataScanner::Create({spec}, nullptr, nullptr, "");
  EXPECT_FALSE(scanner.ok());
  spec.pattern = "(unclosed";
  scanner = DataScanner::Create({spec}, nullptr, nullptr, "");
  ASSERT_FALSE(scanner.ok());
  EXPECT_THAT(std::string(scanner.status().message()),
              ::testing::HasSubstr("(unclosed"));
}

TEST_F(DataScannerTest, MoreCandidatesThanTheLimitIsAnErrorNotAPartialScan) {
  IdentifierSpec spec;
  spec.name = "digit";
  spec.pattern = R"(\d)";
  NewScanner({spec});
  const std::string digits(kMaxPatternMatches + 10, '7');
  auto found = scanner_->Scan(digits, *session_);
  ASSERT_FALSE(found.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(found.status())) << found.status();
  // The session is usable again.
  EXPECT_EQ(Scan("7 7").identifiers.size(), 1u);
}

}  // namespace
}  // namespace leakhound
