#include "shingler/text_decoder.h"

#include <string>

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

DecodedText Decode(std::string bytes) {
  auto decoded = DecodeText(std::move(bytes));
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  return decoded.ok() ? *decoded : DecodedText{};
}

TEST(TextDecoderTest, ValidUtf8IsKeptAndItsBomDropped) {
  const std::string text = "Prix net: 41 € par utilisateur — 機密";
  DecodedText d = Decode(text);
  EXPECT_EQ(d.utf8, text);
  EXPECT_EQ(d.encoding, "UTF-8");
  EXPECT_EQ(d.invalid_sequences, 0u);
  EXPECT_EQ(Decode("\xEF\xBB\xBF" + text).utf8, text);
}

TEST(TextDecoderTest, Utf16WithByteOrderMarkIsConverted) {
  // "Hé 機" as UTF-16LE and UTF-16BE.
  DecodedText le = Decode(std::string("\xFF\xFE" "H\0\xE9\0 \0\x5F\x6A", 10));
  EXPECT_EQ(le.utf8, "Hé 機");
  EXPECT_EQ(le.encoding, "UTF-16LE");
  DecodedText be = Decode(std::string("\xFE\xFF" "\0H\0\xE9\0 \x6A\x5F", 10));
  EXPECT_EQ(be.utf8, "Hé 機");
}

TEST(TextDecoderTest, MostlyUtf8WithACorruptByteStaysUtf8) {
  const std::string text =
      "Le comité a approuvé le résumé du contrat \xFF et la société versera";
  DecodedText d = Decode(text);
  EXPECT_EQ(d.encoding, "UTF-8");
  EXPECT_EQ(d.invalid_sequences, 1u);
  EXPECT_EQ(d.utf8,
            "Le comité a approuvé le résumé du contrat \xEF\xBF\xBD et la "
            "société versera");
}

TEST(TextDecoderTest, Windows1252IsDetectedAndConverted) {
  const std::string latin = absl::HexStringToBytes(
      "4c6520636f6d6974e9206120617070726f7576e9206c652072e973756de920647520"
      "636f6e747261743a206c6120736f6369e974e9207665727365726120756e65207072"
      "696d6520646520666964e96c6974e920e02063686171756520656d706c6f79e92061"
      "7072e873206c612070e972696f646520649265737361692c2073656c6f6e206c6520"
      "626172e86d65207072e976752e");
  DecodedText d = Decode(latin);
  EXPECT_TRUE(d.encoding == "ISO-8859-1" || d.encoding == "windows-1252")
      << d.encoding;
  EXPECT_NE(d.utf8.find("Le comité a approuvé le résumé"), std::string::npos)
      << d.utf8;
}

TEST(TextDecoderTest, ShiftJisIsDetectedAndConverted) {
  const std::string sjis = absl::HexStringToBytes(
      "91538cc591cc9364927282cc8ca48b868a4a94ad8c7689e682c982c282a282c48141"
      "9788944e937882cc975c8e5a82c6906c88f5947a927582f090e096be82b582dc82b7"
      "81428e8e8dec835a838b82cc97ca8e5982cd93f1815a93f194aa944e82c98a4a8e6e"
      "82b782e9975c92e882c582b78142");
  DecodedText d = Decode(sjis);
  EXPECT_EQ(d.encoding, "Shift_JIS");
  EXPECT_EQ(d.utf8,
            "全固体電池の研究開発計画について、来年度の予算と人員配置を説明しま"
            "す。試作セルの量産は二〇二八年に開始する予定です。");
}

}  // namespace
}  // namespace leakhound
