# -DFTMPI_SANITIZE=address,undefined (any -fsanitize= list): every target of the project is
# compiled and linked with those sanitizers. UBSan halts at the first finding
# (-fno-sanitize-recover), so a CI run under it fails instead of printing and passing.
# tools/test-sanitizers.sh builds this way and runs the test suite; .ci/run calls it.
set(FTMPI_SANITIZE "" CACHE STRING "sanitizers for ftmpi's own code, e.g. address,undefined (empty: none)")

if(FTMPI_SANITIZE)
  add_compile_options(-fsanitize=${FTMPI_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${FTMPI_SANITIZE})
endif()
