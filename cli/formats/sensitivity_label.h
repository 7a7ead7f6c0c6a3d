// SensitivityLabel: a Microsoft Purview Information Protection (MSIP)
// sensitivity label as a file or a message carries it, and the readers of
// the places Office and Outlook write one (docs/labels.md):
//   - custom document properties MSIP_Label_<GUID>_<Field> (Enabled, Name,
//     SiteId, Method, ...): OOXML docProps/custom.xml, the user-defined
//     section of a legacy Office file's DocumentSummaryInformation,
//     OpenDocument meta:user-defined, a PDF's XMP (pdfx:) and its
//     document information dictionary;
//   - docMetadata/LabelInfo.xml of OOXML since 2022 ([MS-OFFCRYPTO]
//     2.6.4: clbl:label id, enabled, method, siteId, removed);
//   - a mail's msip_labels header ("MSIP_Label_<GUID>_Enabled=True; ...").
// The file says which label it carries (an id, and a name in the tenant's
// language where the properties store one); the policy's [labels] table
// names and ranks them (cli/policy).
//
// Thread-safety: plain values and pure functions.
#ifndef LEAKHOUND_CLI_FORMATS_SENSITIVITY_LABEL_H_
#define LEAKHOUND_CLI_FORMATS_SENSITIVITY_LABEL_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace leakhound {

struct SensitivityLabel {
  std::string id;       // the label's GUID, lower case, without braces
  std::string name;     // as the file names it; "" when it does not
  bool enabled = true;  // false: set, then removed (Enabled=false)
  std::string method;   // "Standard", "Privileged", "Manual", "Auto", ...
  std::string site;     // the tenant's GUID, lower case
  bool operator==(const SensitivityLabel&) const = default;
};

// `id` lower case without braces or white space: "{F42AA342-...}" is
// "f42aa342-...". "" unless it is a GUID.
std::string NormalizeLabelId(std::string_view id);

// Collects MSIP_Label_<GUID>_<Field> properties, one label per GUID.
class LabelProperties {
 public:
  // Takes property `name` = `value`; names that are not MSIP label
  // properties are ignored.
  void Add(std::string_view name, std::string_view value);
  // The labels seen, in GUID order.
  std::vector<SensitivityLabel> Labels() const;

 private:
  std::map<std::string, SensitivityLabel> labels_;
};

// Adds `more` to *labels: a label already there (same id) takes the
// fields it lacks, and is disabled if either says so.
void MergeLabels(const std::vector<SensitivityLabel>& more,
                 std::vector<SensitivityLabel>* labels);

// The labels of an OOXML docProps/custom.xml. InvalidArgument for
// malformed XML.
absl::StatusOr<std::vector<SensitivityLabel>> ReadCustomProperties(
    std::string_view xml);
// The labels of an OOXML docMetadata/LabelInfo.xml (a label marked
// removed="1" is disabled). InvalidArgument for malformed XML.
absl::StatusOr<std::vector<SensitivityLabel>> ReadLabelInfo(
    std::string_view xml);
// The labels of an OpenDocument meta.xml's user-defined fields.
absl::StatusOr<std::vector<SensitivityLabel>> ReadOpenDocumentMeta(
    std::string_view xml);
// The labels of an XMP packet (elements or attributes MSIP_Label_..., in
// any namespace; Office writes pdfx:).
absl::StatusOr<std::vector<SensitivityLabel>> ReadXmpLabels(
    std::string_view xml);
// The labels of a msip_labels header's value: "KEY=VALUE" pairs separated
// by ';'.
std::vector<SensitivityLabel> ReadMsipLabelsHeader(std::string_view value);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_SENSITIVITY_LABEL_H_
