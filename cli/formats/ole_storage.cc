// The one file that calls libgsf.
#include "cli/formats/ole_storage.h"

#include <gsf/gsf-doc-meta-data.h>
#include <gsf/gsf-infile-msole.h>
#include <gsf/gsf-infile.h>
#include <gsf/gsf-input-memory.h>
#include <gsf/gsf-input.h>
#include <gsf/gsf-msole-utils.h>
#include <gsf/gsf-utils.h>

#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace leakhound {
namespace {

// A GObject reference, released on destruction.
template <typename T>
struct Unref {
  void operator()(T* p) const {
    if (p != nullptr) g_object_unref(p);
  }
};
using InputPtr = std::unique_ptr<GsfInput, Unref<GsfInput>>;

void Silence(const gchar*, GLogLevelFlags, const gchar*, gpointer) {}

void InitOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    gsf_init();
    // libgsf reports damaged files with g_warning as well as in the GError
    // it returns: one line per file is ours to write.
    for (const char* domain : {"libgsf", "libgsf:msole", "GLib-GObject"}) {
      g_log_set_handler(domain,
                        static_cast<GLogLevelFlags>(G_LOG_LEVEL_WARNING |
                                                    G_LOG_LEVEL_CRITICAL |
                                                    G_LOG_LEVEL_MESSAGE),
                        Silence, nullptr);
    }
  });
}

}  // namespace

struct Ole2Storage::Impl {
  InputPtr source;
  InputPtr root;  // a GsfInfile

  // The entry at `path`, or null.
  InputPtr Find(std::string_view path) const {
    InputPtr current(GSF_INPUT(g_object_ref(root.get())));
    if (path.empty()) return current;
    for (const std::string& part :
         std::vector<std::string>(absl::StrSplit(std::string(path), '/'))) {
      if (!GSF_IS_INFILE(current.get())) return nullptr;
      InputPtr child(
          gsf_infile_child_by_name(GSF_INFILE(current.get()), part.c_str()));
      if (child == nullptr) return nullptr;
      current = std::move(child);
    }
    return current;
  }
};

std::string Ole2Path(std::string_view dir, std::string_view name) {
  return dir.empty() ? std::string(name)
                     : absl::StrCat(std::string(dir), "/", std::string(name));
}

Ole2Storage::Ole2Storage(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Ole2Storage::~Ole2Storage() = default;

absl::StatusOr<std::unique_ptr<Ole2Storage>> Ole2Storage::Open(
    std::string_view bytes) {
  InitOnce();
  if (!bytes.starts_with(kOle2Signature)) {
    return absl::InvalidArgumentError("not an OLE2 compound file");
  }
  auto impl = std::make_unique<Impl>();
  impl->source.reset(gsf_input_memory_new(
      reinterpret_cast<const guint8*>(bytes.data()),
      static_cast<gsf_off_t>(bytes.size()), FALSE));
  if (impl->source == nullptr) {
    return absl::InternalError("libgsf could not wrap the bytes");
  }
  GError* error = nullptr;
  GsfInfile* root = gsf_infile_msole_new(impl->source.get(), &error);
  if (root == nullptr) {
    std::string why = error != nullptr ? error->message : "unreadable";
    if (error != nullptr) g_error_free(error);
    return absl::InvalidArgumentError(
        absl::StrCat("malformed OLE2 compound file: ", why));
  }
  impl->root.reset(GSF_INPUT(root));
  return std::unique_ptr<Ole2Storage>(new Ole2Storage(std::move(impl)));
}

absl::StatusOr<std::vector<Ole2Storage::Entry>> Ole2Storage::List(
    std::string_view path) const {
  InputPtr dir = impl_->Find(path);
  if (dir == nullptr || !GSF_IS_INFILE(dir.get())) {
    return absl::NotFoundError(absl::StrCat("no storage ", std::string(path)));
  }
  GsfInfile* infile = GSF_INFILE(dir.get());
  std::vector<Entry> out;
  const int n = gsf_infile_num_children(infile);
  for (int i = 0; i < n; ++i) {
    const char* name = gsf_infile_name_by_index(infile, i);
    InputPtr child(gsf_infile_child_by_index(infile, i));
    if (name == nullptr || child == nullptr) continue;
    Entry e;
    e.name = name;
    // libgsf reads a storage as an infile with children; an empty storage
    // has none, and an ordinary stream is never an infile.
    e.is_storage = GSF_IS_INFILE(child.get()) &&
                   gsf_infile_num_children(GSF_INFILE(child.get())) >= 0;
    e.size = static_cast<uint64_t>(gsf_input_size(child.get()));
    out.push_back(std::move(e));
  }
  return out;
}

bool Ole2Storage::Has(std::string_view path) const {
  return impl_->Find(path) != nullptr;
}

absl::StatusOr<std::string> Ole2Storage::Read(std::string_view path,
                                              size_t max_bytes) const {
  InputPtr stream = impl_->Find(path);
  if (stream == nullptr ||
      (GSF_IS_INFILE(stream.get()) &&
       gsf_infile_num_children(GSF_INFILE(stream.get())) >= 0)) {
    return absl::NotFoundError(absl::StrCat("no stream ", std::string(path)));
  }
  const gsf_off_t size = gsf_input_size(stream.get());
  if (size < 0)
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(path), ": bad size"));
  if (static_cast<uint64_t>(size) > max_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "stream ", std::string(path), " of ", size,
        " bytes is larger than the limit of ", max_bytes, " bytes"));
  }
  std::string out(static_cast<size_t>(size), '\0');
  if (size > 0 &&
      gsf_input_read(stream.get(), static_cast<size_t>(size),
                     reinterpret_cast<guint8*>(out.data())) == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed OLE2 compound file: stream ", std::string(path),
        " cannot be read"));
  }
  return out;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>>
Ole2Storage::Properties(std::string_view path, size_t max_bytes) const {
  // Bounded as a stream is, before libgsf reads it.
  auto bytes = Read(path, max_bytes);
  if (!bytes.ok()) return bytes.status();
  InputPtr stream = impl_->Find(path);
  std::unique_ptr<GsfDocMetaData, Unref<GsfDocMetaData>> meta(
      gsf_doc_meta_data_new());
  if (GError* error =
          gsf_doc_meta_data_read_from_msole(meta.get(), stream.get())) {
    std::string why = error->message != nullptr ? error->message : "unreadable";
    g_error_free(error);
    return absl::InvalidArgumentError(
        absl::StrCat("malformed property set ", std::string(path), ": ", why));
  }
  std::vector<std::pair<std::string, std::string>> out;
  gsf_doc_meta_data_foreach(
      meta.get(),
      [](gpointer name, gpointer prop, gpointer user) {
        const GValue* value =
            gsf_doc_prop_get_val(static_cast<GsfDocProp*>(prop));
        std::string text;
        if (value != nullptr && G_VALUE_HOLDS_STRING(value)) {
          const char* s = g_value_get_string(value);
          text = s != nullptr ? s : "";
        } else if (value != nullptr && G_VALUE_HOLDS_BOOLEAN(value)) {
          text = g_value_get_boolean(value) ? "true" : "false";
        } else if (value != nullptr) {
          gchar* s = g_strdup_value_contents(value);
          text = s != nullptr ? s : "";
          g_free(s);
        }
        static_cast<std::vector<std::pair<std::string, std::string>>*>(user)
            ->emplace_back(static_cast<const char*>(name), std::move(text));
      },
      &out);
  return out;
}

absl::StatusOr<std::string> ReadCharged(const Ole2Storage& storage,
                                        std::string_view path,
                                        ExtractionSink& sink) {
  auto bytes = storage.Read(path, sink.limits().max_input_bytes);
  if (!bytes.ok()) return bytes.status();
  if (auto s = sink.ChargeExpansion(bytes->size()); !s.ok()) return s;
  return bytes;
}

}  // namespace leakhound
