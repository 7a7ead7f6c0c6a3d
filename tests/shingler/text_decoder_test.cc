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

// fuzz_shingler found a mail whose header bytes (runs of 0xFF) ICU's
// detector takes first for IBM420_rtl, a charset its converters lack:
// decoding failed. The next guess ICU can convert from is used instead.
TEST(TextDecoderTest, AGuessICUCannotConvertFromFallsToTheNext) {
  const std::string bytes = absl::HexStringToBytes(
      "46726f6d3a20416c6578ffffffffffffffffffffffffffffff9dffffffffffffffffffff"
      "ffffffff20446f65203c616c6578406578616d706c652e636f6d3e0d0a546f3a20706172"
      "746e6572406578616d706c652e6f72670d0a5375626a6563743a204e6f7465730d0a4461"
      "74653a205468752c203031204a616e20323032362030303a30303a3030202b303030300d"
      "0a4d6573736167652d49443a203c6c3a206261736536340d0a4d494d452d56657273696f"
      "6e3a20312e30030d0a0d0a553239745a53423362334a6b637942695a575a76636d556764"
      "47686c494846316233526c4c67304b566d467364574630615739754c6942506458496759"
      "57523261584e6c636e4d67646d46730d0a64575567513246736247393359586b67596d56"
      "306432566c626941794d5449675957356b4944497a4e6942746157787361573975494752"
      "7662477868636e4d67623234675953426b5a574a300d0a4c575a795a575567596d467a61"
      "584d734948646f61574e6f49476c7a494445784c6a1067644738674d5449754f43423061"
      "57316c6379427064484d6764484a6861577870626d63675a5746790d0a626d6c755a334d"
      "b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8b8"
      "b8b867596d566d62334a6c49e5476c75644756795a584e304c4342305958686c63797767"
      "5a47dd77636d566a6157463061573975494746755a4342686257397964476c3659585270"
      "0d0a6232347544517042626d516759575a305a5849676158517349484e76625755676257"
      "39795a53623333424a6b6379344e21673d3d0d0a");
  auto decoded = DecodeText(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(RepairUtf8(decoded->utf8), decoded->utf8);
  EXPECT_NE(decoded->utf8.find("partner@example.org"), std::string::npos)
      << decoded->encoding;
}

}  // namespace
}  // namespace leakhound
