#include "tests/postgres_test_database.h"

#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "tests/test_paths.h"

namespace leakhound {
namespace {

// A cluster this process started (none under CTest's fixture).
class OwnCluster {
 public:
  explicit OwnCluster(std::string dir) : dir_(std::move(dir)) {}
  ~OwnCluster() {
    Script("stop");
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  bool Start() { return Script("start") == 0; }
  const std::string& dir() const { return dir_; }

 private:
  int Script(const char* verb) const {
    const std::string command =
        std::string("/usr/bin/python3 ") + test_paths::kSourceDir +
        "/tests/postgres_cluster.py " + verb + " " + dir_ + " >/dev/null";
    return std::system(command.c_str());
  }
  std::string dir_;
};

std::string Cluster() {
  const std::string shared = test_paths::kPostgresCluster;
  if (std::filesystem::exists(shared + "/.s.PGSQL.5432")) return shared;
  static std::unique_ptr<OwnCluster> own;
  if (own == nullptr) {
    std::string dir = (std::filesystem::temp_directory_path() /
                       ("leakhound-pg-" + std::to_string(::getpid())))
                          .string();
    own = std::make_unique<OwnCluster>(dir);
    if (!own->Start()) {
      std::fprintf(stderr, "cannot start a PostgreSQL cluster in %s\n",
                   dir.c_str());
      std::abort();
    }
  }
  return own->dir();
}

}  // namespace

std::string PostgresUri(const std::string& dir, const std::string& name) {
  return "postgresql:///" + name + "?host=" + dir + "&port=5432&user=postgres";
}

bool PostgresAdmin(const std::string& dir, const std::string& sql,
                   std::string* error) {
  PGconn* conn = PQconnectdb(PostgresUri(dir, "postgres").c_str());
  bool ok = PQstatus(conn) == CONNECTION_OK;
  if (ok) {
    PGresult* r = PQexec(conn, sql.c_str());
    ok = PQresultStatus(r) == PGRES_COMMAND_OK ||
         PQresultStatus(r) == PGRES_TUPLES_OK;
    PQclear(r);
  }
  if (!ok && error != nullptr) *error = PQerrorMessage(conn);
  PQfinish(conn);
  return ok;
}

std::string PostgresTestDatabase::ClusterDir() { return Cluster(); }

PostgresTestDatabase::PostgresTestDatabase() {
  static std::atomic<int> next{0};
  name_ =
      "lh_test_" + std::to_string(::getpid()) + "_" + std::to_string(next++);
  std::string error;
  if (!PostgresAdmin(Cluster(), "CREATE DATABASE " + name_, &error)) {
    std::fprintf(stderr, "cannot create database %s: %s\n", name_.c_str(),
                 error.c_str());
    std::abort();
  }
  uri_ = PostgresUri(Cluster(), name_);
}

PostgresTestDatabase::~PostgresTestDatabase() {
  PostgresAdmin(Cluster(), "DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)",
                nullptr);
}

}  // namespace leakhound
