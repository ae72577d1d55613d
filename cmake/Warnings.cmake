# Warnings for the project's own code: every target defined below the top-level CMakeLists
# (libraries, daemon, tools, tests) compiles with -Wall -Wextra, and -Werror unless a user
# with a newer compiler turns it off (-DFTMPI_WERROR=OFF). Third-party headers (libfabric,
# PMIx, hwloc, Catch2) come in as SYSTEM include directories, so their warnings stay out.
option(FTMPI_WERROR "treat compiler warnings in ftmpi's own code as errors" ON)

add_compile_options(
  "$<$<COMPILE_LANGUAGE:C,CXX>:-Wall;-Wextra>"
  "$<$<AND:$<COMPILE_LANGUAGE:C,CXX>,$<BOOL:${FTMPI_WERROR}>>:-Werror>")
