// TempDir: a fresh directory under $TMPDIR (or /tmp), or under a given
// directory, for one test, removed with everything in it when the object
// goes away.
//
// Thread-safety: one owner.
#ifndef LEAKHOUND_TESTS_TEMP_DIR_H_
#define LEAKHOUND_TESTS_TEMP_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <string>

namespace leakhound {

class TempDir {
 public:
  TempDir() : TempDir(std::filesystem::temp_directory_path()) {}
  // REQUIRES: `base` is a writable directory.
  explicit TempDir(const std::filesystem::path& base) {
    std::string tmpl = (base / "leakhound-test-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + name.
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_TESTS_TEMP_DIR_H_
