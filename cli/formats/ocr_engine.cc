// The one file that calls Tesseract and Leptonica.
#include "cli/formats/ocr_engine.h"

#include <leptonica/allheaders.h>
#include <tesseract/baseapi.h>
#include <tesseract/ocrclass.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>  // std::call_once
#include <optional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "cli/formats/ocr_cache.h"
#include "cli/formats/unreadable.h"

namespace leakhound {
namespace {

void QuietLeptonica() {
  static std::once_flag once;
  std::call_once(once, [] { setMsgSeverity(L_SEVERITY_NONE); });
}

struct PixDeleter {
  void operator()(PIX* p) const { pixDestroy(&p); }
};
using PixPtr = std::unique_ptr<PIX, PixDeleter>;

// Tesseract instances (40-60 MB each with eng+chi_sim), lent one per
// recognition and kept when returned: their number is the peak of
// recognitions running at once (the milter bounds it by --max-concurrent),
// not the number of threads that ever ran one (the milter's are one per
// SMTP connection).
class EnginePool {
 public:
  struct Return {
    std::string languages;
    void operator()(tesseract::TessBaseAPI* api) const {
      Instance().Put(languages, api);
    }
  };
  using Lease = std::unique_ptr<tesseract::TessBaseAPI, Return>;

  static EnginePool& Instance() {
    static EnginePool* pool = new EnginePool();  // never destroyed: engines
                                                 // may be returned at exit
    return *pool;
  }

  // An instance for `languages`, or null with *error.
  Lease Borrow(const std::string& languages, absl::Status* error) {
    {
      absl::MutexLock lock(&mu_);
      auto it = idle_.find(languages);
      if (it != idle_.end()) {
        tesseract::TessBaseAPI* api = it->second.release();
        idle_.erase(it);
        return Lease(api, Return{languages});
      }
    }
    auto api = std::make_unique<tesseract::TessBaseAPI>();
    // Tesseract's diagnostics ("Estimating resolution as ...") would land
    // on standard error for every image.
    api->SetVariable("debug_file", "/dev/null");
    if (api->Init(nullptr, languages.c_str(), tesseract::OEM_LSTM_ONLY) != 0) {
      std::string missing;
      for (const std::string& l :
           std::vector<std::string>(absl::StrSplit(languages, '+'))) {
        absl::StrAppend(&missing, missing.empty() ? "" : " ", "tesseract-ocr-",
                        absl::StrReplaceAll(l, {{"_", "-"}}));
      }
      *error = absl::FailedPreconditionError(absl::StrCat(
          "OCR languages '", languages,
          "' cannot be loaded (install the Debian packages ", missing,
          ", or choose --ocr-languages, or --ocr off)"));
      return Lease(nullptr, Return{languages});
    }
    api->SetVariable("debug_file", "/dev/null");
    api->SetPageSegMode(tesseract::PSM_AUTO);
    return Lease(api.release(), Return{languages});
  }

 private:
  void Put(const std::string& languages, tesseract::TessBaseAPI* api) {
    if (api == nullptr) return;
    api->Clear();
    absl::MutexLock lock(&mu_);
    idle_.emplace(languages,
                  std::unique_ptr<tesseract::TessBaseAPI>(api));
  }

  absl::Mutex mu_;
  std::multimap<std::string, std::unique_ptr<tesseract::TessBaseAPI>> idle_
      ABSL_GUARDED_BY(mu_);
};

absl::Status PixelLimit(uint64_t pixels, std::string_view what,
                        const OcrSettings& settings) {
  return absl::ResourceExhaustedError(absl::StrFormat(
      "%s of %u pixels is larger than the OCR limit of %u pixels "
      "(--ocr-max-pixels): a decompression bomb?",
      std::string(what), pixels, settings.max_pixels));
}

// Recognizes the image set on `api`.
absl::StatusOr<std::string> Recognize(tesseract::TessBaseAPI* api,
                                      std::string_view what,
                                      const OcrSettings& settings) {
  tesseract::ETEXT_DESC monitor;
  monitor.set_deadline_msecs(static_cast<int32_t>(settings.max_seconds * 1000));
  const int rc = api->Recognize(&monitor);
  if (monitor.deadline_exceeded()) {
    api->Clear();
    return UnreadableError(
        Unreadable::kLimit,
        absl::StrFormat("%s: OCR took longer than %g s (--ocr-max-seconds)",
                        std::string(what), settings.max_seconds));
  }
  if (rc != 0) {
    api->Clear();
    return UnreadableError(
        Unreadable::kNoText,
        absl::StrCat(std::string(what), ": OCR found no text"));
  }
  std::unique_ptr<char[]> text(api->GetUTF8Text());
  api->Clear();
  std::string out = text ? text.get() : "";
  bool legible = false;
  for (char c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80 || std::isalnum(u)) {
      legible = true;
      break;
    }
  }
  if (!legible) {
    return UnreadableError(
        Unreadable::kNoText,
        absl::StrCat(std::string(what), ": no recognisable text"));
  }
  return out;
}

// The OcrCache key of `height` rows of gray pixels (the row padding left
// out), or "" when the cache is off: the digest is not worth making then.
std::string GrayKey(const uint8_t* pixels, int width, int height, int stride,
                    int dpi, const OcrSettings& settings) {
  if (settings.cache_bytes == 0) return "";
  OcrCacheKey hasher;
  hasher.Add("gray").Add(settings.languages);
  hasher.Add(uint64_t(width)).Add(uint64_t(height)).Add(uint64_t(dpi));
  for (int y = 0; y < height; ++y) {
    hasher.Add(std::string_view(
        reinterpret_cast<const char*>(pixels) + ptrdiff_t(y) * stride,
        size_t(width)));
  }
  return hasher.Finish();
}

// Threads recognizing now, over the whole process (OcrCoreLease).
std::atomic<int> g_recognizing{0};

}  // namespace

std::optional<absl::StatusOr<std::string>> RecalledReading(
    const std::string& key, std::string_view what,
    const OcrSettings& settings) {
  if (settings.cache_bytes == 0) return std::nullopt;
  std::optional<OcrReading> reading = OcrCache::Instance().Lookup(key);
  if (!reading) return std::nullopt;
  if (!reading->legible) {
    return UnreadableError(
        Unreadable::kNoText,
        absl::StrCat(std::string(what), ": no recognisable text"));
  }
  return std::move(reading->text);
}

void RememberReading(const std::string& key,
                     const absl::StatusOr<std::string>& result,
                     const OcrSettings& settings) {
  if (settings.cache_bytes == 0) return;
  if (result.ok()) {
    OcrCache::Instance().Insert(key, OcrReading{true, *result},
                                settings.cache_bytes);
  } else if (UnreadableOf(result.status()) == Unreadable::kNoText) {
    OcrCache::Instance().Insert(key, OcrReading{}, settings.cache_bytes);
  }
}

OcrCoreLease::OcrCoreLease(int wanted) {
  const int cores =
      std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  int running = g_recognizing.fetch_add(1) + 1;
  while (wanted > 0 && running < cores) {
    const int take = std::min(wanted, cores - running);
    if (g_recognizing.compare_exchange_weak(running, running + take)) {
      extra_ = take;
      break;
    }
  }
}

OcrCoreLease::~OcrCoreLease() { g_recognizing.fetch_sub(1 + extra_); }

void LimitOcrThreads(char** argv) {
  if (std::getenv("OMP_THREAD_LIMIT") == nullptr &&
      ::setenv("OMP_THREAD_LIMIT", "1", 1) == 0) {
    ::execv("/proc/self/exe", argv);
    // Not re-executed (no /proc): OCR runs with OpenMP's default threads.
  }
}

absl::Status CheckOcrLanguages(const std::string& languages) {
  absl::Status error;
  EnginePool::Instance().Borrow(languages, &error);
  return error;
}

absl::StatusOr<std::string> RecognizeImageFile(std::string_view bytes,
                                               std::string_view what,
                                               const OcrSettings& settings) {
  QuietLeptonica();
  const auto* data = reinterpret_cast<const l_uint8*>(bytes.data());
  l_int32 format = 0, width = 0, height = 0, bps = 0, spp = 0, cmap = 0;
  if (pixReadHeaderMem(data, bytes.size(), &format, &width, &height, &bps,
                       &spp, &cmap) != 0 ||
      width <= 0 || height <= 0) {
    return UnreadableError(
        Unreadable::kUnsupported,
        absl::StrCat(std::string(what),
                     ": damaged, its header cannot be read"));
  }
  const uint64_t pixels = uint64_t(width) * uint64_t(height);
  if (pixels > settings.max_pixels) return PixelLimit(pixels, what, settings);
  const std::string key = settings.cache_bytes == 0
                              ? std::string()
                              : OcrCacheKey()
                                    .Add("image")
                                    .Add(settings.languages)
                                    .Add(bytes)
                                    .Finish();
  if (auto kept = RecalledReading(key, what, settings)) return *std::move(kept);
  absl::Status error;
  EnginePool::Lease api =
      EnginePool::Instance().Borrow(settings.languages, &error);
  if (api == nullptr) return error;
  PixPtr pix(pixReadMem(data, bytes.size()));
  if (pix == nullptr) {
    // A damaged picture shows nothing a reader could take in either.
    return UnreadableError(
        Unreadable::kUnsupported,
        absl::StrCat(std::string(what), ": damaged, it cannot be decoded"));
  }
  // A picture that declares a small size but decodes larger is refused too.
  const uint64_t decoded = uint64_t(pixGetWidth(pix.get())) *
                           uint64_t(pixGetHeight(pix.get()));
  if (decoded > settings.max_pixels) return PixelLimit(decoded, what, settings);
  api->SetImage(pix.get());
  if (pixGetXRes(pix.get()) < 70) api->SetSourceResolution(150);
  absl::StatusOr<std::string> text = Recognize(api.get(), what, settings);
  RememberReading(key, text, settings);
  return text;
}

absl::StatusOr<std::string> RecognizeGrayPixels(const uint8_t* pixels,
                                                int width, int height,
                                                int stride, int dpi,
                                                std::string_view what,
                                                const OcrSettings& settings) {
  const uint64_t count = uint64_t(width) * uint64_t(height);
  if (count > settings.max_pixels) return PixelLimit(count, what, settings);
  const std::string key = GrayKey(pixels, width, height, stride, dpi, settings);
  if (auto kept = RecalledReading(key, what, settings)) return *std::move(kept);
  absl::Status error;
  EnginePool::Lease api =
      EnginePool::Instance().Borrow(settings.languages, &error);
  if (api == nullptr) return error;
  api->SetImage(pixels, width, height, 1, stride);
  api->SetSourceResolution(dpi);
  absl::StatusOr<std::string> text = Recognize(api.get(), what, settings);
  RememberReading(key, text, settings);
  return text;
}

std::string TesseractVersion() { return tesseract::TessBaseAPI::Version(); }

}  // namespace leakhound
