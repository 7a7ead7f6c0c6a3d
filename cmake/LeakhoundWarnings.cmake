# Interface target carrying the language level and warning flags; every
# leakhound target links it instead of setting global flags.
add_library(leakhound_warnings INTERFACE)
target_compile_features(leakhound_warnings INTERFACE cxx_std_20)
target_compile_options(leakhound_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
  -Wcast-align -Wunused -Woverloaded-virtual -Wconversion -Wsign-conversion
  -Wnull-dereference -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough
  $<$<BOOL:${LEAKHOUND_WERROR}>:-Werror>)
option(LEAKHOUND_WERROR "Treat warnings as errors" ON)
