#include "cli/formats/sheet_rows.h"

#include <chrono>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/formats/workbook_xml.h"
#include "cli/formats/zip_package.h"

namespace leakhound {
namespace {

// What reading the package's members needs of a sink: limits, the clock
// and the expansion budget. Nothing is extracted as text through it.
class PackageSink : public ExtractionSink {
 public:
  PackageSink(const ExtractionLimits& limits, size_t input_bytes)
      : limits_(limits),
        input_bytes_(input_bytes),
        deadline_(std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(limits.max_seconds))) {}
  absl::Status AppendText(std::string_view) override { return absl::OkStatus(); }
  absl::Status AppendLayoutText(std::string_view) override {
    return absl::OkStatus();
  }
  void NoteDecoding(std::string_view, size_t) override {}
  absl::Status AddMember(std::string_view, std::string) override {
    return absl::OkStatus();
  }
  void NoteSkipped(std::string_view, Unreadable, std::string_view) override {}
  absl::StatusOr<std::unique_ptr<ExtractionSink>> OpenMember(
      std::string_view name, std::string_view) override {
    return absl::InvalidArgumentError(
        absl::StrCat("unexpected member ", std::string(name)));
  }
  absl::Status ChargeExpansion(size_t bytes) override {
    expanded_ += bytes;
    if (expanded_ > kExpansionFloorBytes &&
        static_cast<double>(expanded_) >
            limits_.max_expansion_ratio * static_cast<double>(input_bytes_)) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the workbook unpacks to more than ", limits_.max_expansion_ratio,
          " times its size (--max-ratio)"));
    }
    return absl::OkStatus();
  }
  absl::Status CheckTime() override {
    if (std::chrono::steady_clock::now() > deadline_) {
      return absl::DeadlineExceededError("reading the workbook took too long");
    }
    return absl::OkStatus();
  }
  double SecondsLeft() const override {
    return std::max(0.0, std::chrono::duration<double>(
                             deadline_ - std::chrono::steady_clock::now())
                             .count());
  }
  const ExtractionLimits& limits() const override { return limits_; }

 private:
  const ExtractionLimits& limits_;
  const size_t input_bytes_;
  const std::chrono::steady_clock::time_point deadline_;
  size_t expanded_ = 0;
};

bool Wanted(std::string_view name) {
  return name.starts_with("xl/") && name.ends_with(".xml");
}

}  // namespace

bool LooksLikeZip(std::string_view bytes) {
  return bytes.starts_with(std::string_view("PK\x03\x04", 4));
}

absl::Status ReadSheetRows(
    std::string_view bytes, const ExtractionLimits& limits,
    const std::function<absl::Status(uint64_t row,
                                     std::span<const std::string> fields)>&
        on_row) {
  PackageSink sink(limits, bytes.size());
  auto package = ReadZipPackage(bytes, sink, Wanted);
  if (!package.ok()) return package.status();
  const std::vector<std::string> sheets =
      package->Matching("xl/worksheets/sheet", ".xml");
  if (sheets.empty()) {
    return absl::InvalidArgumentError(
        "not an Excel workbook (.xlsx): no worksheet");
  }
  auto parts = ReadWorkbookParts(*package, limits.max_output_bytes);
  if (!parts.ok()) return parts.status();
  std::vector<std::string> fields;
  uint64_t row = 0;
  const auto on_cell = [&](uint32_t column, std::string_view value) {
    if (column >= 1024) {
      return absl::InvalidArgumentError(absl::StrCat(
          "row ", row + 1, ": a cell beyond column 1024"));
    }
    if (fields.size() <= column) fields.resize(column + 1);
    fields[column] = std::string(value);
    return absl::OkStatus();
  };
  const std::function<absl::Status()> on_row_end = [&] {
    ++row;
    absl::Status s = fields.empty() ? absl::OkStatus() : on_row(row, fields);
    fields.clear();
    return s;
  };
  return ReadSheetCells(package->Get(sheets.front()), *parts, on_cell,
                        on_row_end);
}

}  // namespace leakhound
