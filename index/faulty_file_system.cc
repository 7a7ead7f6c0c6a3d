#include "index/faulty_file_system.h"

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>

#include <string>
#include <utility>

namespace leakhound {
namespace {

using rocksdb::DataVerificationInfo;
using rocksdb::FileOptions;
using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

IOStatus Injected(const char* what) {
  return IOStatus::IOError(std::string("injected I/O error: ") + what);
}

class FaultySequentialFile : public rocksdb::FSSequentialFileOwnerWrapper {
 public:
  FaultySequentialFile(std::unique_ptr<rocksdb::FSSequentialFile> file,
                       IoFaults& faults)
      : FSSequentialFileOwnerWrapper(std::move(file)), faults_(faults) {}

  IOStatus Read(size_t n, const IOOptions& options, Slice* result,
                char* scratch, IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kRead)) return Injected("read");
    return FSSequentialFileOwnerWrapper::Read(n, options, result, scratch, dbg);
  }
  IOStatus PositionedRead(uint64_t offset, size_t n, const IOOptions& options,
                          Slice* result, char* scratch,
                          IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kRead)) return Injected("read");
    return FSSequentialFileOwnerWrapper::PositionedRead(offset, n, options,
                                                        result, scratch, dbg);
  }

 private:
  IoFaults& faults_;
};

class FaultyRandomAccessFile
    : public rocksdb::FSRandomAccessFileOwnerWrapper {
 public:
  FaultyRandomAccessFile(std::unique_ptr<rocksdb::FSRandomAccessFile> file,
                         IoFaults& faults)
      : FSRandomAccessFileOwnerWrapper(std::move(file)), faults_(faults) {}

  IOStatus Read(uint64_t offset, size_t n, const IOOptions& options,
                Slice* result, char* scratch,
                IODebugContext* dbg) const override {
    if (faults_.ShouldFail(IoKind::kRead)) return Injected("read");
    return FSRandomAccessFileOwnerWrapper::Read(offset, n, options, result,
                                                scratch, dbg);
  }
  IOStatus MultiRead(rocksdb::FSReadRequest* requests, size_t count,
                     const IOOptions& options, IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kRead)) return Injected("read");
    return FSRandomAccessFileOwnerWrapper::MultiRead(requests, count, options,
                                                     dbg);
  }

 private:
  IoFaults& faults_;
};

class FaultyWritableFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  FaultyWritableFile(std::unique_ptr<rocksdb::FSWritableFile> file,
                     IoFaults& faults)
      : FSWritableFileOwnerWrapper(std::move(file)), faults_(faults) {}

  IOStatus Append(const Slice& data, const IOOptions& options,
                  IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kWrite)) return Injected("write");
    return FSWritableFileOwnerWrapper::Append(data, options, dbg);
  }
  IOStatus Append(const Slice& data, const IOOptions& options,
                  const DataVerificationInfo& info,
                  IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kWrite)) return Injected("write");
    return FSWritableFileOwnerWrapper::Append(data, options, info, dbg);
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset,
                            const IOOptions& options,
                            IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kWrite)) return Injected("write");
    return FSWritableFileOwnerWrapper::PositionedAppend(data, offset, options,
                                                        dbg);
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset,
                            const IOOptions& options,
                            const DataVerificationInfo& info,
                            IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kWrite)) return Injected("write");
    return FSWritableFileOwnerWrapper::PositionedAppend(data, offset, options,
                                                        info, dbg);
  }
  IOStatus Truncate(uint64_t size, const IOOptions& options,
                    IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kWrite)) return Injected("truncate");
    return FSWritableFileOwnerWrapper::Truncate(size, options, dbg);
  }
  IOStatus Allocate(uint64_t offset, uint64_t length, const IOOptions& options,
                    IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kWrite)) return Injected("allocate");
    return FSWritableFileOwnerWrapper::Allocate(offset, length, options, dbg);
  }
  IOStatus Flush(const IOOptions& options, IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kSync)) return Injected("flush");
    return FSWritableFileOwnerWrapper::Flush(options, dbg);
  }
  IOStatus Sync(const IOOptions& options, IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kSync)) return Injected("sync");
    return FSWritableFileOwnerWrapper::Sync(options, dbg);
  }
  IOStatus Fsync(const IOOptions& options, IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kSync)) return Injected("fsync");
    return FSWritableFileOwnerWrapper::Fsync(options, dbg);
  }
  IOStatus RangeSync(uint64_t offset, uint64_t length,
                     const IOOptions& options, IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kSync)) return Injected("range sync");
    return FSWritableFileOwnerWrapper::RangeSync(offset, length, options, dbg);
  }
  IOStatus Close(const IOOptions& options, IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kSync)) {
      // The descriptor is released all the same, as close(2) does.
      (void)FSWritableFileOwnerWrapper::Close(options, dbg);
      return Injected("close");
    }
    return FSWritableFileOwnerWrapper::Close(options, dbg);
  }

 private:
  IoFaults& faults_;
};

class FaultyDirectory : public rocksdb::FSDirectoryWrapper {
 public:
  FaultyDirectory(std::unique_ptr<rocksdb::FSDirectory> directory,
                  IoFaults& faults)
      : FSDirectoryWrapper(std::move(directory)), faults_(faults) {}

  IOStatus Fsync(const IOOptions& options, IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kSync)) return Injected("directory fsync");
    return FSDirectoryWrapper::Fsync(options, dbg);
  }
  IOStatus FsyncWithDirOptions(
      const IOOptions& options, IODebugContext* dbg,
      const rocksdb::DirFsyncOptions& dir_options) override {
    if (faults_.ShouldFail(IoKind::kSync)) return Injected("directory fsync");
    return FSDirectoryWrapper::FsyncWithDirOptions(options, dbg, dir_options);
  }

 private:
  IoFaults& faults_;
};

class FaultyFileSystem : public rocksdb::FileSystemWrapper {
 public:
  explicit FaultyFileSystem(IoFaults& faults)
      : FileSystemWrapper(rocksdb::FileSystem::Default()), faults_(faults) {}

  const char* Name() const override { return "LeakhoundFaultyFileSystem"; }

  IOStatus NewSequentialFile(const std::string& name,
                             const FileOptions& options,
                             std::unique_ptr<rocksdb::FSSequentialFile>* result,
                             IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kRead)) return Injected("open for reading");
    return Wrap<FaultySequentialFile>(
        target()->NewSequentialFile(name, options, result, dbg), result);
  }
  IOStatus NewRandomAccessFile(
      const std::string& name, const FileOptions& options,
      std::unique_ptr<rocksdb::FSRandomAccessFile>* result,
      IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kRead)) return Injected("open for reading");
    return Wrap<FaultyRandomAccessFile>(
        target()->NewRandomAccessFile(name, options, result, dbg), result);
  }
  IOStatus NewWritableFile(const std::string& name, const FileOptions& options,
                           std::unique_ptr<rocksdb::FSWritableFile>* result,
                           IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kMetadata)) return Injected("create");
    return Wrap<FaultyWritableFile>(
        target()->NewWritableFile(name, options, result, dbg), result);
  }
  IOStatus ReopenWritableFile(const std::string& name,
                              const FileOptions& options,
                              std::unique_ptr<rocksdb::FSWritableFile>* result,
                              IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kMetadata)) return Injected("reopen");
    return Wrap<FaultyWritableFile>(
        target()->ReopenWritableFile(name, options, result, dbg), result);
  }
  IOStatus ReuseWritableFile(const std::string& name,
                             const std::string& old_name,
                             const FileOptions& options,
                             std::unique_ptr<rocksdb::FSWritableFile>* result,
                             IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kMetadata)) return Injected("reuse");
    return Wrap<FaultyWritableFile>(
        target()->ReuseWritableFile(name, old_name, options, result, dbg),
        result);
  }
  IOStatus NewDirectory(const std::string& name, const IOOptions& options,
                        std::unique_ptr<rocksdb::FSDirectory>* result,
                        IODebugContext* dbg) override {
    return Wrap<FaultyDirectory>(
        target()->NewDirectory(name, options, result, dbg), result);
  }
  IOStatus RenameFile(const std::string& from, const std::string& to,
                      const IOOptions& options, IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kMetadata)) return Injected("rename");
    return target()->RenameFile(from, to, options, dbg);
  }
  IOStatus LinkFile(const std::string& from, const std::string& to,
                    const IOOptions& options, IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kMetadata)) return Injected("link");
    return target()->LinkFile(from, to, options, dbg);
  }
  IOStatus DeleteFile(const std::string& name, const IOOptions& options,
                      IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kMetadata)) return Injected("delete");
    return target()->DeleteFile(name, options, dbg);
  }
  IOStatus CreateDirIfMissing(const std::string& name,
                              const IOOptions& options,
                              IODebugContext* dbg) override {
    if (faults_.ShouldFail(IoKind::kMetadata)) return Injected("mkdir");
    return target()->CreateDirIfMissing(name, options, dbg);
  }

 private:
  // `s` and the file it opened, which is wrapped in a Faulty one if it was.
  template <class Faulty, class File>
  IOStatus Wrap(IOStatus s, std::unique_ptr<File>* file) {
    if (s.ok()) *file = std::make_unique<Faulty>(std::move(*file), faults_);
    return s;
  }

  IoFaults& faults_;
};

}  // namespace

std::unique_ptr<rocksdb::Env> NewFaultyEnv(IoFaults& faults) {
  return rocksdb::NewCompositeEnv(std::make_shared<FaultyFileSystem>(faults));
}

}  // namespace leakhound
