#include "index/record_codec.h"

#include <boost/archive/archive_exception.hpp>
#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_iarchive_impl.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/archive/impl/archive_serializer_map.ipp>
#include <boost/archive/impl/basic_binary_iarchive.ipp>
#include <boost/archive/impl/basic_binary_iprimitive.ipp>
#include <boost/serialization/split_free.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>
#include <boost/serialization/version.hpp>
#include <exception>
#include <limits>
#include <sstream>
#include <streambuf>
#include <utility>

#include "absl/strings/str_cat.h"

// PERSISTED: class versions. Bump one when its struct gains a field, and
// read the field only when `version` is at least the new value.
BOOST_CLASS_VERSION(leakhound::MetadataRecord, 3)
BOOST_CLASS_VERSION(leakhound::StateRecord, 2)
BOOST_CLASS_VERSION(leakhound::DocumentRecord, 2)
BOOST_CLASS_VERSION(leakhound::LabelRecord, 1)
BOOST_CLASS_VERSION(leakhound::FingerprintsRecord, 2)
BOOST_CLASS_VERSION(leakhound::SegmentRecord, 1)
BOOST_CLASS_VERSION(leakhound::RowRecord, 1)
BOOST_CLASS_VERSION(leakhound::AllowRecord, 1)
BOOST_CLASS_VERSION(leakhound::CountBucketRecord, 1)
BOOST_CLASS_VERSION(leakhound::LocationRecord, 1)
BOOST_CLASS_VERSION(leakhound::RecordColumnRecord, 2)
BOOST_CLASS_VERSION(leakhound::RecordTableRecord, 1)
BOOST_CLASS_VERSION(leakhound::FolderLabelsRecord, 1)
BOOST_CLASS_VERSION(leakhound::SourceRecord, 1)
BOOST_SERIALIZATION_SPLIT_FREE(leakhound::FingerprintsRecord)
BOOST_SERIALIZATION_SPLIT_FREE(leakhound::AllowRecord)
BOOST_SERIALIZATION_SPLIT_FREE(leakhound::CountBucketRecord)

namespace leakhound {
namespace {

// Thrown (and caught in this file) when a record names a class version this
// binary does not know: a newer leakhound wrote it.
struct UnknownVersion : std::exception {
  const char* what() const noexcept override { return "unknown version"; }
};
void RequireVersion(unsigned version, unsigned max) {
  if (version < 1 || version > max) throw UnknownVersion();
}

// --- The fingerprint blob: per occurrence, the fingerprint as 8 bytes
// little-endian, then LEB128 varints: zigzag(token_begin - previous
// token_begin), token_end - token_begin, zigzag(byte_begin - previous
// byte_begin), byte_end - byte_begin.

void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t UnZigZag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

struct CorruptBlob : std::exception {
  const char* what() const noexcept override { return "corrupt blob"; }
};

class BlobReader {
 public:
  explicit BlobReader(std::string_view in) : in_(in) {}
  bool done() const { return pos_ == in_.size(); }
  uint64_t Fixed64() {
    if (in_.size() - pos_ < 8) throw CorruptBlob();
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) {
      v = (v << 8) | static_cast<uint8_t>(in_[pos_ + static_cast<size_t>(i)]);
    }
    pos_ += 8;
    return v;
  }
  uint64_t Varint() {
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      if (pos_ == in_.size()) throw CorruptBlob();
      const auto byte = static_cast<uint8_t>(in_[pos_++]);
      v |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) return v;
    }
    throw CorruptBlob();
  }
  uint32_t U32(uint64_t v) {
    if (v > std::numeric_limits<uint32_t>::max()) throw CorruptBlob();
    return static_cast<uint32_t>(v);
  }
  // `previous` plus a zigzag-coded delta, which must land in [0, 2^32).
  uint32_t Delta32(uint32_t previous) {
    const int64_t delta = UnZigZag(Varint());
    if (delta < -int64_t{previous} ||
        delta > int64_t{std::numeric_limits<uint32_t>::max()} - previous) {
      throw CorruptBlob();
    }
    return static_cast<uint32_t>(previous + delta);
  }
  // `begin` plus a length, which must land in [begin, 2^32).
  uint32_t Length32(uint32_t begin) {
    const uint64_t length = Varint();
    if (length > std::numeric_limits<uint32_t>::max() - begin) {
      throw CorruptBlob();
    }
    return static_cast<uint32_t>(begin + length);
  }

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

std::string EncodeOccurrences(const std::vector<Occurrence>& list) {
  std::string out;
  out.reserve(list.size() * 14);
  int64_t token = 0, byte = 0;
  for (const Occurrence& o : list) {
    for (int i = 0; i < 8; ++i) {
      out.push_back(static_cast<char>(o.fingerprint >> (8 * i)));
    }
    PutVarint(out, ZigZag(int64_t{o.token_begin} - token));
    PutVarint(out, o.token_end - o.token_begin);
    PutVarint(out, ZigZag(int64_t{o.byte_begin} - byte));
    PutVarint(out, o.byte_end - o.byte_begin);
    token = o.token_begin;
    byte = o.byte_begin;
  }
  return out;
}

std::vector<Occurrence> DecodeOccurrences(std::string_view blob,
                                          uint64_t count) {
  // Each occurrence takes at least 12 bytes: a corrupt count cannot make
  // this allocate more than the blob justifies.
  if (count > blob.size() / 12) throw CorruptBlob();
  std::vector<Occurrence> list(count);
  BlobReader in(blob);
  uint32_t token = 0, byte = 0;
  for (Occurrence& o : list) {
    o.fingerprint = in.Fixed64();
    o.token_begin = token = in.Delta32(token);
    o.token_end = in.Length32(o.token_begin);
    o.byte_begin = byte = in.Delta32(byte);
    o.byte_end = in.Length32(o.byte_begin);
  }
  if (!in.done()) throw CorruptBlob();
  return list;
}

// --- A count bucket's blob: per entry, LEB128 varints: the fingerprint
// minus the previous entry's (the first: minus 0), then the count. Entries
// strictly ascend and every count is at least 1.

std::string EncodeCounts(const std::vector<FingerprintCount>& entries) {
  std::string out;
  out.reserve(entries.size() * 9);
  uint64_t previous = 0;
  for (const FingerprintCount& e : entries) {
    PutVarint(out, e.fingerprint - previous);
    PutVarint(out, e.documents);
    previous = e.fingerprint;
  }
  return out;
}

std::vector<FingerprintCount> DecodeCounts(std::string_view blob,
                                           uint64_t count) {
  // Every entry takes at least 2 bytes.
  if (count > blob.size() / 2) throw CorruptBlob();
  std::vector<FingerprintCount> entries(count);
  BlobReader in(blob);
  uint64_t previous = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t delta = in.Varint();
    if ((i > 0 && delta == 0) || delta > ~uint64_t{0} - previous) {
      throw CorruptBlob();
    }
    entries[i].fingerprint = previous + delta;
    entries[i].documents = in.U32(in.Varint());
    if (entries[i].documents == 0) throw CorruptBlob();
    previous = entries[i].fingerprint;
  }
  if (!in.done()) throw CorruptBlob();
  return entries;
}

constexpr auto kFlags = boost::archive::no_header | boost::archive::no_codecvt;

template <typename Record>
std::string Encode(const Record& record) {
  std::ostringstream stream;
  {
    boost::archive::binary_oarchive archive(stream, kFlags);
    archive << record;
  }
  return std::move(stream).str();
}

// The bytes of one record, read in place.
class RecordBuffer : public std::streambuf {
 public:
  explicit RecordBuffer(std::string_view bytes) {
    char* begin = const_cast<char*>(bytes.data());  // only ever read
    setg(begin, begin, begin + bytes.size());
  }
  size_t remaining() const { return static_cast<size_t>(egptr() - gptr()); }
};

class BoundedIArchive;

}  // namespace
}  // namespace leakhound

// Boost's constructor of the archive's primitive layer builds a locale
// with its null codecvt facet whether or not the archive uses it; with
// no_codecvt it never does, and building and freeing that locale was 13 to
// 19 % of the samples of opening an index of 816,000 documents (one
// archive per record). This one leaves that member the default locale,
// which nothing reads, and never imbues the stream; it is otherwise
// Boost's (basic_binary_iprimitive.ipp, Boost 1.74).
// REQUIRES: every BoundedIArchive is made with no_codecvt (kFlags).
template <>
boost::archive::basic_binary_iprimitive<
    leakhound::BoundedIArchive, char,
    std::char_traits<char>>::basic_binary_iprimitive(std::streambuf& sb,
                                                     bool /*no_codecvt*/)
    : m_sb(sb), codecvt_null_facet(1), locale_saver(m_sb), archive_locale() {}

namespace leakhound {
namespace {

// Boost's binary input archive, except that every length it reads (of a
// string, of a vector) must fit in the bytes left in the record: Boost
// sizes a string or vector before reading its contents, so a damaged length
// would otherwise be allocated (and zero-filled) first. The bytes it reads
// are exactly binary_iarchive's.
class BoundedIArchive
    : public boost::archive::binary_iarchive_impl<BoundedIArchive, char,
                                                  std::char_traits<char>> {
 public:
  explicit BoundedIArchive(RecordBuffer& buffer)
      : binary_iarchive_impl(buffer, kFlags), buffer_(buffer) {}

 private:
  friend class boost::archive::detail::interface_iarchive<BoundedIArchive>;
  friend class boost::archive::basic_binary_iarchive<BoundedIArchive>;
  friend class boost::archive::basic_binary_iprimitive<
      BoundedIArchive, char, std::char_traits<char>>;
  friend class boost::archive::load_access;
  using Impl = binary_iarchive_impl<BoundedIArchive, char,
                                    std::char_traits<char>>;

  template <class T>
  void load_override(T& t) {
    Impl::load_override(t);
  }
  void load_override(boost::serialization::collection_size_type& count) {
    Impl::load_override(count);
    if (static_cast<size_t>(std::as_const(count)) > buffer_.remaining()) {
      throw CorruptBlob();
    }
  }

  using Impl::load;
  void load(std::string& s) {
    std::size_t size = 0;
    load_binary(&size, sizeof size);
    if (size > buffer_.remaining()) throw CorruptBlob();
    s.resize(size);
    if (size > 0) load_binary(s.data(), size);
  }

  RecordBuffer& buffer_;
};

}  // namespace
}  // namespace leakhound

// binary_oarchive writes a vector of fixed-size values as its count and one
// block, without the item version other vectors carry: this archive must
// read them the same way (without this line it would expect the version).
BOOST_SERIALIZATION_USE_ARRAY_OPTIMIZATION(leakhound::BoundedIArchive)

namespace leakhound {
namespace {

template <typename Record>
absl::Status Decode(std::string_view bytes, Record* record,
                    const char* what) {
  try {
    RecordBuffer buffer(bytes);
    BoundedIArchive archive(buffer);
    archive >> *record;
    if (buffer.remaining() != 0) {
      return absl::DataLossError(
          absl::StrCat("corrupt ", what, " record: trailing bytes"));
    }
    return absl::OkStatus();
  } catch (const UnknownVersion&) {
    return absl::DataLossError(absl::StrCat(
        what, " record has a version this leakhound does not know "
              "(written by a newer leakhound?)"));
  } catch (const std::exception& e) {
    return absl::DataLossError(
        absl::StrCat("corrupt ", what, " record: ", e.what()));
  }
}

}  // namespace
}  // namespace leakhound

namespace boost::serialization {

template <class Archive>
void serialize(Archive& ar, leakhound::MetadataRecord& r, unsigned version) {
  leakhound::RequireVersion(version, 3);
  ar & r.format_version & r.shingler_version & r.unicode_version;
  ar & r.shingle_words & r.cjk_chars_per_word & r.winnow_window;
  ar & r.fpr & r.row_capacity & r.fill & r.bits & r.hashes & r.packing;
  ar & r.created_unix_ms;
  if (version >= 2) ar & r.group_rows;
  if (version >= 3) ar & r.filter_winnow_window;
}

template <class Archive>
void serialize(Archive& ar, leakhound::StateRecord& r, unsigned version) {
  leakhound::RequireVersion(version, 2);
  ar & r.next_doc_id & r.generation & r.open_row;
  if (version >= 2) {
    ar & r.rows_digest;
  } else {
    r.rows_digest = 0;  // (loading only: saving writes the current version)
  }
}

template <class Archive>
void serialize(Archive& ar, leakhound::LabelRecord& r, unsigned version) {
  leakhound::RequireVersion(version, 1);
  ar& r.id& r.name;
}

template <class Archive>
void serialize(Archive& ar, leakhound::DocumentRecord& r, unsigned version) {
  leakhound::RequireVersion(version, 2);
  ar & r.external_id & r.source & r.digest & r.bytes & r.fingerprints;
  ar & r.occurrences & r.rows & r.added_unix_ms & r.labels;
  if (version >= 2) ar& r.sensitivity;
}

template <class Archive>
void save(Archive& ar, const leakhound::FingerprintsRecord& r,
          unsigned /*version*/) {
  const uint64_t count = r.occurrences.size();
  const std::string blob = leakhound::EncodeOccurrences(r.occurrences);
  ar & count & blob & r.word_checks;
}

template <class Archive>
void load(Archive& ar, leakhound::FingerprintsRecord& r, unsigned version) {
  leakhound::RequireVersion(version, 2);
  uint64_t count = 0;
  std::string blob;
  ar & count & blob;
  r.occurrences = leakhound::DecodeOccurrences(blob, count);
  r.word_checks.clear();
  if (version >= 2) ar & r.word_checks;
}

template <class Archive>
void serialize(Archive& ar, leakhound::LocationRecord& r, unsigned version) {
  leakhound::RequireVersion(version, 1);
  ar & r.given & r.added_unix_ms;
}

template <class Archive>
void serialize(Archive& ar, leakhound::RecordColumnRecord& r,
               unsigned version) {
  leakhound::RequireVersion(version, 2);
  ar & r.name & r.type & r.role & r.max_words & r.pattern;
  if (version >= 2) {
    ar & r.region & r.held_regions & r.marks_folded;
  } else {
    r.region.clear();  // (loading only: saving writes the current version)
    r.held_regions.clear();
    r.marks_folded = false;
  }
}

template <class Archive>
void serialize(Archive& ar, leakhound::RecordTableRecord& r,
               unsigned version) {
  leakhound::RequireVersion(version, 1);
  ar& r.table_id& r.data_generation& r.source& r.columns& r.min_matches& r
      .proximity& r.date_order& r.delimiter& r.header& r.rows& r.skipped_rows& r
      .set_entries& r.sets_digest& r.added_unix_ms;
}

template <class Archive>
void serialize(Archive& ar, leakhound::FolderLabelsRecord& r,
               unsigned version) {
  leakhound::RequireVersion(version, 1);
  ar & r.folder & r.labels;
}

template <class Archive>
void serialize(Archive& ar, leakhound::SourceRecord& r, unsigned version) {
  leakhound::RequireVersion(version, 1);
  ar & r.root & r.labels & r.include & r.exclude & r.folder_labels &
      r.added_unix_ms;
}

template <class Archive>
void serialize(Archive& ar, leakhound::SegmentRecord& r, unsigned version) {
  leakhound::RequireVersion(version, 1);
  ar & r.doc & r.begin & r.end;
}

template <class Archive>
void serialize(Archive& ar, leakhound::RowRecord& r, unsigned version) {
  leakhound::RequireVersion(version, 1);
  ar & r.segments & r.fingerprints & r.bits_set;
}

// The fingerprints are one string of 8-byte little-endian values, so a
// corrupt record cannot claim more of them than its bytes hold.
template <class Archive>
void save(Archive& ar, const leakhound::AllowRecord& r, unsigned /*version*/) {
  std::string blob;
  blob.reserve(r.fingerprints.size() * 8);
  for (uint64_t fp : r.fingerprints) {
    for (unsigned i = 0; i < 8; ++i)
      blob.push_back(static_cast<char>(fp >> (8 * i)));
  }
  ar & r.source & r.digest & r.added_unix_ms & blob;
}

template <class Archive>
void load(Archive& ar, leakhound::AllowRecord& r, unsigned version) {
  leakhound::RequireVersion(version, 1);
  std::string blob;
  ar & r.source & r.digest & r.added_unix_ms & blob;
  if (blob.size() % 8 != 0) throw leakhound::CorruptBlob();
  leakhound::BlobReader in(blob);
  r.fingerprints.resize(blob.size() / 8);
  for (uint64_t& fp : r.fingerprints) fp = in.Fixed64();
}

template <class Archive>
void save(Archive& ar, const leakhound::CountBucketRecord& r,
          unsigned /*version*/) {
  const uint64_t count = r.entries.size();
  const std::string blob = leakhound::EncodeCounts(r.entries);
  ar & count & blob;
}

template <class Archive>
void load(Archive& ar, leakhound::CountBucketRecord& r, unsigned version) {
  leakhound::RequireVersion(version, 1);
  uint64_t count = 0;
  std::string blob;
  ar & count & blob;
  r.entries = leakhound::DecodeCounts(blob, count);
}

}  // namespace boost::serialization

// The archive's non-inline members, compiled here as Boost compiles them
// for binary_iarchive.
template class boost::archive::basic_binary_iprimitive<
    leakhound::BoundedIArchive, char, std::char_traits<char>>;
template class boost::archive::basic_binary_iarchive<
    leakhound::BoundedIArchive>;
template class boost::archive::detail::archive_serializer_map<
    leakhound::BoundedIArchive>;

namespace leakhound {

std::string EncodeRecord(const MetadataRecord& r) { return Encode(r); }
std::string EncodeRecord(const StateRecord& r) { return Encode(r); }
std::string EncodeRecord(const DocumentRecord& r) { return Encode(r); }
std::string EncodeRecord(const FingerprintsRecord& r) { return Encode(r); }
std::string EncodeRecord(const RowRecord& r) { return Encode(r); }
std::string EncodeRecord(const AllowRecord& r) { return Encode(r); }
std::string EncodeRecord(const LocationRecord& r) { return Encode(r); }
std::string EncodeRecord(const RecordTableRecord& r) { return Encode(r); }
std::string EncodeRecord(const CountBucketRecord& r) { return Encode(r); }
std::string EncodeRecord(const SourceRecord& r) { return Encode(r); }

absl::Status DecodeRecord(std::string_view b, MetadataRecord* r) {
  return Decode(b, r, "metadata");
}
absl::Status DecodeRecord(std::string_view b, StateRecord* r) {
  return Decode(b, r, "state");
}
absl::Status DecodeRecord(std::string_view b, DocumentRecord* r) {
  return Decode(b, r, "document");
}
absl::Status DecodeRecord(std::string_view b, FingerprintsRecord* r) {
  return Decode(b, r, "fingerprints");
}
absl::Status DecodeRecord(std::string_view b, RowRecord* r) {
  return Decode(b, r, "row");
}
absl::Status DecodeRecord(std::string_view b, AllowRecord* r) {
  return Decode(b, r, "allow-list");
}
absl::Status DecodeRecord(std::string_view b, LocationRecord* r) {
  return Decode(b, r, "location");
}
absl::Status DecodeRecord(std::string_view b, RecordTableRecord* r) {
  return Decode(b, r, "record table");
}
absl::Status DecodeRecord(std::string_view b, CountBucketRecord* r) {
  return Decode(b, r, "fingerprint count");
}
absl::Status DecodeRecord(std::string_view b, SourceRecord* r) {
  return Decode(b, r, "source");
}

}  // namespace leakhound
