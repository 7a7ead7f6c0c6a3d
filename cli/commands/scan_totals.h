// ScanTotals: the block `scan --summary` prints after the files: per
// protected document, the files and words that leaked it; per kind of
// part, where the leaks were found (a file's own text or its members:
// attachments, archive entries, embedded files); and the parts left
// unread, by class.
//
// Thread-safety: none; the scan's printing thread owns it.
#ifndef LEAKHOUND_CLI_COMMANDS_SCAN_TOTALS_H_
#define LEAKHOUND_CLI_COMMANDS_SCAN_TOTALS_H_

#include <cstdint>
#include <map>
#include <string>

#include "cli/commands/scan_output.h"

namespace leakhound {

class ScanTotals {
 public:
  // Counts `outcome`, one file of the scan.
  void Add(const FileOutcome& outcome);

  // The block for a terminal, lines ending in a newline: "" when no file
  // leaked and no part was left unread.
  std::string Human() const;

  // One line of JSON without the newline: {"summary":{"documents":[{
  // "doc_id","files","words","largest_share"}...],"tables":[{"table",
  // "files","rows"}...],"leaking_parts":{"text","members"},"unread_parts":
  // {CLASS:N...}}}; documents by files, then words, both descending;
  // tables by name.
  std::string Json() const;

 private:
  struct Document {
    uint64_t files = 0;
    uint64_t words = 0;
    double largest_share = 0;  // of the document, in one part
  };
  std::map<std::string, Document> documents_;  // by external id
  // Protected tables: rows matched (summed over files and parts) and the
  // files they were in, by table name.
  struct Table {
    uint64_t files = 0;
    uint64_t rows = 0;
  };
  std::map<std::string, Table> tables_;
  uint64_t text_parts_ = 0;                    // leaking, a file's own text
  uint64_t member_parts_ = 0;                  // leaking, a member
  std::map<std::string, uint64_t> unread_;     // by Unreadable class name
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_SCAN_TOTALS_H_
