#include "cli/commands/version_command.h"

#include <cstdio>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "cli/commands/exit_codes.h"
#include "cli/console/console_server.h"
#include "cli/console/secrets.h"
#include "cli/formats/archive_reader.h"
#include "cli/formats/mime_extractor.h"
#include "cli/formats/ocr_engine.h"
#include "cli/formats/pdf_extractor.h"
#include "cli/incidents/incident_store.h"
#include "cli/records/pattern_scanner.h"
#include "cli/siem/syslog_client.h"
#include "cli/siem/webhook_client.h"
#include "index/key_format.h"
#include "index/rocks_database.h"
#include "shingler/shingler.h"

namespace leakhound {

int RunVersionCommand(int argc, char** argv) {
  if (argc == 2 && (std::string_view(argv[1]) == "--help" ||
                    std::string_view(argv[1]) == "-h")) {
    std::printf(
        "usage: leakhound version (also leakhound --version, -V)\n"
        "  Prints the release, the storage format, shingler and incident "
        "store\n"
        "  versions, and the versions of the libraries leakhound runs "
        "with.\n");
    return kExitOk;
  }
  if (argc > 1) {
    std::fprintf(stderr,
                 "leakhound version: takes no arguments (usage: leakhound "
                 "version)\n");
    return kExitError;
  }
  std::printf("leakhound %s\n", LEAKHOUND_VERSION);
  std::printf(
      "storage format %u, shingler version %u, incident store schema %d\n",
      kFormatVersion, kShinglerVersion, kIncidentSchemaVersion);
  const std::string libraries = absl::StrCat(
      "ICU ", IcuVersion(), " (Unicode ", UnicodeVersion(), "), RocksDB ",
      RocksDbVersion(), ", SQLite ", SqliteVersion(), ", libpq ",
      LibpqVersion(), ", GMime ", GmimeVersion(), ", poppler ",
      PopplerVersion(), ", libarchive ", LibarchiveVersion(), ", Tesseract ",
      TesseractVersion(), ", libsodium ", SodiumVersion(), ", libmicrohttpd ",
      HttpLibraryVersion(), ", libcurl ", CurlVersion(), ", ", OpenSslVersion(),
      ", Hyperscan ", HyperscanVersion());
  std::printf("%s\n", libraries.c_str());
  return kExitOk;
}

}  // namespace leakhound
