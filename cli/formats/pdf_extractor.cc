// The one file that calls poppler.
#include "cli/formats/pdf_extractor.h"

#include <poppler/cpp/poppler-document.h>
#include <poppler/cpp/poppler-embedded-file.h>
#include <poppler/cpp/poppler-global.h>
#include <poppler/cpp/poppler-image.h>
#include <poppler/cpp/poppler-page-renderer.h>
#include <poppler/cpp/poppler-page.h>
#include <poppler/cpp/poppler-version.h>

#include <climits>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "cli/formats/ocr_engine.h"

namespace leakhound {
namespace {

// Poppler prints parse errors on standard error; a scanner reports its own.
void Silence(const std::string&, void*) {}

void InitPoppler() {
  static std::once_flag once;
  std::call_once(once,
                 [] { poppler::set_debug_error_function(Silence, nullptr); });
}

bool HasWord(std::string_view text) {
  for (char c : text) {
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t' && c != '\f')
      return true;
  }
  return false;
}

// The text OCR reads on `page` (page number `number`, from 1), rendered
// in gray at the configured resolution, lowered to fit max_pixels. A
// blank page is "" (nothing to read); a page with marks but no legible
// text is the Unreadable error kNoText, one whose rendering would not fit
// even at 50 dpi or whose recognition ran out of time kLimit.
absl::StatusOr<std::string> RecognizePage(const poppler::page& page,
                                          int number,
                                          const OcrSettings& settings) {
  const std::string what = absl::StrCat("page ", number);
  const poppler::rectf box = page.page_rect();
  const double square_inches = (box.width() / 72.0) * (box.height() / 72.0);
  double dpi = settings.pdf_dpi;
  if (square_inches * dpi * dpi > static_cast<double>(settings.max_pixels)) {
    dpi = std::floor(
        std::sqrt(static_cast<double>(settings.max_pixels) / square_inches));
  }
  if (!(dpi >= 50)) {
    return UnreadableError(
        Unreadable::kLimit,
        absl::StrCat(what, ": too large to render for OCR (--ocr-max-pixels)"));
  }
  poppler::page_renderer renderer;
  renderer.set_image_format(poppler::image::format_gray8);
  renderer.set_render_hint(poppler::page_renderer::antialiasing, true);
  renderer.set_render_hint(poppler::page_renderer::text_antialiasing, true);
  const poppler::image image = renderer.render_page(&page, dpi, dpi);
  if (!image.is_valid() || image.width() <= 0 || image.height() <= 0) {
    return UnreadableError(Unreadable::kNoText,
                           absl::StrCat(what, ": cannot be rendered for OCR"));
  }
  const auto* pixels = reinterpret_cast<const uint8_t*>(image.const_data());
  const int stride = image.bytes_per_row();
  bool marked = false;
  for (int y = 0; y < image.height() && !marked; ++y) {
    for (int x = 0; x < image.width(); ++x) {
      if (pixels[size_t(y) * size_t(stride) + size_t(x)] < 200) {
        marked = true;
        break;
      }
    }
  }
  if (!marked) return std::string();
  return RecognizeGrayPixels(pixels, image.width(), image.height(), stride,
                             static_cast<int>(dpi), what, settings);
}

// The pages PDF text extraction could not read, and whether for lack of
// time.
struct UnreadPages {
  int count = 0;
  bool out_of_time = false;
};

// The text of page `i` (0-based): its text layer, or OCR of the page when
// it has none. nullopt when the page is left unread, noted in `sink` and
// counted in *unread.
absl::StatusOr<std::optional<std::string>> PageText(poppler::page& page, int i,
                                                    ExtractionSink& sink,
                                                    UnreadPages* unread) {
  const poppler::byte_array utf8 =
      page.text(poppler::rectf(), poppler::page::non_raw_non_physical_layout)
          .to_utf8();
  std::string page_text(utf8.data(), utf8.size());
  if (HasWord(page_text)) return page_text;
  // A page without a text layer: a scan, or text drawn as images.
  const OcrSettings& ocr = sink.limits().ocr;
  const std::string name = absl::StrCat("page", i + 1);
  if (!ocr.enabled) {
    ++unread->count;
    sink.NoteSkipped(name, Unreadable::kNoText,
                     "page without a text layer: OCR is off (--ocr)");
    return std::nullopt;
  }
  // OCR leaves a tenth of the file's time to the pages after it (their
  // text layers are cheap), so a long scan lists the pages it had no time
  // for and the policy for unread parts decides, not a time-out.
  const double left = sink.SecondsLeft() - 0.1 * sink.limits().max_seconds;
  if (left < kOcrMinSeconds) {
    ++unread->count;
    unread->out_of_time = true;
    sink.NoteSkipped(name, Unreadable::kLimit,
                     "page without a text layer not read: the file's time "
                     "limit (--max-seconds) is reached");
    return std::nullopt;
  }
  auto recognized = RecognizePage(page, i + 1, ocr.Within(left));
  if (!recognized.ok()) {
    auto kind = UnreadableOf(recognized.status());
    if (!kind || *kind == Unreadable::kEncrypted) return recognized.status();
    ++unread->count;
    unread->out_of_time = unread->out_of_time || *kind == Unreadable::kLimit;
    sink.NoteSkipped(name, *kind, std::string(recognized.status().message()));
    return std::nullopt;
  }
  return std::move(*recognized);
}

// The files embedded in `doc`, as members; whether there was one.
absl::StatusOr<bool> AddEmbeddedFiles(poppler::document& doc,
                                      ExtractionSink& sink) {
  bool has_members = false;
  if (!doc.has_embedded_files()) return false;
  for (poppler::embedded_file* file : doc.embedded_files()) {
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
  return has_members;
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
    return UnreadableError(
        Unreadable::kEncrypted,
        "encrypted PDF (password required): no extractable text");
  }
  std::string text;
  const int pages = doc->pages();
  UnreadPages unread;
  for (int i = 0; i < pages; ++i) {
    if (auto s = sink.CheckTime(); !s.ok()) return s;
    std::unique_ptr<poppler::page> page(doc->create_page(i));
    if (page == nullptr) continue;
    auto page_text = PageText(*page, i, sink, &unread);
    if (!page_text.ok()) return page_text.status();
    if (!*page_text) continue;
    if (auto s =
            AppendWithin(**page_text, sink.limits().max_output_bytes, &text);
        !s.ok()) {
      return s;
    }
    if (!text.empty() && text.back() != '\n') text += '\n';
  }
  const bool has_text = HasWord(text);
  if (has_text) {
    if (auto s = sink.AppendText(text); !s.ok()) return s;
  }
  auto has_members = AddEmbeddedFiles(*doc, sink);
  if (!has_members.ok()) return has_members.status();
  if (!has_text && !*has_members) {
    return UnreadableError(
        unread.out_of_time ? Unreadable::kLimit : Unreadable::kNoText,
        absl::StrCat(
            "PDF document: no text in ", pages, pages == 1 ? " page" : " pages",
            unread.count == 0           ? " (blank)"
            : unread.out_of_time        ? " (OCR ran out of time)"
            : sink.limits().ocr.enabled ? " (OCR found none)"
                                        : " (scanned images; OCR is off)"));
  }
  return absl::OkStatus();
}

std::string PopplerVersion() { return poppler::version_string(); }

}  // namespace leakhound
