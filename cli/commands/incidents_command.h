// `leakhound incidents`: the incident desk on the command line (list,
// show, resolve, release, delete-mail, export, purge) over the incident
// store (cli/incidents/incident_store.h). docs/cli.md is the contract;
// exit 0 on success, 2 on any error (with one line on standard error).
//
// Thread-safety: runs on the calling thread.
#ifndef LEAKHOUND_CLI_COMMANDS_INCIDENTS_COMMAND_H_
#define LEAKHOUND_CLI_COMMANDS_INCIDENTS_COMMAND_H_

#include <string>

#include "cli/incidents/incident.h"

namespace leakhound {

int RunIncidentsCommand(int argc, char** argv);

// One incident as a JSON object (no newline); with its matches when it
// has them. The schema is in docs/cli.md.
std::string IncidentJson(const Incident& incident);

// Who is acting, for the audit trail: "cli:" and $SUDO_USER, $USER or the
// uid.
std::string CliUser();

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_INCIDENTS_COMMAND_H_
