// PostgresTestDatabase: a fresh, empty PostgreSQL database for one test, in
// the test run's private cluster (tests/postgres_cluster.py, CTest fixture
// postgres_cluster), dropped when the object goes away. A test binary run
// outside CTest starts a private cluster of its own on first use and stops
// it at exit.
//
// Thread-safety: one owner.
#ifndef LEAKHOUND_TESTS_POSTGRES_TEST_DATABASE_H_
#define LEAKHOUND_TESTS_POSTGRES_TEST_DATABASE_H_

#include <string>

namespace leakhound {

class PostgresTestDatabase {
 public:
  PostgresTestDatabase();  // aborts when no cluster can be had
  ~PostgresTestDatabase();
  PostgresTestDatabase(const PostgresTestDatabase&) = delete;
  PostgresTestDatabase& operator=(const PostgresTestDatabase&) = delete;

  // The libpq URI of the database.
  const std::string& uri() const { return uri_; }
  // The cluster's folder (socket, data, server.log).
  static std::string ClusterDir();

 private:
  std::string name_;
  std::string uri_;
};

// A libpq URI of database `name` in the cluster at `dir`.
std::string PostgresUri(const std::string& dir, const std::string& name);
// Runs `sql` on the `postgres` database of the cluster at `dir`; false and
// the server's message in `error` on failure.
bool PostgresAdmin(const std::string& dir, const std::string& sql,
                   std::string* error);

}  // namespace leakhound

#endif  // LEAKHOUND_TESTS_POSTGRES_TEST_DATABASE_H_
