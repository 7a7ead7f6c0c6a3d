// libFuzzer target for index record decoding (index/record_codec.h): the
// first input byte picks a record type, the rest is decoded as that
// record's bytes, as a damaged or hostile index would hold them. Besides
// crashes, hangs and unbounded allocations it checks the contract: a
// record that decodes encodes to bytes that decode and encode to the same
// bytes (compared as bytes: a NaN fpr is not equal to itself).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "index/record_codec.h"
#include "index/records.h"

namespace {

template <class Record>
void RoundTrip(std::string_view bytes) {
  Record record;
  if (!leakhound::DecodeRecord(bytes, &record).ok()) return;
  const std::string encoded = leakhound::EncodeRecord(record);
  Record again;
  if (!leakhound::DecodeRecord(encoded, &again).ok() ||
      leakhound::EncodeRecord(again) != encoded) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1,
                               size - 1);
  switch (data[0] % 8) {
    case 0: RoundTrip<leakhound::MetadataRecord>(bytes); break;
    case 1: RoundTrip<leakhound::StateRecord>(bytes); break;
    case 2: RoundTrip<leakhound::DocumentRecord>(bytes); break;
    case 3: RoundTrip<leakhound::FingerprintsRecord>(bytes); break;
    case 4: RoundTrip<leakhound::RowRecord>(bytes); break;
    case 5: RoundTrip<leakhound::AllowRecord>(bytes); break;
    case 6: RoundTrip<leakhound::LocationRecord>(bytes); break;
    default: RoundTrip<leakhound::CountBucketRecord>(bytes); break;
  }
  return 0;
}
