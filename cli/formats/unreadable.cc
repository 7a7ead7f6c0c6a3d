#include "cli/formats/unreadable.h"

#include <string>

#include "absl/strings/cord.h"

namespace leakhound {
namespace {

// The payload URL that carries an Unreadable class on a Status.
constexpr char kUnreadablePayload[] = "leakhound/unreadable";

}  // namespace

const char* UnreadableName(Unreadable kind) {
  switch (kind) {
    case Unreadable::kNoText: return "no-text";
    case Unreadable::kUnsupported: return "unsupported";
    case Unreadable::kEncrypted: return "encrypted";
    case Unreadable::kLimit: return "limit";
  }
  return "unsupported";
}

absl::Status UnreadableError(Unreadable kind, std::string_view message) {
  absl::Status s = kind == Unreadable::kEncrypted
                       ? absl::InvalidArgumentError(std::string(message))
                       : absl::UnimplementedError(std::string(message));
  s.SetPayload(kUnreadablePayload, absl::Cord(UnreadableName(kind)));
  return s;
}

std::optional<Unreadable> UnreadableOf(const absl::Status& status) {
  const auto payload =
      status.GetPayload(kUnreadablePayload);
  if (!payload) return std::nullopt;
  for (Unreadable kind : {Unreadable::kNoText, Unreadable::kUnsupported,
                          Unreadable::kEncrypted, Unreadable::kLimit}) {
    if (*payload == UnreadableName(kind)) return kind;
  }
  return std::nullopt;
}

}  // namespace leakhound
