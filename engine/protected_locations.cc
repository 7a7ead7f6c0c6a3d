#include "engine/protected_locations.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace leakhound {
namespace {

constexpr uint32_t kLayers = 4;
constexpr uint32_t kHashes = 4;
constexpr uint32_t kBitsPerKey = 16;  // per layer: about 0.2 % per layer

MultiLayerBloomFilter NewFilter(size_t keys) {
  const auto bits = static_cast<uint32_t>(
      std::max<size_t>(4096, std::min<size_t>(keys * kBitsPerKey, 1u << 30)));
  return *MultiLayerBloomFilter::Create({kLayers, kHashes, bits, true});
}

// Bytes that end a location in text: ASCII space and controls, quotes,
// brackets and list punctuation, and every non-ASCII byte (a URL followed
// by "。" must not take it in).
bool IsDelimiter(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u <= ' ' || u >= 0x80 ||
         std::strchr("\"'<>()[]{}`|,;=*", c) != nullptr;
}

bool IsSchemeChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '+' ||
         c == '.' || c == '-';
}

// `s` without ASCII white space at either end.
std::string_view Trimmed(std::string_view s) {
  while (!s.empty() &&
         absl::ascii_isspace(static_cast<unsigned char>(s.front()))) {
    s.remove_prefix(1);
  }
  while (!s.empty() &&
         absl::ascii_isspace(static_cast<unsigned char>(s.back()))) {
    s.remove_suffix(1);
  }
  return s;
}

// The end of segment boundaries of `key`: ends[i] is one past segment i.
std::vector<size_t> SegmentEnds(std::string_view key) {
  std::vector<size_t> ends;
  size_t from = key.starts_with("//") ? 2 : key.starts_with("/") ? 1 : 0;
  while (from < key.size()) {
    const size_t slash = key.find('/', from);
    const size_t end = slash == std::string_view::npos ? key.size() : slash;
    ends.push_back(end);
    from = end + 1;
  }
  return ends;
}

// The filter's segment hashes of key[0, ends[depth - 1]): segments past the
// last layer joined into it, as MultiLayerBloomFilter::Split joins them.
std::vector<uint64_t> PrefixHashes(std::string_view key,
                                   const std::vector<size_t>& ends,
                                   size_t depth) {
  std::vector<uint64_t> hashes;
  size_t begin = 0;
  for (size_t i = 0; i < depth; ++i) {
    const size_t end = (hashes.size() + 1 == kLayers) ? ends[depth - 1]
                                                      : ends[i];
    hashes.push_back(
        Fmix64(std::hash<std::string_view>{}(key.substr(begin, end - begin))));
    if (end == ends[depth - 1]) break;
    begin = end + 1;
  }
  return hashes;
}

}  // namespace

ProtectedLocations::ProtectedLocations() : filter_(NewFilter(0)) {}

ProtectedLocations::ProtectedLocations(std::vector<std::string> keys)
    : filter_(NewFilter(keys.size())) {
  for (std::string& key : keys) {
    const std::vector<size_t> ends = SegmentEnds(key);
    if (ends.empty()) continue;
    filter_.Insert(PrefixHashes(key, ends, ends.size()));
    keys_.insert(std::move(key));
  }
}

namespace {

// A location cut into the mark its key starts with ("//" for a host or
// server, "/" for an absolute path, none for a drive) and the body whose
// segments follow it.
struct MarkedBody {
  std::string mark;
  std::string body;
};

// scheme://[user@]host[:port]/path, or file:///path. REQUIRES: `s` has a
// scheme ending at scheme_end.
absl::StatusOr<MarkedBody> SplitUrl(std::string_view s, size_t scheme_end) {
  std::string_view rest = s.substr(scheme_end + 3);
  std::string scheme(s.substr(0, scheme_end));
  absl::AsciiStrToLower(&scheme);
  if (scheme == "file" && rest.starts_with("/")) {
    return MarkedBody{"/", std::string(rest)};
  }
  const size_t host_end = std::min(rest.find_first_of("/\\?#"), rest.size());
  std::string_view host = rest.substr(0, host_end);
  if (const size_t at = host.rfind('@'); at != std::string_view::npos) {
    host.remove_prefix(at + 1);  // user:password@
  }
  if (const size_t colon = host.rfind(':');
      colon != std::string_view::npos &&
      host.find(']') == std::string_view::npos) {
    host = host.substr(0, colon);  // :port
  }
  if (host.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", std::string(s), "' has no host"));
  }
  std::string host_and_path(host);
  host_and_path.append(rest.substr(host_end));
  return MarkedBody{"//", std::move(host_and_path)};
}

// A URL, a UNC path (\\server\share, //server/share), a drive path, an
// absolute path or host.domain/path; InvalidArgument for anything else.
absl::StatusOr<MarkedBody> SplitLocation(std::string_view s) {
  const size_t scheme_end = s.find("://");
  const bool has_scheme =
      scheme_end != std::string_view::npos && scheme_end > 0 &&
      absl::ascii_isalpha(static_cast<unsigned char>(s[0])) &&
      std::all_of(s.begin(), s.begin() + static_cast<ptrdiff_t>(scheme_end),
                  IsSchemeChar);
  if (has_scheme) return SplitUrl(s, scheme_end);
  if (s.starts_with("\\\\") || s.starts_with("//")) {
    std::string_view body = s.substr(2);
    if (body.empty() || body[0] == '/' || body[0] == '\\') {
      return absl::InvalidArgumentError(
          absl::StrCat("'", std::string(s), "' has no server name"));
    }
    return MarkedBody{"//", std::string(body)};
  }
  if (s.size() >= 2 && absl::ascii_isalpha(static_cast<unsigned char>(s[0])) &&
      s[1] == ':' && (s.size() == 2 || s[2] == '\\' || s[2] == '/')) {
    // c:\dir, or c: (the key of "c:/"; fuzzing found it)
    return MarkedBody{"", std::string(s)};
  }
  if (s.starts_with("/")) return MarkedBody{"/", std::string(s)};
  const size_t first_end = std::min(s.find_first_of("/\\"), s.size());
  if (first_end == s.size() ||
      s.substr(0, first_end).find('.') == std::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", std::string(s),
        "' is not a URL, a UNC path, an absolute path or host.domain/path"));
  }
  return MarkedBody{"//", std::string(s)};
}

}  // namespace

absl::StatusOr<std::string> ProtectedLocations::Normalize(
    std::string_view location) {
  const std::string_view s = Trimmed(location);
  auto split = SplitLocation(s);
  if (!split.ok()) return split.status();
  std::string_view body = split->body;
  body = body.substr(0, std::min(body.find_first_of("?#"), body.size()));
  std::string key = std::move(split->mark);
  size_t segments = 0;
  size_t from = 0;
  while (from <= body.size()) {
    const size_t end = std::min(body.find_first_of("/\\", from), body.size());
    // White space around a segment means nothing ("HR Share " is the share
    // "HR Share"); kept, a key would not normalize to itself (fuzzing
    // found it).
    std::string_view segment = Trimmed(body.substr(from, end - from));
    if (!segment.empty()) {
      if (segments++ > 0) key.push_back('/');
      key.append(segment);
    }
    from = end + 1;
  }
  if (segments == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", std::string(s), "' names no directory or host to protect"));
  }
  absl::AsciiStrToLower(&key);
  return key;
}

std::string ProtectedLocations::CoveringPrefix(std::string_view key) const {
  const std::vector<size_t> ends = SegmentEnds(key);
  for (size_t depth = 1; depth <= ends.size(); ++depth) {
    if (!filter_.Contains(PrefixHashes(key, ends, depth))) continue;
    std::string prefix(key.substr(0, ends[depth - 1]));
    if (keys_.contains(prefix)) return prefix;
  }
  return "";
}

std::vector<LocationFinding> ProtectedLocations::Find(
    std::string_view text) const {
  std::vector<LocationFinding> found;
  if (keys_.empty()) return found;
  size_t covered = 0;  // text before this was part of a token already seen
  for (size_t at = text.find_first_of("/\\"); at != std::string_view::npos;
       at = text.find_first_of("/\\", at + 1)) {
    if (at < covered) continue;
    size_t begin = at, end = at;
    while (begin > 0 && !IsDelimiter(text[begin - 1])) --begin;
    while (end < text.size() && !IsDelimiter(text[end])) ++end;
    covered = end;
    while (end > begin && std::strchr(".:!?", text[end - 1]) != nullptr) --end;
    std::string_view token = text.substr(begin, end - begin);
    // "see:https://host/..." or "(url)https://...": start at the scheme.
    if (const size_t scheme = token.find("://");
        scheme != std::string_view::npos) {
      size_t start = scheme;
      while (start > 0 && IsSchemeChar(token[start - 1])) --start;
      begin += start;
      token.remove_prefix(start);
    }
    auto key = Normalize(token);
    if (!key.ok()) continue;
    std::string prefix = CoveringPrefix(*key);
    if (prefix.empty()) continue;
    found.push_back(LocationFinding{static_cast<uint32_t>(begin),
                                    static_cast<uint32_t>(end),
                                    std::move(*key), std::move(prefix)});
  }
  return found;
}

}  // namespace leakhound
