// libFuzzer target: the candidate and identifier scanner (Hyperscan, the
// validators, the normalizer) and the record matcher, over a real index
// holding a small protected table (made once, in a temporary directory).
// The first byte picks whether a user identifier with keywords is added.
// Checks: no crash; every span lies in the text; a record has its primary
// and at least min_matches more cells; distinct values never outnumber
// matches.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/records/data_scanner.h"
#include "cli/records/record_schema.h"
#include "cli/records/table_loader.h"
#include "engine/protected_index.h"

namespace {

constexpr char kSchema[] = R"(table = "customers"
[[column]]
name = "card"
type = "card"
primary = true
[[column]]
name = "email"
type = "email"
primary = true
[[column]]
name = "phone"
type = "phone"
primary = true
[[column]]
name = "iban"
type = "iban"
primary = true
[[column]]
name = "id"
type = "national_id"
pattern = "[A-Z]{2}\\d{6}"
primary = true
[[column]]
name = "name"
type = "name"
[[column]]
name = "born"
type = "date"
)";

constexpr char kTable[] =
    "card,email,phone,iban,id,name,born\n"
    "4111111111111111,john@example.com,+49 30 1234567,"
    "DE89370400440532013000,AB123456,John Smith,1985-03-02\n"
    "5500005555555559,maria@example.org,+1 415 555 0134,"
    "GB82WEST12345698765432,CD654321,Maria Garcia,24.12.1970\n";

struct State {
  std::unique_ptr<leakhound::ProtectedIndex> index;
  std::unique_ptr<leakhound::DataScanner> plain, keyed;
  std::unique_ptr<leakhound::DataScanner::Session> plain_session, keyed_session;
};

State* Make() {
  std::string dir =
      (std::filesystem::temp_directory_path() / "leakhound-fuzz-records-XXXXXX")
          .string();
  if (::mkdtemp(dir.data()) == nullptr) std::abort();
  std::ofstream(dir + "/t.csv") << kTable;
  auto* s = new State();
  s->index = *leakhound::ProtectedIndex::Create(dir + "/idx",
                                                leakhound::IndexOptions());
  leakhound::TableLoadOptions options;
  options.name = "customers";
  options.path = dir + "/t.csv";
  if (!leakhound::LoadTable(
           *s->index, *leakhound::ParseRecordSchema(kSchema, "s"), options)
           .ok()) {
    std::abort();
  }
  std::vector<leakhound::IdentifierSpec> keyed =
      leakhound::BuiltInIdentifiers();
  keyed.push_back({"iban_account",
                   "",
                   false,
                   leakhound::Validator::kIban,
                   {"account", "Konto"},
                   5});
  keyed.push_back({"employee",
                   R"(\bEMP-\d{4,8}\b)",
                   true,
                   leakhound::Validator::kNone,
                   {},
                   20});
  auto make = [&](std::vector<leakhound::IdentifierSpec> ids) {
    return *leakhound::DataScanner::Create(
        std::move(ids), s->index->record_tables(), &s->index->store(),
        s->index->store().key());
  };
  s->plain = make(leakhound::BuiltInIdentifiers());
  s->keyed = make(keyed);
  s->plain_session = *s->plain->NewSession();
  s->keyed_session = *s->keyed->NewSession();
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static State* state = Make();
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1),
                              size - 1);
  const bool keyed = data[0] & 1;
  auto found =
      (keyed ? state->keyed : state->plain)
          ->Scan(text, keyed ? *state->keyed_session : *state->plain_session);
  if (!found.ok()) __builtin_trap();
  for (const leakhound::RecordMatch& r : found->records) {
    if (r.columns.size() < 3 || r.columns.size() != r.spans.size()) {
      __builtin_trap();
    }
    for (const auto& [begin, end] : r.spans) {
      if (begin > end || end > text.size()) __builtin_trap();
    }
  }
  for (const leakhound::IdentifierCount& c : found->identifiers) {
    if (c.distinct > c.matches || c.matches == 0) __builtin_trap();
    for (const auto& [begin, end] : c.examples) {
      if (begin > end || end > text.size()) __builtin_trap();
    }
  }
  return 0;
}
