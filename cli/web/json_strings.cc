#include "cli/web/json_strings.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace leakhound {
namespace {

// Collects string values; stops the parse (returns false) past a limit.
class StringCollector final : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit StringCollector(size_t max_bytes) : max_bytes_(max_bytes) {}

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  // Numbers are values a person typed too (an account, a card number).
  bool number_integer(number_integer_t value) override {
    return Append(std::to_string(value));
  }
  bool number_unsigned(number_unsigned_t value) override {
    return Append(std::to_string(value));
  }
  bool number_float(number_float_t, const string_t& written) override {
    return Append(written);
  }
  bool binary(binary_t&) override { return true; }
  bool string(string_t& value) override { return Append(value); }
  bool key(string_t&) override { return true; }
  bool start_object(std::size_t) override { return Open(); }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception&) override {
    error_ = absl::InvalidArgumentError(
        absl::StrCat("the body is not JSON (at byte ", position, ")"));
    return false;
  }

  absl::StatusOr<std::vector<std::string>> Result(bool parsed) {
    if (!limit_.ok()) return limit_;
    if (!error_.ok()) return error_;
    if (!parsed) return absl::InvalidArgumentError("the body is not JSON");
    return std::move(values_);
  }

 private:
  bool Append(const std::string& value) {
    if (bytes_ + value.size() + 1 > max_bytes_) {
      limit_ = absl::ResourceExhaustedError(absl::StrCat(
          "the JSON body holds more than ", max_bytes_, " bytes of text"));
      return false;
    }
    bytes_ += value.size() + 1;
    values_.push_back(value);
    return true;
  }
  bool Open() {
    if (++depth_ > kMaxJsonDepth) {
      limit_ = absl::ResourceExhaustedError(absl::StrCat(
          "the JSON body nests deeper than ", kMaxJsonDepth, " levels"));
      return false;
    }
    return true;
  }
  bool Close() {
    --depth_;
    return true;
  }

  const size_t max_bytes_;
  size_t depth_ = 0;
  size_t bytes_ = 0;  // of the values, a newline each
  std::vector<std::string> values_;
  absl::Status limit_, error_;
};

}  // namespace

absl::StatusOr<std::vector<std::string>> JsonStrings(std::string_view json,
                                                     size_t max_bytes) {
  StringCollector collector(max_bytes);
  const bool parsed = nlohmann::json::sax_parse(
      json.begin(), json.end(), &collector,
      nlohmann::json::input_format_t::json, /*strict=*/true,
      /*ignore_comments=*/false);
  return collector.Result(parsed);
}

}  // namespace leakhound
