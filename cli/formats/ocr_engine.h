// OcrEngine: text recognition in images with Tesseract 5 (LSTM engine),
// images decoded by Leptonica. The one file that calls Tesseract and
// Leptonica (Tesseract's own image library: they come as one).
//
// Before anything is decoded, the image's header gives its size: an image
// of more than OcrSettings::max_pixels pixels is refused as a
// decompression bomb (a 50,000 x 50,000 PNG is a few kilobytes). A
// recognition that runs past OcrSettings::max_seconds is cancelled
// (Tesseract's deadline monitor) and reported as the Unreadable error
// kLimit; an image in which nothing legible is found is kNoText.
//
// The same pixels read with the same languages are read once: readings
// are kept by digest in the process's OcrCache (ocr_cache.h).
//
// Thread-safety: safe to call concurrently. Tesseract instances (40-60 MB
// each, 0.1-0.5 s to load) are lent from a process-wide pool, one per
// recognition running, and kept for the next: as many exist as ran at once.
#ifndef LEAKHOUND_CLI_FORMATS_OCR_ENGINE_H_
#define LEAKHOUND_CLI_FORMATS_OCR_ENGINE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace leakhound {

struct OcrSettings {
  // --ocr on|off.
  bool enabled = true;
  // --ocr-languages: Tesseract's language names joined by '+'.
  std::string languages = "eng+chi_sim";
  // --ocr-max-pixels: an image (or a rendered PDF page) larger than this
  // is refused (images) or rendered at a lower resolution (PDF pages).
  uint64_t max_pixels = 40'000'000;
  // --ocr-max-seconds: recognition time per image or page.
  double max_seconds = 20;
  // --ocr-pdf-dpi: resolution PDF pages without a text layer are rendered
  // at (a scan made at 150 dpi read better at 150 or 200 than at 300 in
  // one Chinese case of the evaluation: docs/cli.md, "OCR cost").
  int pdf_dpi = 300;
  // --ocr-cache-mb: bytes of readings kept by image digest (OcrCache),
  // 0 for none.
  size_t cache_bytes = size_t{64} << 20;

  // These settings with max_seconds lowered to `seconds_left` (what is
  // left of the file's --max-seconds), if that is less.
  OcrSettings Within(double seconds_left) const {
    OcrSettings s = *this;
    if (seconds_left < s.max_seconds) s.max_seconds = seconds_left;
    return s;
  }
};

// Below this many seconds left of a file's time limit, OCR is not started:
// the image or page is listed as unread (class limit) instead.
inline constexpr double kOcrMinSeconds = 0.5;

// The cores recognition may use: a process-wide count of the threads
// recognizing now, at most one per core. A lease counts its holder, which
// always runs, and reserves up to `wanted` more threads among the cores no
// recognition holds, so that one file's pages are read in parallel when
// the machine is otherwise idle, and one page at a time when every core is
// already recognizing (the milter's other messages).
//
// Thread-safety: safe to create and destroy concurrently.
class OcrCoreLease {
 public:
  explicit OcrCoreLease(int wanted);
  ~OcrCoreLease();
  OcrCoreLease(const OcrCoreLease&) = delete;
  OcrCoreLease& operator=(const OcrCoreLease&) = delete;

  // The helper threads the holder may start (0 <= extra() <= wanted).
  int extra() const { return extra_; }

 private:
  int extra_ = 0;
};

// Tesseract runs its networks on OpenMP threads; next to a program's own
// worker threads they fight for the cores: a 150 dpi page took 8.2 s with
// OpenMP's default and 2.1 s with one OpenMP thread (2-core machine).
// libgomp reads OMP_THREAD_LIMIT once, when it is loaded, before main:
// so, unless the variable is set (a user's choice is kept), this sets it
// to 1 and re-executes the program (/proc/self/exe with `argv`). Returns
// only when it did not re-execute. Call first thing in main.
void LimitOcrThreads(char** argv);

// Whether Tesseract can load `languages` (their trained data installed).
// FailedPrecondition naming the missing Debian package otherwise.
absl::Status CheckOcrLanguages(const std::string& languages);

// The text of the image file `bytes` (PNG, JPEG, TIFF, GIF, BMP, WebP,
// JPEG 2000, PNM). `what` names the image kind for messages ("PNG
// image"). Errors: ResourceExhausted past max_pixels; the Unreadable
// errors (text_extractor.h) kUnsupported for an image Leptonica cannot
// decode, kNoText for one without legible text, kLimit past max_seconds.
absl::StatusOr<std::string> RecognizeImageFile(std::string_view bytes,
                                               std::string_view what,
                                               const OcrSettings& settings);

// The text of `height` rows of 8-bit gray pixels, `stride` bytes apart
// (a rendered PDF page), at `dpi`. Errors as RecognizeImageFile.
absl::StatusOr<std::string> RecognizeGrayPixels(const uint8_t* pixels,
                                                int width, int height,
                                                int stride, int dpi,
                                                std::string_view what,
                                                const OcrSettings& settings);

// The reading kept in the OcrCache under `key` (an OcrCacheKey of what
// decides it) as the recognition returned it: the text, or kNoText naming
// `what`. nullopt when none is kept or settings.cache_bytes is 0. For
// callers that can name an image before making it (a PDF page by the
// file's digest and its number, before it is rendered).
std::optional<absl::StatusOr<std::string>> RecalledReading(
    const std::string& key, std::string_view what, const OcrSettings& settings);

// Keeps `result` under `key` if another recognition of the same pixels
// would repeat it: text, or nothing legible; not a reading cut short
// (kLimit) nor an error. Nothing when settings.cache_bytes is 0.
void RememberReading(const std::string& key,
                     const absl::StatusOr<std::string>& result,
                     const OcrSettings& settings);

// The Tesseract version (for `leakhound --version`).
std::string TesseractVersion();

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_OCR_ENGINE_H_
