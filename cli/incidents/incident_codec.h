// The bytes of a batch of incidents as the gateway's local spool keeps
// them (incident_spool.h): CBOR (RFC 8949) of one map per incident with
// every field, matches, rules and facts, byte for byte (text that is not
// UTF-8 included). PERSISTED: docs/storage_format.md, "The incident
// spool". nlohmann-json is called here and in outbox_event.cc only.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_INCIDENTS_INCIDENT_CODEC_H_
#define LEAKHOUND_CLI_INCIDENTS_INCIDENT_CODEC_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/incidents/incident.h"

namespace leakhound {

// PERSISTED: the version written as the batch's "v".
inline constexpr int kIncidentCodecVersion = 1;

std::string EncodeIncidents(std::span<const Incident> incidents);
// DataLoss when `bytes` is not a batch this build reads (damaged,
// truncated, or from a newer leakhound).
absl::StatusOr<std::vector<Incident>> DecodeIncidents(std::string_view bytes);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_INCIDENTS_INCIDENT_CODEC_H_
