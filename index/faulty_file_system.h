// FaultyFileSystem: the file system under an index's RocksDB database when
// the store was opened with IoFaults (io_faults.h): the default one, except
// that each file operation first asks the plan whether to fail. Included
// only by this module's .cc files.
//
// Thread-safety: as RocksDB's file systems: thread-safe.
#ifndef LEAKHOUND_INDEX_FAULTY_FILE_SYSTEM_H_
#define LEAKHOUND_INDEX_FAULTY_FILE_SYSTEM_H_

#include <memory>

#include "index/io_faults.h"

namespace rocksdb {
class Env;
}  // namespace rocksdb

namespace leakhound {

// An Env for rocksdb::DBOptions::env whose file system consults `faults`.
// `faults` must outlive the Env, and the Env the database.
std::unique_ptr<rocksdb::Env> NewFaultyEnv(IoFaults& faults);

}  // namespace leakhound

#endif  // LEAKHOUND_INDEX_FAULTY_FILE_SYSTEM_H_
