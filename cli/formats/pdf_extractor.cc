// The one file that calls poppler (its C++ interface for text and
// rendering, its GLib interface for the images a page draws).
#include "cli/formats/pdf_extractor.h"

#include <poppler.h>  // poppler-glib
#include <poppler/cpp/poppler-document.h>
#include <poppler/cpp/poppler-embedded-file.h>
#include <poppler/cpp/poppler-global.h>
#include <poppler/cpp/poppler-image.h>
#include <poppler/cpp/poppler-page-renderer.h>
#include <poppler/cpp/poppler-page.h>
#include <poppler/cpp/poppler-version.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "cli/formats/ocr_cache.h"
#include "cli/formats/ocr_engine.h"
#include "cli/formats/sensitivity_label.h"

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

// The document `bytes` holds (which it must outlive). ResourceExhausted
// past 2 GB; InvalidArgument for what poppler cannot open.
absl::StatusOr<std::unique_ptr<poppler::document>> OpenPdf(
    std::string_view bytes) {
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
  return doc;
}

// A page's text layer, in reading order or (`physical`) as laid out.
std::string TextLayer(poppler::page& page, bool physical = false) {
  const poppler::byte_array utf8 =
      page.text(poppler::rectf(),
                physical ? poppler::page::physical_layout
                         : poppler::page::non_raw_non_physical_layout)
          .to_utf8();
  return std::string(utf8.data(), utf8.size());
}

// The pages PDF text extraction could not read, and whether for lack of
// time.
struct UnreadPages {
  int count = 0;
  bool out_of_time = false;
};

// The resolution at which the images of a page were made: a lazily
// opened poppler-glib view of the document (poppler-cpp does not show a
// page's images), read only for pages without a text layer.
class ScanGeometry {
 public:
  explicit ScanGeometry(std::string_view bytes) : bytes_(bytes) {}
  ~ScanGeometry() {
    if (doc_ != nullptr) g_object_unref(doc_);
  }
  ScanGeometry(const ScanGeometry&) = delete;
  ScanGeometry& operator=(const ScanGeometry&) = delete;

  // The pixels per inch of the largest image drawn on page `index` (from
  // 0), when it covers at least half of the page (a scan); else nullopt.
  std::optional<double> PixelsPerInch(int index) {
    if (!Open()) return std::nullopt;
    PopplerPage* page = poppler_document_get_page(doc_, index);
    if (page == nullptr) return std::nullopt;
    double width = 0, height = 0;
    poppler_page_get_size(page, &width, &height);
    GList* mapping = poppler_page_get_image_mapping(page);
    const PopplerImageMapping* largest = nullptr;
    double largest_area = 0;
    for (GList* l = mapping; l != nullptr; l = l->next) {
      const auto* m = static_cast<const PopplerImageMapping*>(l->data);
      const double area =
          std::abs((m->area.x2 - m->area.x1) * (m->area.y2 - m->area.y1));
      if (area > largest_area) {
        largest_area = area;
        largest = m;
      }
    }
    std::optional<double> ppi;
    if (largest != nullptr && largest_area >= 0.5 * width * height) {
      cairo_surface_t* image = poppler_page_get_image(page, largest->image_id);
      if (image != nullptr) {
        const double drawn_w = std::abs(largest->area.x2 - largest->area.x1);
        const double drawn_h = std::abs(largest->area.y2 - largest->area.y1);
        const int px_w = cairo_image_surface_get_width(image);
        const int px_h = cairo_image_surface_get_height(image);
        if (drawn_w > 0 && drawn_h > 0 && px_w > 0 && px_h > 0) {
          ppi = std::min(px_w * 72.0 / drawn_w, px_h * 72.0 / drawn_h);
        }
        cairo_surface_destroy(image);
      }
    }
    poppler_page_free_image_mapping(mapping);
    g_object_unref(page);
    return ppi;
  }

 private:
  bool Open() {
    if (!opened_) {
      opened_ = true;
      GBytes* data = g_bytes_new_static(bytes_.data(), bytes_.size());
      doc_ = poppler_document_new_from_bytes(data, nullptr, nullptr);
      g_bytes_unref(data);  // the document keeps its own reference
    }
    return doc_ != nullptr;
  }

  std::string_view bytes_;
  bool opened_ = false;
  PopplerDocument* doc_ = nullptr;
};

// Below this resolution a scan is rendered at kMinScanDpi for OCR: the
// recognizer reads text of 10-12 points poorly under 100 pixels per inch.
constexpr int kMinScanDpi = 100;

// A page rendered in gray for OCR, at `dpi`.
struct PageImage {
  poppler::image image;
  int dpi = 0;
};

// Page `index` (from 0) rendered in gray for OCR: at the resolution of the
// scan it holds (`scan_ppi`, at least kMinScanDpi, at most --ocr-pdf-dpi)
// or, for a page that is not one image, at --ocr-pdf-dpi; lowered to fit
// --ocr-max-pixels. nullopt for a blank page (nothing to read); kLimit for
// a page that would not fit even at 50 dpi, kNoText for one that cannot be
// rendered.
absl::StatusOr<std::optional<PageImage>> RenderForOcr(
    poppler::document& doc, int index, std::optional<double> scan_ppi,
    const OcrSettings& settings) {
  const std::string what = absl::StrCat("page ", index + 1);
  std::unique_ptr<poppler::page> page(doc.create_page(index));
  if (page == nullptr) {
    return UnreadableError(Unreadable::kNoText,
                           absl::StrCat(what, ": cannot be rendered for OCR"));
  }
  const poppler::rectf box = page->page_rect();
  const double square_inches = (box.width() / 72.0) * (box.height() / 72.0);
  double dpi = settings.pdf_dpi;
  if (scan_ppi) {
    dpi = std::clamp(std::round(*scan_ppi), double{kMinScanDpi}, dpi);
  }
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
  PageImage out{renderer.render_page(page.get(), dpi, dpi),
                static_cast<int>(dpi)};
  const poppler::image& image = out.image;
  if (!image.is_valid() || image.width() <= 0 || image.height() <= 0) {
    return UnreadableError(Unreadable::kNoText,
                           absl::StrCat(what, ": cannot be rendered for OCR"));
  }
  const auto* pixels = reinterpret_cast<const uint8_t*>(image.const_data());
  const int stride = image.bytes_per_row();
  for (int y = 0; y < image.height(); ++y) {
    for (int x = 0; x < image.width(); ++x) {
      if (pixels[size_t(y) * size_t(stride) + size_t(x)] < 200) return out;
    }
  }
  return std::nullopt;
}

// What became of one page: its text (nullopt when left unread) or why it
// was skipped.
struct PageOutcome {
  std::optional<std::string> text;
  Unreadable skipped = Unreadable::kNoText;
  std::string reason;  // "" unless skipped
};

// The OCR of a document's pages without a text layer, shared by the
// threads reading them: each takes the next page, renders it under mu_
// (poppler's documents are not thread-safe) and recognizes it outside.
class ScannedPages {
 public:
  // REQUIRES: `doc`, `bytes`, `sink` and `out` outlive this; `pages` are
  // indices into `out`.
  ScannedPages(poppler::document& doc, std::string_view bytes,
               std::vector<int> pages, ExtractionSink& sink,
               std::vector<PageOutcome>& out)
      : doc_(doc),
        bytes_(bytes),
        geometry_(bytes),
        pages_(std::move(pages)),
        sink_(sink),
        out_(out) {}

  // Reads every page, on this thread and on the cores OCR may borrow.
  // Returns the first error that is not a page's (missing languages).
  absl::Status ReadAll() {
    if (pages_.empty()) return absl::OkStatus();
    if (sink_.limits().ocr.cache_bytes > 0) {
      file_digest_ = OcrCacheKey().Add(bytes_).Finish();
    }
    OcrCoreLease lease(static_cast<int>(pages_.size()) - 1);
    workers_ = 1 + lease.extra();
    std::vector<std::thread> helpers;
    for (int i = 0; i < lease.extra(); ++i) {
      helpers.emplace_back([this] { Work(); });
    }
    Work();
    for (std::thread& t : helpers) t.join();
    absl::MutexLock lock(&mu_);
    return fatal_;
  }

 private:
  PageOutcome& At(int index) { return out_[static_cast<size_t>(index)]; }

  void Skip(int index, Unreadable kind, std::string reason) {
    At(index).skipped = kind;
    At(index).reason = std::move(reason);
  }

  // What decides page `index`'s reading before it is rendered: the file,
  // the page, and the settings its rendering and recognition depend on.
  std::string PageKey(int index) const {
    const OcrSettings& ocr = sink_.limits().ocr;
    return OcrCacheKey()
        .Add("pdf-page")
        .Add(file_digest_)
        .Add(uint64_t(index))
        .Add(uint64_t(ocr.pdf_dpi))
        .Add(ocr.max_pixels)
        .Add(ocr.languages)
        .Finish();
  }

  // Page `index` rendered and read within `budget` seconds.
  absl::StatusOr<std::string> Read(int index, double budget) {
    const OcrSettings& ocr = sink_.limits().ocr;
    const std::string what = absl::StrCat("page ", index + 1);
    const std::string key = file_digest_.empty() ? "" : PageKey(index);
    if (!key.empty()) {
      if (auto kept = RecalledReading(key, what, ocr)) return *std::move(kept);
    }
    absl::StatusOr<std::optional<PageImage>> image;
    {
      absl::MutexLock lock(&mu_);
      image = RenderForOcr(doc_, index, geometry_.PixelsPerInch(index), ocr);
    }
    absl::StatusOr<std::string> text = std::string();  // a blank page
    if (!image.ok()) {
      text = image.status();
    } else if (*image) {
      const poppler::image& pixels = (*image)->image;
      text = RecognizeGrayPixels(
          reinterpret_cast<const uint8_t*>(pixels.const_data()), pixels.width(),
          pixels.height(), pixels.bytes_per_row(), (*image)->dpi, what,
          ocr.Within(budget));
    }
    if (!key.empty()) RememberReading(key, text, ocr);
    return text;
  }

  void Work() {
    const ExtractionLimits& limits = sink_.limits();
    for (size_t k = next_++; k < pages_.size(); k = next_++) {
      const int index = pages_[k];
      // OCR leaves a tenth of the file's time to what follows (text
      // layers, embedded files), and gives no page more than twice its
      // share of what is left, so that one page cannot starve the rest.
      const double left = sink_.SecondsLeft() - 0.1 * limits.max_seconds;
      if (left < kOcrMinSeconds) {
        Skip(index, Unreadable::kLimit,
             "page without a text layer not read: the file's time "
             "limit (--max-seconds) is reached");
        continue;
      }
      const double share =
          left * workers_ / static_cast<double>(pages_.size() - k);
      const double budget = std::min(left, std::max(2 * share, 2.0));
      absl::StatusOr<std::string> text = Read(index, budget);
      if (text.ok()) {
        At(index).text = std::move(*text);
        continue;
      }
      const auto kind = UnreadableOf(text.status());
      if (!kind || *kind == Unreadable::kEncrypted) {
        absl::MutexLock lock(&mu_);
        if (fatal_.ok()) fatal_ = text.status();
        next_ = pages_.size();
        return;
      }
      Skip(index, *kind, std::string(text.status().message()));
    }
  }

  poppler::document& doc_ ABSL_GUARDED_BY(mu_);
  const std::string_view bytes_;
  std::string file_digest_;  // "" when the OCR cache is off
  ScanGeometry geometry_ ABSL_GUARDED_BY(mu_);
  const std::vector<int> pages_;
  ExtractionSink& sink_;
  // Each page's slot is written by the one thread that took the page.
  std::vector<PageOutcome>& out_;
  std::atomic<size_t> next_{0};
  int workers_ = 1;
  absl::Mutex mu_;
  absl::Status fatal_ ABSL_GUARDED_BY(mu_);
};

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

namespace {

std::string Utf8(const poppler::ustring& s) {
  const poppler::byte_array utf8 = s.to_utf8();
  return std::string(utf8.data(), utf8.size());
}

// The sensitivity labels of a PDF Office exported from a labelled
// document (docs/labels.md): its XMP packet's MSIP_Label_... properties
// and the same keys in its information dictionary. Malformed XMP is not
// an error (the text is still read): its labels are not seen.
void NotePdfLabels(const poppler::document& doc, ExtractionSink& sink) {
  std::vector<SensitivityLabel> labels;
  if (const std::string xmp = Utf8(doc.metadata()); !xmp.empty()) {
    if (auto read = ReadXmpLabels(xmp); read.ok()) labels = std::move(*read);
  }
  LabelProperties info;
  for (const std::string& key : doc.info_keys()) {
    if (key.starts_with("MSIP_Label_")) info.Add(key, Utf8(doc.info_key(key)));
  }
  MergeLabels(info.Labels(), &labels);
  if (!labels.empty()) sink.NoteLabels(labels);
}

}  // namespace

absl::Status PdfExtractor::Extract(std::string_view bytes,
                                   ExtractionSink& sink) const {
  auto opened = OpenPdf(bytes);
  if (!opened.ok()) return opened.status();
  std::unique_ptr<poppler::document> doc = std::move(*opened);
  if (doc->is_locked()) {
    return UnreadableError(
        Unreadable::kEncrypted,
        "encrypted PDF (password required): no extractable text");
  }
  // The text layers first (cheap); then OCR of the pages without one.
  const int pages = doc->pages();
  std::vector<PageOutcome> outcome(static_cast<size_t>(std::max(pages, 0)));
  std::vector<int> scanned;
  // As laid out: a table's rows, which reading order splits into columns.
  std::string layout;
  for (size_t i = 0; i < outcome.size(); ++i) {
    if (auto s = sink.CheckTime(); !s.ok()) return s;
    std::unique_ptr<poppler::page> page(doc->create_page(static_cast<int>(i)));
    if (page == nullptr) continue;
    std::string layer = TextLayer(*page);
    if (HasWord(layer)) {
      outcome[i].text = std::move(layer);
      if (auto s = AppendWithin(TextLayer(*page, /*physical=*/true),
                                sink.limits().max_output_bytes, &layout);
          !s.ok()) {
        return s;
      }
      if (!layout.empty() && layout.back() != '\n') layout += '\n';
    } else if (sink.limits().ocr.enabled) {
      scanned.push_back(static_cast<int>(i));
    } else {
      outcome[i].reason = "page without a text layer: OCR is off (--ocr)";
    }
  }
  ScannedPages ocr(*doc, bytes, std::move(scanned), sink, outcome);
  if (auto s = ocr.ReadAll(); !s.ok()) return s;
  std::string text;
  UnreadPages unread;
  for (size_t i = 0; i < outcome.size(); ++i) {
    const PageOutcome& o = outcome[i];
    if (!o.reason.empty()) {
      ++unread.count;
      unread.out_of_time =
          unread.out_of_time || o.skipped == Unreadable::kLimit;
      sink.NoteSkipped(absl::StrCat("page", i + 1), o.skipped, o.reason);
    }
    if (!o.text) continue;
    if (auto s = AppendWithin(*o.text, sink.limits().max_output_bytes, &text);
        !s.ok()) {
      return s;
    }
    if (!text.empty() && text.back() != '\n') text += '\n';
  }
  const bool has_text = HasWord(text);
  NotePdfLabels(*doc, sink);
  if (has_text) {
    if (auto s = sink.AppendText(text); !s.ok()) return s;
    if (auto s = sink.AppendLayoutText(layout); !s.ok()) return s;
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

absl::StatusOr<std::vector<std::optional<double>>> PdfScanResolutions(
    std::string_view pdf) {
  auto doc = OpenPdf(pdf);
  if (!doc.ok()) return doc.status();
  ScanGeometry geometry(pdf);
  std::vector<std::optional<double>> out;
  for (int i = 0; i < (*doc)->pages(); ++i) {
    out.push_back(geometry.PixelsPerInch(i));
  }
  return out;
}

std::string PopplerVersion() { return poppler::version_string(); }

}  // namespace leakhound
