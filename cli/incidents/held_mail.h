// HeldMail: releases or deletes a message the milter quarantined, which
// Postfix keeps in its hold queue under its queue id: `postsuper -H` (then
// `postqueue -i`, to deliver it now) or `postsuper -d`, run directly (no
// shell) with the Postfix configuration directory given, if any.
//
// Thread-safety: the functions may run concurrently (each runs its own
// child processes).
#ifndef LEAKHOUND_CLI_INCIDENTS_HELD_MAIL_H_
#define LEAKHOUND_CLI_INCIDENTS_HELD_MAIL_H_

#include <string>

#include "absl/status/statusor.h"
#include "cli/incidents/incident_store.h"

namespace leakhound {

struct HeldMailOptions {
  std::string postfix_config;      // postsuper -c DIR; "" for the default
  std::string sbin = "/usr/sbin";  // where postsuper and postqueue are
};

// Each returns Postfix's own report ("Released 1 message from hold queue")
// on success. InvalidArgument for a queue id that is not one (letters and
// digits); NotFound when Postfix holds no such message; Internal when a
// command fails (its message in the status).
absl::StatusOr<std::string> ReleaseHeldMail(const std::string& queue_id,
                                            const HeldMailOptions& options);
absl::StatusOr<std::string> DeleteHeldMail(const std::string& queue_id,
                                           const HeldMailOptions& options);

// Releases (`release`) or deletes incident `id`'s held message and records
// the outcome in `store`: mail_state "released" or "deleted" with Postfix's
// report, or, when Postfix fails, the failure in the audit trail.
// FailedPrecondition when the incident's message is not held, or (to
// release it) when the incident is resolved as a confirmed leak; NotFound.
absl::StatusOr<std::string> ActOnHeldMail(IncidentStore& store, int64_t id,
                                          bool release, const std::string& user,
                                          const HeldMailOptions& options);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_INCIDENTS_HELD_MAIL_H_
