#include "cli/incidents/incident.h"

#include <sys/random.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace leakhound {
namespace {

bool IsContinuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// The nearest character boundary at or before `at`.
size_t BackToBoundary(std::string_view text, size_t at) {
  at = std::min(at, text.size());
  while (at > 0 && at < text.size() && IsContinuation(text[at])) --at;
  return at;
}

}  // namespace

std::vector<std::string> DistinctDocuments(
    const std::vector<IncidentMatch>& matches) {
  std::vector<std::string> out;
  for (const IncidentMatch& m : matches) {
    if (std::find(out.begin(), out.end(), m.document) == out.end()) {
      out.push_back(m.document);
    }
  }
  return out;
}

void FillSnippet(std::string_view text, uint32_t begin, uint32_t end,
                 IncidentMatch* match) {
  const size_t from = BackToBoundary(
      text, begin > kSnippetContext ? begin - kSnippetContext : 0);
  std::string out(text.substr(from, begin - from));
  match->snippet_begin = static_cast<uint32_t>(out.size());
  const bool cut = end - begin > kSnippetPassage;
  const size_t passage_end =
      cut ? BackToBoundary(text, begin + kSnippetPassage) : end;
  out.append(text.substr(begin, passage_end - begin));
  match->snippet_end = static_cast<uint32_t>(out.size());
  if (cut) {
    out.append(" [...]");
  } else {
    const size_t to = BackToBoundary(text, end + kSnippetContext);
    out.append(text.substr(end, to - end));
  }
  match->snippet = std::move(out);
}

absl::StatusOr<int64_t> ParseTimeBound(std::string_view text, int64_t now_ms) {
  const std::string s(text);
  auto bad = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("bad time '", s,
                     "' (an age such as 90d, 12h, 30m, or a date 2026-11-25 or "
                     "2026-11-25T14:30:00, UTC)"));
  };
  if (s.empty()) return bad();
  const char unit = s.back();
  static constexpr struct {
    char unit;
    int64_t ms;
  } kUnits[] = {{'s', 1000},
                {'m', 60'000},
                {'h', 3'600'000},
                {'d', 86'400'000},
                {'w', 604'800'000}};
  for (const auto& u : kUnits) {
    if (unit != u.unit) continue;
    uint64_t n = 0;
    if (!absl::SimpleAtoi(s.substr(0, s.size() - 1), &n) || n > 100'000'000) {
      return bad();
    }
    return now_ms - static_cast<int64_t>(n) * u.ms;
  }
  struct tm tm {};
  int year, month, day, hour = 0, minute = 0, second = 0;
  char end = 0;
  const int got = std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &year,
                              &month, &day, &hour, &minute, &second, &end);
  if (!(got == 3 && s.size() == 10) && got != 6 && !(got == 7 && end == 'Z')) {
    return bad();
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 ||
      minute > 59 || second > 60 || year < 1970) {
    return bad();
  }
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return static_cast<int64_t>(timegm(&tm)) * 1000;
}

std::string FormatTime(int64_t unix_ms) {
  const time_t seconds = static_cast<time_t>(unix_ms / 1000);
  struct tm tm {};
  gmtime_r(&seconds, &tm);
  char out[32];
  std::strftime(out, sizeof out, "%Y-%m-%d %H:%M:%S", &tm);
  return out;
}

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string IncidentOrigin(const Incident& i) {
  if (i.source == "scan" || i.source == "discover") return i.file_path;
  if (i.source == "web" && i.sender.empty()) return i.client;
  return i.sender;
}

std::string ChannelOf(std::string_view source) {
  return source == "milter" ? "mail" : std::string(source);
}

std::string NewIncidentReference() {
  static constexpr char kAlphabet[] = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ";
  thread_local std::mt19937_64 random(std::random_device{}());
  uint64_t bits = random();
  std::string out = "LH-";
  for (int i = 0; i < 10; ++i, bits >>= 5) out += kAlphabet[bits & 31];
  return out;
}

std::string NewSecretToken() {
  unsigned char bytes[16];
  size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n > 0) got += static_cast<size_t>(n);
    if (n < 0 && errno != EINTR) std::abort();  // no randomness: unsafe
  }
  std::string out;
  for (const unsigned char b : bytes) absl::StrAppendFormat(&out, "%02x", b);
  return out;
}

}  // namespace leakhound
