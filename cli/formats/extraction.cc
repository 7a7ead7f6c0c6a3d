#include "cli/formats/extraction.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/cord.h"
#include "cli/formats/archive_extractor.h"
#include "cli/formats/epub_extractor.h"
#include "cli/formats/file_type.h"
#include "cli/formats/html_extractor.h"
#include "cli/formats/image_extractor.h"
#include "cli/formats/legacy_office_extractor.h"
#include "cli/formats/mime_extractor.h"
#include "cli/formats/office_extractor.h"
#include "cli/formats/opendocument_extractor.h"
#include "cli/formats/pdf_extractor.h"
#include "cli/formats/plain_text_extractor.h"
#include "cli/formats/rtf_extractor.h"
#include "cli/formats/tnef_extractor.h"

namespace leakhound {
namespace {

using Clock = std::chrono::steady_clock;

// What one extraction has used so far, shared by the sinks of its parts.
struct Budget {
  const ExtractionLimits& limits;
  Clock::time_point deadline;
  size_t expanded = 0;  // bytes decompressed, all levels
  size_t output = 0;    // bytes of text, all parts
  Extraction* result;
};


class PartSink : public ExtractionSink {
 public:
  PartSink(Budget* budget, size_t part, uint32_t depth)
      : budget_(budget), part_(part), depth_(depth) {}

  absl::Status AppendText(std::string_view utf8) override {
    budget_->output += utf8.size();
    if (budget_->output > budget_->limits.max_output_bytes) {
      return TextLimitError(budget_->limits.max_output_bytes);
    }
    budget_->result->parts[part_].text.append(utf8);
    return absl::OkStatus();
  }

  absl::Status AppendLayoutText(std::string_view utf8) override {
    budget_->output += utf8.size();
    if (budget_->output > budget_->limits.max_output_bytes) {
      return TextLimitError(budget_->limits.max_output_bytes);
    }
    budget_->result->parts[part_].layout_text.append(utf8);
    return absl::OkStatus();
  }

  void NoteLabels(const std::vector<SensitivityLabel>& labels) override {
    MergeLabels(labels, &budget_->result->parts[part_].labels);
  }

  void NoteDecoding(std::string_view, size_t invalid_sequences) override {
    budget_->result->invalid_sequences += invalid_sequences;
  }

  absl::Status AddMember(std::string_view name, std::string bytes) override;

  void NoteSkipped(std::string_view name, Unreadable kind,
                   std::string_view reason) override {
    budget_->result->skipped.push_back(SkippedPart{
        JoinPart(this->name(), name), std::string(reason), kind});
  }

  absl::StatusOr<std::unique_ptr<ExtractionSink>> OpenMember(
      std::string_view name, std::string_view format) override {
    auto child = OpenChild(name, format);
    if (!child.ok()) return child.status();
    return std::unique_ptr<ExtractionSink>(std::move(*child));
  }

  absl::Status ChargeExpansion(size_t bytes) override {
    budget_->expanded += bytes;
    const double allowed = budget_->limits.max_expansion_ratio *
                           static_cast<double>(budget_->result->input_bytes);
    if (budget_->expanded > kExpansionFloorBytes &&
        static_cast<double>(budget_->expanded) > allowed) {
      return absl::ResourceExhaustedError(absl::StrFormat(
          "decompresses to more than %g times its size (--max-ratio): a "
          "decompression bomb?",
          budget_->limits.max_expansion_ratio));
    }
    return CheckTime();
  }

  absl::Status CheckTime() override {
    if (Clock::now() > budget_->deadline) {
      return absl::DeadlineExceededError(absl::StrFormat(
          "extraction took longer than the limit of %g s (--max-seconds)",
          budget_->limits.max_seconds));
    }
    return absl::OkStatus();
  }

  double SecondsLeft() const override {
    const auto left = budget_->deadline - Clock::now();
    return std::max(0.0, std::chrono::duration<double>(left).count());
  }

  const ExtractionLimits& limits() const override { return budget_->limits; }

  const std::string& name() const { return budget_->result->parts[part_].name; }
  void SetFormat(std::string_view format) {
    budget_->result->parts[part_].format = std::string(format);
  }
  void SetLabellable(bool labellable) {
    budget_->result->parts[part_].labellable = labellable;
  }

 private:
  absl::StatusOr<std::unique_ptr<PartSink>> OpenChild(std::string_view name,
                                                      std::string_view format) {
    Extraction& r = *budget_->result;
    if (++r.members > budget_->limits.max_members) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "more than ", budget_->limits.max_members,
          " members (--max-members)"));
    }
    if (depth_ + 1 > budget_->limits.max_depth) {
      return absl::ResourceExhaustedError(absl::StrCat(
          JoinPart(this->name(), name), ": nested deeper than ",
          budget_->limits.max_depth, " levels (--max-depth)"));
    }
    r.parts.push_back(ExtractedPart{JoinPart(this->name(), name),
                                    std::string(format), "", ""});
    return std::make_unique<PartSink>(budget_, r.parts.size() - 1, depth_ + 1);
  }

  Budget* budget_;
  size_t part_;
  uint32_t depth_;
};

std::string_view FormatOfExtension(std::string_view name,
                                   std::string_view fallback) {
  const size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || name.size() - dot > 6) return fallback;
  return name.substr(dot + 1);
}

// Why a file of this type has no text leakhound reads, or OK if it has.
absl::Status UnreadableStatus(const FileType& type) {
  switch (type.kind) {
    case FileKind::kNoText:
      return UnreadableError(
          Unreadable::kNoText,
          absl::StrCat(type.description, ": no text to extract"));
    case FileKind::kUnknownBinary:
      return UnreadableError(Unreadable::kUnsupported,
                             absl::StrCat("binary data (", type.description,
                                          "): unsupported format"));
    default:
      return absl::OkStatus();
  }
}

// Extracts `bytes`, named `name`, into `sink`: as `forced` if given, else
// as its content says.
absl::Status Dispatch(std::string_view name, std::string_view bytes,
                      PartSink& sink,
                      std::optional<FileKind> forced = std::nullopt) {
  static const PlainTextExtractor kPlain;
  static const HtmlExtractor kHtml;
  static const PdfExtractor kPdf;
  static const OfficeExtractor kOffice;
  static const OpenDocumentExtractor kOpenDocument;
  static const ArchiveExtractor kArchive;
  static const MimeExtractor kMail(MimeExtractor::kMessage);
  static const MimeExtractor kMbox(MimeExtractor::kMailbox);
  static const RtfExtractor kRtf;
  static const LegacyOfficeExtractor kLegacyOffice;
  static const TnefExtractor kTnef;
  static const EpubExtractor kEpub;
  static const ImageExtractor kImage;
  FileType type;
  if (forced) {
    type.kind = *forced;
  } else {
    type = DetectFileType(name, bytes);
  }
  std::string zip_format = "zip";
  if (!forced && (type.kind == FileKind::kZip ||
                  type.kind == FileKind::kOfficeOpenXml ||
                  type.kind == FileKind::kOpenDocument ||
                  type.kind == FileKind::kEpub)) {
    // The entries decide: libmagic names OOXML only when its parts come in
    // the usual order.
    ZipContent content = ZipContentKind(bytes);
    type.kind = content.kind;
    zip_format = std::move(content.format);
  }
  const TextExtractor* extractor = nullptr;
  std::string_view format;
  switch (type.kind) {
    case FileKind::kText: extractor = &kPlain; format = "text"; break;
    case FileKind::kMarkdown: extractor = &kPlain; format = "markdown"; break;
    case FileKind::kHtml: extractor = &kHtml; format = "html"; break;
    case FileKind::kPdf: extractor = &kPdf; format = "pdf"; break;
    case FileKind::kOfficeOpenXml:
      extractor = &kOffice;
      format = zip_format;
      break;
    case FileKind::kOpenDocument:
      extractor = &kOpenDocument;
      format = zip_format;
      break;
    case FileKind::kZip:
      extractor = &kArchive;
      format = zip_format;
      break;
    case FileKind::kArchive:
      extractor = &kArchive;
      format = FormatOfExtension(name, "archive");
      break;
    case FileKind::kMail: extractor = &kMail; format = "mail"; break;
    case FileKind::kMbox: extractor = &kMbox; format = "mbox"; break;
    case FileKind::kRtf: extractor = &kRtf; format = "rtf"; break;
    case FileKind::kLegacyOffice:
      extractor = &kLegacyOffice;
      format = FormatOfExtension(name, "ole2");
      break;
    case FileKind::kTnef: extractor = &kTnef; format = "tnef"; break;
    case FileKind::kEpub: extractor = &kEpub; format = "epub"; break;
    case FileKind::kImage:
      extractor = &kImage;
      format = FormatOfExtension(name, "image");
      break;
    default:
      return UnreadableStatus(type);
  }
  sink.SetFormat(format);
  sink.SetLabellable(type.kind == FileKind::kPdf ||
                     type.kind == FileKind::kOfficeOpenXml ||
                     type.kind == FileKind::kOpenDocument ||
                     (type.kind == FileKind::kLegacyOffice && format != "msg"));
  return extractor->Extract(bytes, sink);
}

absl::Status PartSink::AddMember(std::string_view name, std::string bytes) {
  if (auto s = CheckTime(); !s.ok()) return s;
  if (bytes.size() > budget_->limits.max_input_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        JoinPart(this->name(), name), ": member larger than the limit of ",
        budget_->limits.max_input_bytes, " bytes (--max-file-size)"));
  }
  auto child = OpenChild(name, "");
  if (!child.ok()) return child.status();
  const std::string full = (*child)->name();
  if (bytes.empty()) return absl::OkStatus();
  return SkipOrFail(Dispatch(name, bytes, **child), full,
                    budget_->result->skipped);
}

// Extracts a whole file, read as `forced` if given.
// Runs `run` with the root sink of `result`, a file of result.input_bytes,
// under one budget of `limits`.
absl::Status RunWithin(Extraction& result, const ExtractionLimits& limits,
                       const std::function<absl::Status(PartSink&)>& run) {
  if (result.input_bytes > limits.max_input_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("larger than the limit of ", limits.max_input_bytes,
                     " bytes (--max-file-size)"));
  }
  const auto timeout = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(limits.max_seconds));
  Budget budget{limits, Clock::now() + timeout, 0, 0, &result};
  result.parts.push_back(ExtractedPart{"", "", "", ""});
  PartSink root(&budget, 0, 0);
  return run(root);
}

absl::StatusOr<Extraction> Extract(std::optional<FileKind> forced,
                                   std::string_view name, std::string bytes,
                                   const ExtractionLimits& limits) {
  Extraction result;
  result.input_bytes = bytes.size();
  if (auto s = RunWithin(result, limits,
                         [&](PartSink& root) {
                           return Dispatch(name, bytes, root, forced);
                         });
      !s.ok()) {
    return s;
  }
  result.format = result.parts.front().format;
  std::erase_if(result.parts, [](const ExtractedPart& p) {
    return p.text.empty() && p.labels.empty();
  });
  return result;
}

}  // namespace

std::string JoinPart(std::string_view parent, std::string_view member) {
  if (parent.empty()) return std::string(member);
  std::string out(parent);
  out += kPartSeparator;
  out += member;
  return out;
}

absl::Status SkipOrFail(const absl::Status& s, std::string_view member,
                        std::vector<SkippedPart>& skipped) {
  if (s.code() == absl::StatusCode::kUnimplemented) {
    // A member leakhound cannot read is listed, not fatal (extraction.h).
    skipped.push_back(
        SkippedPart{std::string(member), std::string(s.message()),
                    UnreadableOf(s).value_or(Unreadable::kUnsupported)});
    return absl::OkStatus();
  }
  return Prefixed(s, member);
}

absl::Status Prefixed(const absl::Status& s, std::string_view part) {
  const std::string_view message(s.message().data(), s.message().size());
  if (s.ok() || message.starts_with(part)) return s;
  absl::Status out(s.code(), std::string(part) + ": " + std::string(message));
  s.ForEachPayload([&out](absl::string_view url, const absl::Cord& payload) {
    out.SetPayload(url, payload);
  });
  return out;
}

absl::Status TextLimitError(size_t max_bytes) {
  return absl::ResourceExhaustedError(
      absl::StrCat("extracted text larger than the limit of ", max_bytes,
                   " bytes (--max-text-size)"));
}

absl::Status AppendWithin(std::string_view text, size_t max_bytes,
                          std::string* out) {
  if (out->size() + text.size() > max_bytes) return TextLimitError(max_bytes);
  out->append(text);
  return absl::OkStatus();
}

absl::Status AppendLinkTargets(const std::vector<std::string>& targets,
                               size_t max_bytes, std::string* out) {
  if (targets.empty()) return absl::OkStatus();
  if (!out->empty() && out->back() != '\n') *out += '\n';
  *out += '\n';
  for (const std::string& target : targets) {
    if (auto s = AppendWithin(target, max_bytes, out); !s.ok()) return s;
    *out += '\n';
  }
  return absl::OkStatus();
}

std::string Extraction::JoinedText() const {
  std::string out;
  for (const ExtractedPart& p : parts) {
    if (!out.empty()) out += "\n\n";
    out += p.text;
  }
  return out;
}

absl::StatusOr<Extraction> ExtractBytes(std::string_view name,
                                        std::string bytes,
                                        const ExtractionLimits& limits) {
  return Extract(std::nullopt, name, std::move(bytes), limits);
}

absl::Status ReadWithinLimits(
    size_t input_bytes, const ExtractionLimits& limits,
    const std::function<absl::Status(ExtractionSink&)>& read) {
  Extraction result;
  result.input_bytes = input_bytes;
  return RunWithin(result, limits, [&](PartSink& root) { return read(root); });
}

absl::StatusOr<Extraction> ExtractBytesAs(FileKind kind, std::string_view name,
                                          std::string bytes,
                                          const ExtractionLimits& limits) {
  return Extract(kind, name, std::move(bytes), limits);
}

}  // namespace leakhound
