# -DFTMPI_SANITIZE=address,undefined (any -fsanitize= list): every target of the project is
# compiled and linked with those sanitizers. UBSan halts at the first finding
# (-fno-sanitize-recover), so a CI run under it fails instead of printing and passing.
# tools/test-sanitizers.sh builds this way and runs the test suite; .ci/run calls it.
set(FTMPI_SANITIZE "" CACHE STRING "sanitizers for ftmpi's own code, e.g. address,undefined (empty: none)")

if(FTMPI_SANITIZE)
  # -O1 -g1 (line tables) rather than the default -O2 -g: what the sanitizers' manuals advise
  # for readable reports, and a third less compile time for CI's second build (api_p2p.cpp
  # 19 -> 12 s); stack traces keep function, file and line. An explicit build type keeps its own.
  if(CMAKE_BUILD_TYPE STREQUAL "RelWithDebInfo")
    foreach(lang C CXX)
      set(CMAKE_${lang}_FLAGS_RELWITHDEBINFO "-O1 -g1 -DNDEBUG")
    endforeach()
  endif()
  add_compile_options(-fsanitize=${FTMPI_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${FTMPI_SANITIZE})
endif()
