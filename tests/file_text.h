// Test helpers for files and extracted text: a file's bytes, and text with
// its white space collapsed (extractors differ in line breaks).
//
// Thread-safety: stateless.
#ifndef LEAKHOUND_TESTS_FILE_TEXT_H_
#define LEAKHOUND_TESTS_FILE_TEXT_H_

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace leakhound {

// The bytes of the file at `path` ("" if it cannot be read).
inline std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `text` with each run of white space one space, none at either end.
inline std::string Collapsed(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

}  // namespace leakhound

#endif  // LEAKHOUND_TESTS_FILE_TEXT_H_
