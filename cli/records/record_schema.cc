#include "cli/records/record_schema.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "cli/records/phone_numbers.h"

// toml++ is built with exceptions (Debian's libtomlplusplus3): its parse
// errors are caught here and nowhere else in this library.
#include <toml++/toml.h>

namespace leakhound {
namespace {

constexpr std::pair<CellType, std::string_view> kTypeNames[] = {
    {CellType::kEmail, "email"},
    {CellType::kPhone, "phone"},
    {CellType::kCard, "card"},
    {CellType::kIban, "iban"},
    {CellType::kNationalId, "national_id"},
    {CellType::kDate, "date"},
    {CellType::kName, "name"},
    {CellType::kText, "text"},
};

class SchemaReader {
 public:
  explicit SchemaReader(const std::string& path) : path_(path) {}
  const absl::Status& status() const { return status_; }

  void Fail(const toml::source_region& at, const std::string& message) {
    if (!status_.ok()) return;
    status_ = absl::InvalidArgumentError(absl::StrCat(
        path_, ":", static_cast<uint32_t>(at.begin.line), ": ", message));
  }

  void OnlyKeys(const toml::table& t,
                std::initializer_list<std::string_view> known,
                const std::string& where) {
    for (const auto& [key, node] : t) {
      if (std::find(known.begin(), known.end(), key.str()) == known.end()) {
        Fail(key.source(), absl::StrCat("unknown key '", std::string(key.str()),
                                        "' in ", where));
      }
    }
  }

  std::optional<std::string> String(const toml::table& t, const char* key) {
    const toml::node* n = t.get(key);
    if (n == nullptr) return std::nullopt;
    if (!n->is_string()) {
      Fail(n->source(), absl::StrCat("'", key, "' must be a string"));
      return std::nullopt;
    }
    return std::string(*n->value<std::string>());
  }

  std::optional<bool> Bool(const toml::table& t, const char* key) {
    const toml::node* n = t.get(key);
    if (n == nullptr) return std::nullopt;
    if (!n->is_boolean()) {
      Fail(n->source(), absl::StrCat("'", key, "' must be true or false"));
      return std::nullopt;
    }
    return *n->value<bool>();
  }

  std::optional<uint32_t> Count(const toml::table& t, const char* key,
                                int64_t low, int64_t high) {
    const toml::node* n = t.get(key);
    if (n == nullptr) return std::nullopt;
    const std::optional<int64_t> v = n->value<int64_t>();
    if (!n->is_integer() || !v || *v < low || *v > high) {
      Fail(n->source(), absl::StrCat("'", key, "' must be a whole number from ",
                                     low, " to ", high));
      return std::nullopt;
    }
    return static_cast<uint32_t>(*v);
  }

  void Column(const toml::table& t, RecordSchema& schema) {
    OnlyKeys(t, {"name", "type", "primary", "pattern", "region"},
             "[[column]]");
    SchemaColumn column;
    const auto name = String(t, "name");
    const auto type = String(t, "type");
    if (!name || name->empty()) {
      Fail(t.source(), "a [[column]] needs a name");
      return;
    }
    column.name = *name;
    const std::optional<CellType> typed =
        type ? CellTypeNamed(*type) : std::nullopt;
    if (!typed) {
      Fail(t.source(), absl::StrCat("column ", *name,
                                    " needs a type: email, "
                                    "phone, card, iban, national_id, date, "
                                    "name or text"));
      return;
    }
    column.type = *typed;
    column.primary = Bool(t, "primary").value_or(false);
    column.pattern = String(t, "pattern").value_or("");
    if (column.primary && !CanBePrimary(column.type)) {
      Fail(t.source(), absl::StrCat("column ", *name, " is of type ", *type,
                                    ", which cannot be primary (email, phone,"
                                    " card, iban, national_id can)"));
    }
    if (column.type == CellType::kNationalId && column.pattern.empty()) {
      Fail(t.source(), absl::StrCat("column ", *name,
                                    " (national_id) needs "
                                    "a pattern"));
    }
    if (column.type != CellType::kNationalId && !column.pattern.empty()) {
      Fail(t.source(), absl::StrCat("column ", *name,
                                    ": only a national_id "
                                    "column takes a pattern"));
    }
    if (const auto region = String(t, "region")) {
      if (column.type != CellType::kPhone) {
        Fail(t.source(), absl::StrCat("column ", *name,
                                      ": only a phone column takes a region"));
      }
      column.region = Region(t, *region);
    }
    for (const SchemaColumn& other : schema.columns) {
      if (absl::AsciiStrToLower(other.name) == absl::AsciiStrToLower(*name)) {
        Fail(t.source(), absl::StrCat("column ", *name, " is named twice"));
      }
    }
    schema.columns.push_back(std::move(column));
  }

  void Top(const toml::table& root, RecordSchema& schema) {
    OnlyKeys(
        root,
        {"table", "min_matches", "proximity", "date_order", "header", "region",
         "column"},
        "the schema");
    if (const auto region = String(root, "region")) {
      schema.region = Region(root, *region);
    }
    schema.table = String(root, "table").value_or("");
    schema.min_matches = Count(root, "min_matches", 0, 254).value_or(2);
    schema.proximity = Count(root, "proximity", 1, 10000).value_or(50);
    schema.header = Bool(root, "header").value_or(true);
    if (auto order = String(root, "date_order")) {
      if (*order == "dmy") {
        schema.date_order = DateOrder::kDayMonthYear;
      } else if (*order == "mdy") {
        schema.date_order = DateOrder::kMonthDayYear;
      } else if (*order == "ymd") {
        schema.date_order = DateOrder::kYearMonthDay;
      } else {
        Fail(root.get("date_order")->source(),
             "'date_order' must be dmy, mdy or ymd");
      }
    }
    const toml::node* columns = root.get("column");
    const toml::array* list = columns ? columns->as_array() : nullptr;
    if (list == nullptr || !list->is_array_of_tables()) {
      Fail(root.source(), "the schema needs its columns as [[column]] tables");
      return;
    }
    for (const toml::node& n : *list) Column(*n.as_table(), schema);
    for (SchemaColumn& c : schema.columns) {
      if (c.type == CellType::kPhone && c.region.empty()) c.region = schema.region;
    }
  }

  // A region's code in upper case, if libphonenumber knows it.
  std::string Region(const toml::table& t, const std::string& code) {
    const auto region = PhoneRegionNamed(code);
    if (!region) {
      Fail(t.get("region")->source(),
           absl::StrCat("'region' must be a country's two-letter code (DE, "
                        "FR, US, ...), not '", code, "'"));
      return "";
    }
    return region->region;
  }

 private:
  const std::string& path_;
  absl::Status status_;
};

}  // namespace

std::optional<CellType> CellTypeNamed(std::string_view name) {
  for (const auto& [type, n] : kTypeNames) {
    if (n == name) return type;
  }
  return std::nullopt;
}

std::string_view CellTypeName(CellType type) {
  for (const auto& [t, n] : kTypeNames) {
    if (t == type) return n;
  }
  return "unknown";
}

bool CanBePrimary(CellType type) {
  return type == CellType::kEmail || type == CellType::kPhone ||
         type == CellType::kCard || type == CellType::kIban ||
         type == CellType::kNationalId;
}

absl::StatusOr<RecordSchema> ParseRecordSchema(std::string_view text,
                                               const std::string& path) {
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ":", static_cast<uint32_t>(e.source().begin.line),
                     ": ", std::string(e.description())));
  }
  RecordSchema schema;
  SchemaReader reader(path);
  reader.Top(root, schema);
  if (!reader.status().ok()) return reader.status();
  if (schema.columns.size() > 64) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": a table has at most 64 columns"));
  }
  if (std::none_of(schema.columns.begin(), schema.columns.end(),
                   [](const SchemaColumn& c) { return c.primary; })) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": no column is primary (mark one with primary = true)"));
  }
  if (schema.min_matches >= schema.columns.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": min_matches is ", schema.min_matches,
                     " but the table has "
                     "only ",
                     schema.columns.size() - 1, " other columns"));
  }
  return schema;
}

}  // namespace leakhound
