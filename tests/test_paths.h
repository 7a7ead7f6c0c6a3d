// Where the tests find what they were built with: the source tree, the
// leakhound binary, and the fixture folders CTest fixtures fill in the
// build tree.
//
// Defined in test_paths.cc, which CMake writes into the build tree
// (tests/test_paths.cc.in), instead of as compile definitions: a test
// source then compiles to the same object in any clone, and ccache shares
// it between clones (cmake/LeakhoundCompilerCache.cmake).
//
// Thread-safety: constants.
#ifndef LEAKHOUND_TESTS_TEST_PATHS_H_
#define LEAKHOUND_TESTS_TEST_PATHS_H_

namespace leakhound::test_paths {

// The source tree (absolute).
extern const char kSourceDir[];
// The leakhound command built beside the tests.
extern const char kBinary[];
// make_format_fixtures.sh's folder (CTest fixture format_fixtures).
extern const char kFormatFixtures[];
// make_legacy_fixtures.py's folder (CTest fixture legacy_fixtures).
extern const char kLegacyFixtures[];
// prepare_corpora.sh's folder (CTest fixture eval_corpus).
extern const char kEvalCorpus[];
// postgres_cluster.py's private cluster (CTest fixture postgres_cluster):
// its data, log and unix socket.
extern const char kPostgresCluster[];

}  // namespace leakhound::test_paths

#endif  // LEAKHOUND_TESTS_TEST_PATHS_H_
