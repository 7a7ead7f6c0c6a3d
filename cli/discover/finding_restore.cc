#include "cli/discover/finding_restore.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "cli/discover/crawl_plan.h"
#include "cli/discover/file_facts.h"
#include "cli/discover/remediation.h"

namespace leakhound {

absl::StatusOr<std::string> RestoreFinding(IncidentStore& store,
                                           const std::string& reference,
                                           const std::string& user) {
  auto f = store.Finding(reference);
  if (!f.ok()) return f.status();
  std::string done;
  if (f->state == "quarantined" || f->state == "quarantining") {
    auto unrestored = RestoreQuarantined(*f);
    if (!unrestored.ok()) return unrestored.status();
    f->detail = unrestored->empty()
                    ? "put back with its mode and owner"
                    : absl::StrCat("put back; not restored: ", *unrestored);
  } else if (f->state == "restricted") {
    if (absl::Status s = RestoreMode(*f); !s.ok()) return s;
    f->detail = absl::StrCat("mode ", ModeText(f->mode), " given back");
  } else {
    return absl::FailedPreconditionError(absl::StrCat(
        "finding ", f->reference, " is ", f->state, ": nothing to undo"));
  }
  f->state = "restored";
  if (absl::Status s = store.UpdateFinding(*f, "restored", user); !s.ok()) {
    return s;
  }
  // Catalogued under its finding, so that a run leaves the file it was
  // let keep where it is (a later change is read and judged again).
  if (auto now = StatFile(f->path); now.ok()) {
    const CatalogueEntry e = EntryOf(f->target, SeenFile{f->path, *now, {}}, "",
                                     "restored", "leak", f->reference);
    if (absl::Status s = store.PutCatalogue({e}, {}); !s.ok()) return s;
  }
  return absl::StrCat(f->reference, " ", f->path, ": ", f->detail);
}

}  // namespace leakhound
