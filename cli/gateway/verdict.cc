#include "cli/gateway/verdict.h"

namespace leakhound {

const char* VerdictName(MessageVerdict::Kind kind) {
  switch (kind) {
    case MessageVerdict::Kind::kClean:
      return "clean";
    case MessageVerdict::Kind::kLeak:
      return "leak";
    case MessageVerdict::Kind::kError:
      return "error";
  }
  return "?";
}

}  // namespace leakhound
