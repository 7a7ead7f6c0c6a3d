// ProtectedIndex: the protected set, durable. Joins the shingler (text to
// fingerprints), the pseudo-matrix (the filter, in memory) and the index
// store (RocksDB on disk): adding a document shingles it, packs its
// fingerprints into rows and commits the document, its fingerprint list and
// every row it changed in one atomic batch; removal and compaction rebuild
// only the rows concerned, from the stored fingerprint lists; opening loads
// the row index and the row bits without re-hashing anything.
//
// A writer (OpenMode::kWrite) holds the index's writer lock for its
// lifetime. Readers (OpenMode::kRead) never block it; Refresh picks up what
// it committed.
//
// Thread-safety: const methods (and the static Prepare) may run
// concurrently; Add, Stage, Commit, Remove, Compact and Refresh need
// exclusive access. If a commit fails the object refuses
// further changes (its memory may be ahead of the disk): reopen the index.
#ifndef LEAKHOUND_ENGINE_PROTECTED_INDEX_H_
#define LEAKHOUND_ENGINE_PROTECTED_INDEX_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "engine/document_cache.h"
#include "engine/document_frequency.h"
#include "engine/filter/bloom_geometry.h"
#include "engine/filter/pseudo_matrix.h"
#include "engine/id_catalog.h"
#include "engine/matrix_records.h"
#include "engine/protected_locations.h"
#include "engine/protected_sources.h"
#include "engine/record_tables.h"
#include "index/index_batch.h"
#include "index/index_store.h"
#include "index/io_faults.h"
#include "index/records.h"
#include "shingler/fingerprint_key.h"
#include "shingler/shingler.h"

namespace leakhound {

struct IndexOptions {
  ShinglerOptions shingler;
  FilterParams filter;
  PackingMode packing = PackingMode::kPseudoMatrix;
  // Rows per row group, the filter's second level (PseudoMatrixOptions::
  // group_rows): twice the filter's memory and disk for queries that read
  // rows only in groups that could hold a match. 0: one level. Worth it
  // from about 10,000 rows; below, opening and adding cost more than the
  // queries save (measured: docs/engine.md, "Row groups").
  uint32_t group_rows = 0;
  // The fingerprint key. Unset (the default, and what `leakhound init`
  // does): a fresh key from the kernel's CSPRNG. Set it only where runs
  // must repeat bit for bit (the evaluation): whoever knows the key can
  // test a guessed text against the index's fingerprints.
  std::optional<FingerprintKey> key;
  // Where the key is kept: "" for DIR/key; else an absolute path outside
  // the index folder (`init --key-file`), so that a copy of the index
  // cannot test guesses (index/key_file.h).
  std::string key_file;
};

// kRebuild: the writer lock and the records of an index that may have
// been built by an older shingler version, for rebuilding it from its
// documents' sources (`leakhound rekey`); it refuses every change.
enum class OpenMode { kWrite, kRead, kRebuild };

// A document to protect. `text` is its extracted UTF-8 text; it is
// shingled and digested, never stored.
struct DocumentInput {
  std::string external_id;
  std::string source;
  std::vector<std::string> labels;
  std::string_view text;
  // Whether a stored document of this id from another source may be
  // replaced (an id the admin chose: `add --id`, a console upload). Else
  // such a replacement is refused with AlreadyExists naming both sources,
  // so that two files that happen to share an id never take turns.
  bool replace_other_source = false;
  // Its sensitivity labels (docs/labels.md): replace the stored ones when
  // given; none keeps them.
  std::vector<LabelRecord> sensitivity = {};
};

enum class AddOutcome {
  kAdded,             // a new document
  kReplaced,          // the id existed with other content; replaced
  kUnchanged,         // the id existed with this very content; nothing done
  kDuplicateContent,  // this content is indexed under another id; not added
};

// A document shingled and digested, ready to stage (ProtectedIndex::
// Prepare). Holds no reference to the text.
struct PreparedDocument {
  std::string external_id;
  std::string source;
  std::vector<std::string> labels;
  std::vector<LabelRecord> sensitivity;  // as DocumentInput's
  std::string digest;  // ContentDigest of the text
  uint64_t bytes = 0;  // of the text
  uint32_t occurrences = 0;        // shingles of the text
  std::vector<uint64_t> distinct;  // DistinctFingerprints of its list
  std::vector<uint64_t> filter;    // FilterFingerprints of its list
  std::string encoded_list;        // its FingerprintsRecord, encoded
  bool replace_other_source = false;  // as DocumentInput's
  // When it was added (Unix ms); 0: when it is staged. A rebuild (`rekey`)
  // keeps the original time.
  int64_t added_unix_ms = 0;
  // Set (ProtectedIndex::Rename): the id of the stored document this one
  // is, under a new id; it replaces that document, whatever its source.
  std::optional<std::string> renames;
};

struct AddResult {
  AddOutcome outcome = AddOutcome::kAdded;
  std::string existing_id;     // for kDuplicateContent: the id holding it
  uint32_t fingerprints = 0;   // distinct fingerprints stored in the filter
  uint32_t rows_written = 0;   // rows the commit rewrote
  // Labels of the input the stored document did not have: a replacement
  // and an unchanged document keep their labels and gain these (only
  // `label remove` and a source's declaration take labels away).
  std::vector<std::string> labels_added;
};

struct AllowResult {
  AddOutcome outcome = AddOutcome::kAdded;  // never kDuplicateContent
  uint32_t fingerprints = 0;                // distinct fingerprints allowed
};

class ProtectedIndex {
 public:
  ProtectedIndex(const ProtectedIndex&) = delete;
  ProtectedIndex& operator=(const ProtectedIndex&) = delete;

  // Creates an index in `dir` (must not exist or be empty) with a fresh
  // fingerprint key. Returns it open for writing.
  static absl::StatusOr<std::unique_ptr<ProtectedIndex>> Create(
      const std::string& dir, const IndexOptions& options);

  // Opens an index: FailedPrecondition when it was built by another
  // shingler version (but with kRebuild) or storage format (the message
  // says which and what to do), when another writer holds it (kWrite,
  // kRebuild), or as IndexStore::Open.
  static absl::StatusOr<std::unique_ptr<ProtectedIndex>> Open(
      const std::string& dir, OpenMode mode);
  // For fault-injection tests only: Open over
  // IndexStore::OpenWithFaults(`faults`).
  static absl::StatusOr<std::unique_ptr<ProtectedIndex>> OpenWithFaults(
      const std::string& dir, OpenMode mode, IoFaults* faults);

  // Adds (or replaces, by external id) one document and commits it.
  // InvalidArgument for an empty external id or a text the shingler
  // refuses; AlreadyExists when the id is held by a document of another
  // source and `replace_other_source` is not set. Commits whatever was staged
  // before it too.
  absl::StatusOr<AddResult> Add(const DocumentInput& document);

  // Shingles and digests a document for Stage. `shingler` must come from
  // NewShingler (or be this index's): thread-safe as long as each thread
  // passes its own shingler. Errors as Add's.
  static absl::StatusOr<PreparedDocument> Prepare(
      Shingler& shingler, const DocumentInput& document);

  // Add without the commit: the document joins the pending batch, which
  // the next Commit (or Add, Remove, Compact or allow-list change) makes
  // durable and visible in one synced write; until then a crash or the
  // object's destruction loses it, and readers do not see it. A document
  // whose id or text is pending, or which replaces a stored one, commits
  // the pending batch first. kUnchanged and kDuplicateContent stage
  // nothing.
  absl::StatusOr<AddResult> Stage(PreparedDocument document);
  // Commits the pending batch (no-op when empty). On failure the pending
  // documents are lost and the object refuses further changes.
  absl::Status Commit();
  // Documents staged and not yet committed.
  size_t pending() const { return pending_ids_.size(); }

  // Removes a document by external id (NotFound if unknown), rebuilding
  // only the rows that held it.
  absl::StatusOr<RebuildStats> Remove(std::string_view external_id);

  // Repacks rows filled below `underfill` x fill target, commits the
  // rebuilt rows in one batch, then compacts RocksDB's files.
  absl::StatusOr<RebuildStats> Compact(double underfill = 0.5);

  // Adds (or replaces) the allow-list entry `name`: the fingerprints of
  // `text` stop counting toward any match. Commits with the next
  // generation, so readers pick it up on Refresh. InvalidArgument for an
  // empty name or a text without words.
  absl::StatusOr<AllowResult> AddAllowed(std::string_view name,
                                         std::string_view source,
                                         std::string_view text);
  // NotFound if there is no entry `name`.
  absl::Status RemoveAllowed(std::string_view name);

  // Protects the URL and share-path prefixes `given`
  // (engine/protected_locations.h), in one commit with the next generation.
  // Returns each one's normalized key and whether it was new (false: it
  // was protected already). InvalidArgument naming the first location that
  // does not normalize; nothing is written then.
  absl::StatusOr<std::vector<std::pair<std::string, bool>>> AddLocations(
      std::span<const std::string> given);
  // Stops protecting the locations `given` (in any spelling that normalizes
  // to a protected key), in one commit. NotFound naming the first that is
  // not protected, InvalidArgument for one that does not normalize;
  // nothing is written then.
  absl::Status RemoveLocations(std::span<const std::string> given);
  // Every protected location: key and record, in key order.
  absl::StatusOr<std::vector<std::pair<std::string, LocationRecord>>>
  ListLocations() const;
  // The protected locations as of the last Open/Refresh and this object's
  // own changes.
  const ProtectedLocations& locations() const { return *locations_; }

  // The protected sources (engine/protected_sources.h), in name order.
  absl::StatusOr<std::vector<ProtectedSource>> ListSources() const;
  // Registers or replaces the source `name` (ValidSourceName), in one
  // commit with the next generation. Only the declaration: its documents
  // are added by the caller (`leakhound sync`).
  absl::Status PutSource(std::string_view name, const SourceRecord& record);
  // Forgets the source `name` (NotFound if there is none); its documents
  // stay.
  absl::Status RemoveSource(std::string_view name);
  // Sets the labels of document `external_id` (sorted, without repeats),
  // in one commit; returns whether they changed. NotFound for an unknown
  // id.
  absl::StatusOr<bool> SetLabels(std::string_view external_id,
                                 std::vector<std::string> labels);
  // Gives document `from` the id `to`, keeping its text's fingerprints,
  // source, labels and time added: staged like a replacement (its rows are
  // rewritten) and committed. NotFound for an unknown `from`,
  // AlreadyExists when `to` is held.
  absl::Status Rename(std::string_view from, std::string_view to);

  // Begins storing the protected table `name` with the columns and
  // settings of `shape` (its ids, counts and digest are set here): returns
  // the load to add its rows to, then CommitRecordTable. `replace`: the
  // table must exist (NotFound otherwise) and is replaced as a whole at
  // the commit; else it must not (AlreadyExists). Commits what is pending
  // and deletes what an interrupted load of the same table left.
  // REQUIRES: a writer; the load is used before any other change.
  absl::StatusOr<std::unique_ptr<RecordTableLoad>> BeginRecordTable(
      std::string_view name, RecordTableRecord shape, bool replace);
  // Names the table `load` wrote, deleting the generation it replaces, in
  // one commit with the next generation. Returns the table's record.
  absl::StatusOr<RecordTableRecord> CommitRecordTable(RecordTableLoad& load);
  // Deletes the protected table `name` and its cells in one commit.
  // NotFound if there is none.
  absl::Status RemoveRecordTable(std::string_view name);
  // The protected tables as of the last Open/Refresh and this object's own
  // changes. Shared: a scan keeps the tables it started with.
  std::shared_ptr<const RecordTables> record_tables() const {
    return record_tables_;
  }

  // Whether some allow-list entry holds `fingerprint` (as of the last
  // Open/Refresh and this object's own changes).
  bool IsAllowed(uint64_t fingerprint) const {
    return allowed_.contains(fingerprint);
  }
  // Distinct fingerprints the allow-list holds.
  size_t allowed_fingerprints() const { return allowed_.size(); }

  // A shingler that fingerprints text as this index does (its key and
  // options), for scanning: one per thread. Ownership passes to the caller;
  // it does not refer to the index.
  absl::StatusOr<std::unique_ptr<Shingler>> NewShingler() const;

  // Reader: reads the writer's committed generation and, when it is not
  // the one loaded, opens a fresh view and brings the filter to it (in
  // place, reading only the rows whose records changed, when it can:
  // rows_read()); returns whether it did. After an error, what is in memory may
  // be neither view: the next Refresh loads again whatever the generation (use
  // the object for nothing else meanwhile). Writer: returns false.
  // FailedPrecondition if the index was replaced as a whole (replaced()).
  absl::StatusOr<bool> Refresh();
  // Closes the database but keeps the writer lock until destruction, so
  // that another index can be swapped into the directory (`leakhound
  // rekey`) with no writer in between and nothing written into it by this
  // object. Afterwards only destruction is allowed.
  void CloseKeepingLock() { store_->CloseDatabase(); }
  // Whether the directory now holds another index (`leakhound rekey`):
  // open it again to see it.
  bool replaced() const { return store_->Replaced(); }
  // The options the index was created with, but its key: a rebuild with
  // these and a fresh key fingerprints text the same way under new seeds.
  IndexOptions options() const;

  // The state's generation as of the last Open or Refresh (a writer: its
  // last commit). Every commit of the writer (add, remove, compact,
  // allow-list change) increments it, so two readers of one index at the
  // same generation see the same documents.
  uint64_t generation() const { return state_.generation; }
  // Reader views found mixing two states and loaded again, since open.
  uint64_t torn_views() const { return torn_views_; }
  // Rows whose record and bits the last Open or Refresh read: every row,
  // or, when a reader caught up in place, only the rows a commit changed.
  uint64_t rows_read() const { return rows_read_; }

  // A document's external id and fingerprint list, through a cache shared
  // by every thread (document_cache.h). NotFound for an id the index does
  // not hold; store read errors.
  absl::StatusOr<std::shared_ptr<const StoredDocument>> ReadStoredDocument(
      uint32_t doc) const {
    return documents_->Get(doc);
  }

  // One page of the documents: up to `limit` with ids >= `first`, in id
  // order, read without walking the others.
  absl::StatusOr<std::vector<std::pair<uint32_t, DocumentRecord>>>
  DocumentsFrom(uint32_t first, size_t limit) const;

  // Up to `limit` documents whose external id contains `text`, in external
  // id order from the external id `from` (inclusive; "" for the first):
  // searched in a catalog of every external id (id_catalog.h) read on the
  // first search of each generation and kept until the next, then one read
  // per document found.
  absl::StatusOr<std::vector<std::pair<uint32_t, DocumentRecord>>>
  FindDocuments(std::string_view text, std::string_view from,
                size_t limit) const;

  // Every document in id order.
  absl::Status ForEachDocument(
      const std::function<absl::Status(uint32_t, const DocumentRecord&)>& fn)
      const;

  const PseudoMatrix& matrix() const { return *matrix_; }
  // Document frequencies as of the last Open/Refresh and this object's own
  // committed changes.
  const DocumentFrequency& frequency() const { return *frequency_; }
  const IndexStore& store() const { return *store_; }
  const MetadataRecord& metadata() const { return store_->metadata(); }
  const ShinglerOptions& shingler_options() const {
    return shingler_->options();
  }

 private:
  ProtectedIndex(std::unique_ptr<IndexStore> store,
                 std::unique_ptr<Shingler> shingler);
  // (Re)loads the filter from the store.
  absl::Status Load();
  // Reader: brings the filter loaded last up to the store's state in place,
  // reading only the rows whose records changed (LoadChangedRows). nullopt,
  // with nothing changed, where a whole Load is the better way. After an
  // error the filter may be part old, part new: Load it whole.
  absl::StatusOr<std::optional<RowChanges>> LoadChanges();
  // The allow-list, the locations and the shared document frequencies.
  absl::Status LoadSideTables();
  absl::Status LoadAllowList();
  absl::Status LoadLocations();
  // For a location change: checks the writer, commits what is pending and
  // returns the protected keys.
  absl::StatusOr<absl::flat_hash_set<std::string>> BeginLocationChange();
  // Commits the change with the next generation and reloads the locations.
  absl::Status CommitLocationChange(IndexBatch& batch);
  absl::Status CheckWritable() const;
  // What Stage finds in the store for a document.
  struct StagePlan {
    std::optional<AddResult> done;  // set: stage nothing, return this
    std::optional<DocId> old_id;    // set: the document it replaces
    DocumentRecord old;             // old_id's (or relabel_id's) record
    // Set with `done` (kUnchanged): the document gains labels_added.
    std::optional<DocId> relabel_id;
  };
  // For a PreparedDocument that renames `from`: sets plan.old_id and
  // plan.old to it, after committing what is pending. NotFound if none.
  absl::Status PlanRename(std::string_view from, StagePlan& plan);
  // Everything Stage reads before it changes anything: a document with
  // this id and content (kUnchanged) or this content under another id
  // (kDuplicateContent), or the document it replaces, after committing
  // what is pending. Errors: store reads, ids used up, a list too long.
  absl::StatusOr<StagePlan> PlanStage(const PreparedDocument& document);
  // Adds the record, list and id maps of document `id`, just added to the
  // matrix with `fingerprints` fingerprints, to the pending batch.
  void PendDocument(DocId id, uint32_t fingerprints, PreparedDocument document);
  // Load; a reader also checks that its view is one state of the index
  // (ViewIsWhole) and, if not, reopens the store and loads again: up to 20
  // times, or 3 while the committed generation does not move. A view
  // still torn is DataLoss (or Load's error).
  absl::Status LoadConsistent();
  // Reader, after Load: whether the view is one state of the index. The
  // row table must have the digest the state records; the documents it
  // names must have records whose ids map back to them, and the count of
  // records must match (the first view; afterwards only the documents of
  // rows changed since the last whole view). Remembers the row hashes of
  // a whole view. Errors: store reads.
  // `patched`: what LoadChanges changed, if it made this view.
  absl::StatusOr<bool> ViewIsWhole(const RowChanges* patched);
  // Commits batch + the next state; on failure the object turns read-only.
  absl::Status CommitWithState(IndexBatch& batch, uint32_t next_doc_id);

  std::unique_ptr<IndexStore> store_;
  std::unique_ptr<Shingler> shingler_;
  std::unique_ptr<PseudoMatrix> matrix_;
  std::unique_ptr<DocumentFrequency> frequency_;
  std::unique_ptr<DocumentCache> documents_;
  absl::flat_hash_set<uint64_t> allowed_;  // union of the allow-list
  std::unique_ptr<ProtectedLocations> locations_;
  std::shared_ptr<const RecordTables> record_tables_ =
      std::make_shared<const RecordTables>();
  // The pending batch (Stage): its writes, the rows it changed, its ids
  // and digests, and the next document id.
  IndexBatch pending_;
  std::set<uint32_t> pending_rows_;
  absl::flat_hash_set<std::string> pending_ids_, pending_digests_;
  uint32_t pending_next_id_ = 0;
  StateRecord state_;
  // Reader: the matrix the current load replaces, until the view is
  // checked (ViewIsWhole reads the segments of changed rows from it); and
  // the RowHash of each row of the last view found whole, when its state
  // recorded a digest.
  std::unique_ptr<PseudoMatrix> previous_;
  std::optional<std::vector<uint64_t>> row_hashes_;
  // Reader: the hashes of the row records the filter was loaded from
  // (IndexStore::ForEachRowIfChanged); empty when it must be loaded whole.
  std::vector<uint64_t> record_hashes_;
  uint64_t rows_read_ = 0;
  // FindDocuments' catalog of external ids, of generation
  // catalog_generation_.
  mutable absl::Mutex catalog_mu_;
  mutable std::shared_ptr<const IdCatalog> catalog_
      ABSL_GUARDED_BY(catalog_mu_);
  mutable uint64_t catalog_generation_ ABSL_GUARDED_BY(catalog_mu_) = 0;
  uint64_t torn_views_ = 0;
  bool loaded_ = true;  // false after a Refresh failed, until one succeeds
  bool broken_ = false;
  bool rebuild_only_ = false;  // opened with OpenMode::kRebuild
};

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_PROTECTED_INDEX_H_
