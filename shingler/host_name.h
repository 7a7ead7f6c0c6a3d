// HostName: a domain as an admin writes it in a policy (internal_domains,
// recipient_domains, the domain of an address pattern), checked and
// brought to the form mail carries: IDNA (UTS #46, nontransitional, with
// the STD3 rules: letters, digits and hyphens, no label starting or ending
// with a hyphen, no empty label) through ICU, so that "bücher.example"
// and "xn--bcher-kva.example" are one domain and "counsel..example" or
// "-bad-.example" are refused. Lives in shingler/ because ICU does.
//
// Thread-safety: a pure function (ICU's UTS #46 instance is created per
// call and is thread-safe).
#ifndef LEAKHOUND_SHINGLER_HOST_NAME_H_
#define LEAKHOUND_SHINGLER_HOST_NAME_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace leakhound {

// The ASCII (A-label) form of `domain`, lowercased, without a trailing
// dot; InvalidArgument with the reason ("an empty label", "a label starts
// or ends with '-'", "a character a host name cannot hold", "longer than
// 253 characters") otherwise. A name with a scheme ("http://"), an '@' or
// a '/' is refused with a reason naming it.
absl::StatusOr<std::string> HostName(std::string_view domain);

}  // namespace leakhound

#endif  // LEAKHOUND_SHINGLER_HOST_NAME_H_
