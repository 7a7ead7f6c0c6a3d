// The one file that calls poppler.
#include "cli/formats/pdf_extractor.h"

#include <poppler/cpp/poppler-document.h>
#include <poppler/cpp/poppler-embedded-file.h>
#include <poppler/cpp/poppler-global.h>
#include <poppler/cpp/poppler-page.h>

#include <climits>
#include <memory>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"

namespace leakhound {
namespace {

// Poppler prints parse errors on standard error; a scanner reports its own.
void Silence(const std::string&, void*) {}

void InitPoppler() {
  static std::once_flag once;
  std::call_once(once, [] { poppler::set_debug_error_function(Silence, nullptr); });
}

bool HasWord(std::string_view text) {
  for (char c : text) {
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t' && c != '\f') return true;
  }
  return false;
}

}  // namespace

absl::Status PdfExtractor::Extract(std::string_view bytes,
                                   ExtractionSink& sink) const {
  InitPoppler();
  if (bytes.size() > INT_MAX) {
    return absl::ResourceExhaustedError("PDF larger than 2 GB");
  }
  std::unique_ptr<poppler::document> doc(poppler::document::load_from_raw_data(
      bytes.data(), static_cast<int>(bytes.size())));
  if (doc == nullptr) {
    return absl::InvalidArgumentError(
        "malformed or truncated PDF (poppler cannot open it)");
  }
  if (doc->is_locked()) {
    return absl::InvalidArgumentError(
        "encrypted PDF (password required): no extractable text");
  }
  std::string text;
  const int pages = doc->pages();
  for (int i = 0; i < pages; ++i) {
    if (auto s = sink.CheckTime(); !s.ok()) return s;
    std::unique_ptr<poppler::page> page(doc->create_page(i));
    if (page == nullptr) continue;
    const poppler::byte_array utf8 =
        page->text(poppler::rectf(), poppler::page::non_raw_non_physical_layout)
            .to_utf8();
    if (auto s = AppendWithin(std::string_view(utf8.data(), utf8.size()),
                              sink.limits().max_output_bytes, &text);
        !s.ok()) {
      return s;
    }
    if (!text.empty() && text.back() != '\n') text += '\n';
  }
  const bool has_text = HasWord(text);
  if (has_text) {
    if (auto s = sink.AppendText(text); !s.ok()) return s;
  }
  bool has_members = false;
  if (doc->has_embedded_files()) {
    for (poppler::embedded_file* file : doc->embedded_files()) {
      if (file == nullptr || !file->is_valid()) continue;
      const poppler::byte_array data = file->data();
      has_members = true;
      std::string name = file->name();
      if (name.empty()) name = "embedded";
      if (auto s = sink.AddMember(name, std::string(data.data(), data.size()));
          !s.ok()) {
        return s;
      }
    }
  }
  if (!has_text && !has_members) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no extractable text in ", pages,
        pages == 1 ? " page" : " pages",
        " (scanned images or an empty PDF; leakhound does not OCR)"));
  }
  return absl::OkStatus();
}

}  // namespace leakhound
