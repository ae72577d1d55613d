# ccache, when installed, for C and C++ (tools/deps.sh installs it): CI builds the whole tree
# twice per run (normal and sanitized) from a fresh clone, ~20 of its minutes on 2 cores; with
# the cache a rebuild of unchanged sources is a lookup. Clones sit at different paths, so the
# cache keys use paths relative to the source tree (CCACHE_BASEDIR) and not the build
# directory's (CCACHE_NOHASHDIR: debug info may then name the directory of the clone that
# filled the cache, which only a debugger notices). -DFTMPI_CCACHE=OFF turns it off; a
# launcher the user set (CMAKE_<LANG>_COMPILER_LAUNCHER) is kept.
option(FTMPI_CCACHE "compile through ccache when it is installed" ON)

if(FTMPI_CCACHE)
  find_program(FTMPI_CCACHE_PROGRAM ccache)
  if(FTMPI_CCACHE_PROGRAM)
    foreach(lang C CXX)
      if(NOT CMAKE_${lang}_COMPILER_LAUNCHER)
        set(CMAKE_${lang}_COMPILER_LAUNCHER
            ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${CMAKE_SOURCE_DIR} CCACHE_NOHASHDIR=1
            ${FTMPI_CCACHE_PROGRAM})
      endif()
    endforeach()
  endif()
endif()
