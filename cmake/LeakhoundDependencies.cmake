# Finds the Debian 12 packages leakhound builds against (installed by
# cmake/install_deps.sh). Each module links only what it uses.
find_package(ICU 72 REQUIRED COMPONENTS uc i18n)
find_package(absl REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash>=0.8.1)
find_package(Threads REQUIRED)
if(LEAKHOUND_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
if(LEAKHOUND_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
