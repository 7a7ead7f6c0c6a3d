// CellNormalizer: one form per cell value, so that a table's cell and the
// same value written otherwise in outbound text hash alike (docs/records.md,
// "Normalization"):
//   email        ASCII lower case, without surrounding brackets or mailto:
//   phone        the digits; a leading 00 dropped (so +49 and 0049 agree);
//                7 to 15 digits. A table's number without a country code,
//                in a column with a region: libphonenumber's E.164 digits.
//                In text, such a number is also read in the regions given
//                (set_phone_regions), and "(0)" after a country code is
//                dropped
//   card         the digits (13 to 19)
//   iban         letters and digits in upper case (15 to 34)
//   national_id  letters and digits in upper case
//   date         YYYYMMDD, read from ISO dates, numeric dates in the
//                table's order (in text: either order where both read as a
//                date) and dates with English month names
//   name, text   the shingler's tokens of each word (its Unicode folding:
//                case, width, look-alikes, marks), accents dropped, as
//                their hashes; a CJK character is a word
//
// Words: the text splits into words at white space and at , ; | " < > ( )
// [ ] { }, but not at the . - / @ + : inside numbers, addresses and dates;
// a word's trailing full stops and colons are not part of it.
// A record's proximity counts these words.
//
// Thread-safety: a CellNormalizer owns a tokenizer: use one per thread.
#ifndef LEAKHOUND_CLI_RECORDS_CELL_NORMALIZER_H_
#define LEAKHOUND_CLI_RECORDS_CELL_NORMALIZER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/records/phone_numbers.h"
#include "cli/records/record_schema.h"
#include "shingler/tokenizer.h"

namespace leakhound {

// A word's bytes [begin, end) in the text.
struct WordSpan {
  uint32_t begin = 0;
  uint32_t end = 0;
};

// The words of `text` (see the file comment), in order.
// REQUIRES: text.size() < 2^32.
std::vector<WordSpan> SplitWords(std::string_view text);

class CellNormalizer {
 public:
  static absl::StatusOr<std::unique_ptr<CellNormalizer>> Create();

  // A table cell's normalized form; nullopt when the cell is empty or is
  // not a value of its type (such a cell is stored empty).
  std::optional<std::string> Cell(CellType type, DateOrder order,
                                  std::string_view raw);
  // The forms `raw`, a run of words of outbound text, may stand for as a
  // cell of `type`: none, one, or for an ambiguous date two. Replaces
  // *forms.
  void TextForms(CellType type, std::string_view raw,
                 std::vector<std::string>* forms);
  // The normalized form of one word as a name or text cell's part: a
  // name's form is its words' forms concatenated. Empty for a word
  // without tokens. Accents are dropped first (shingler/mark_folding.h)
  // unless `fold_marks` is false, as tables added before issue 67 have
  // them (RecordColumnRecord::marks_folded).
  std::string WordForm(std::string_view word, bool fold_marks = true);
  // The regions a phone number written without a country code is also
  // read in by TextForms (phone_numbers.h's AddNationalForms).
  void set_phone_regions(std::vector<PhoneRegion> regions) {
    phone_regions_ = std::move(regions);
  }
  // The number of words of a name or text cell (for the scanner's runs).
  static uint32_t WordCount(std::string_view raw);

 private:
  explicit CellNormalizer(std::unique_ptr<Tokenizer> tokenizer);
  std::optional<std::string> Words(std::string_view raw);

  std::unique_ptr<Tokenizer> tokenizer_;
  std::vector<Token> tokens_;  // scratch
  std::vector<PhoneRegion> phone_regions_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_RECORDS_CELL_NORMALIZER_H_
