# Interface targets carrying the language level and warning flags; every
# leakhound target links one of them instead of setting global flags.
option(LEAKHOUND_WERROR "Treat warnings as errors" ON)
set(_leakhound_warnings
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
  -Wcast-align -Wunused -Woverloaded-virtual -Wnull-dereference
  -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough
  $<$<BOOL:${LEAKHOUND_WERROR}>:-Werror>
  # GCC 12 at -O3 reports std::string concatenation as an overlapping
  # memcpy (GCC bug 105329, a false positive fixed in GCC 13).
  $<$<AND:$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>
  # Clang checks the ABSL_GUARDED_BY annotations.
  $<$<CXX_COMPILER_ID:Clang>:-Wthread-safety>)

# Product code: everything, including integer-conversion warnings.
add_library(leakhound_warnings INTERFACE)
target_compile_features(leakhound_warnings INTERFACE cxx_std_20)
# Under clang a thread-safety finding fails the build, LEAKHOUND_WERROR or
# not: CI's sanitizer stage is the clang build that enforces it
# (.ci/thread_safety_check.py proves the flags are in force there).
target_compile_options(leakhound_warnings INTERFACE
  ${_leakhound_warnings} -Wconversion -Wsign-conversion
  $<$<CXX_COMPILER_ID:Clang>:-Werror=thread-safety>)

# Tests and benchmarks: the same minus the integer-conversion warnings,
# which test arithmetic on counts and indices trips constantly.
add_library(leakhound_test_warnings INTERFACE)
target_compile_features(leakhound_test_warnings INTERFACE cxx_std_20)
target_compile_options(leakhound_test_warnings INTERFACE ${_leakhound_warnings})

# AddressSanitizer + UndefinedBehaviorSanitizer for every leakhound target
# (docs/reliability.md): any finding stops the program. Third-party
# libraries (RocksDB, ICU, ...) are Debian's, not instrumented.
option(LEAKHOUND_SANITIZE "Build with AddressSanitizer and UBSan" OFF)
if(LEAKHOUND_SANITIZE)
  set(_leakhound_sanitizers
    -fsanitize=address,undefined -fno-sanitize-recover=all
    -fno-omit-frame-pointer)
  foreach(_target leakhound_warnings leakhound_test_warnings)
    target_compile_options(${_target} INTERFACE ${_leakhound_sanitizers})
    target_link_options(${_target} INTERFACE ${_leakhound_sanitizers})
  endforeach()
endif()
