# ccache as the compiler launcher when it is installed (cmake/install_deps.sh
# installs it): a machine that has built leakhound before, in any clone,
# compiles again only what changed (docs/reliability.md#ci-time).
#   base_dir = the source tree: the absolute paths CMake passes (sources,
#     include directories) are hashed relative to it, so two clones in
#     different folders share their objects;
#   hash_dir off: a -g build (the sanitizer stage's line tables) does not
#     hash the build directory either; its debug information keeps the
#     compilation directory of the build that filled the cache, and names
#     sources relative to it.
# Set CMAKE_CXX_COMPILER_LAUNCHER yourself, or -DLEAKHOUND_CCACHE=OFF, to
# build without it.
option(LEAKHOUND_CCACHE "Compile through ccache when it is installed" ON)
if(LEAKHOUND_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(LEAKHOUND_CCACHE_PROGRAM ccache)
  if(LEAKHOUND_CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER
      ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}
        CCACHE_NOHASHDIR=1 ${LEAKHOUND_CCACHE_PROGRAM})
    message(STATUS "Compiling through ${LEAKHOUND_CCACHE_PROGRAM}")
  endif()
endif()
