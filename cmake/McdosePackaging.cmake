# Relocatable bundle: `cmake --install build --prefix DIR` (or `cpack` for a TGZ)
# gives DIR/bin/mcdose plus every non-glibc shared library it needs under DIR/lib,
# all found through the $ORIGIN/../lib RPATH. The CUDA driver (libcuda) and the
# CUDA toolkit libraries are *not* bundled: the target machine provides them.
install(TARGETS mcdose RUNTIME DESTINATION bin)

# With MCDOSE_INSTALL_TESTS the test executables go to tests/ in the bundle, so the
# GPU tests can run on a machine that has the driver but none of the -dev packages:
#   for t in bundle/tests/test_*; do MCDOSE_EXE=bundle/bin/mcdose $t; done
option(MCDOSE_INSTALL_TESTS "Install the test executables into the bundle (tests/)" OFF)
set(_bundle_executables "\${CMAKE_INSTALL_PREFIX}/bin/mcdose")
get_property(_test_targets GLOBAL PROPERTY MCDOSE_TEST_TARGETS)
if(MCDOSE_INSTALL_TESTS AND _test_targets)
  install(TARGETS ${_test_targets} RUNTIME DESTINATION tests)
  foreach(_t IN LISTS _test_targets)
    list(APPEND _bundle_executables "\${CMAKE_INSTALL_PREFIX}/tests/${_t}")
  endforeach()
endif()
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/plot_dose.py DESTINATION bin OPTIONAL)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION share/mcdose/examples)
# The reference cases of `mcdose validate` (case.json, study, reference, provenance) and its
# plotting script, so that a bundle validates itself on the machine it is copied to.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/validation/ DESTINATION share/mcdose/validation
  FILES_MATCHING PATTERN "case.json" PATTERN "study.json" PATTERN "reference_*.csv"
  PATTERN "README.md" PATTERN "plot_validation.py")

install(CODE "set(_bundle_executables \"${_bundle_executables}\")")
install(CODE [[
  file(GET_RUNTIME_DEPENDENCIES
    EXECUTABLES ${_bundle_executables}
    RESOLVED_DEPENDENCIES_VAR _resolved
    UNRESOLVED_DEPENDENCIES_VAR _unresolved
    PRE_EXCLUDE_REGEXES
      "^ld-linux" "^libc\\.so" "^libm\\.so" "^libdl\\.so" "^libpthread\\.so"
      "^librt\\.so" "^libutil\\.so" "^libresolv\\.so" "^libcuda\\.so"
      "^libnvidia" "^libcublas" "^libcudart" "^libcurand"
    POST_EXCLUDE_REGEXES "^/lib64/ld-linux" ".*/libc\\.so.*" ".*/libcuda\\.so.*"
      "/usr/local/cuda.*")
  foreach(_lib IN LISTS _resolved)
    file(INSTALL "${_lib}" DESTINATION "${CMAKE_INSTALL_PREFIX}/lib"
         FOLLOW_SYMLINK_CHAIN)
  endforeach()
  if(_unresolved)
    message(WARNING "mcdose bundle: unresolved libraries: ${_unresolved}")
  endif()
]])

set(CPACK_GENERATOR TGZ)
set(CPACK_PACKAGE_NAME mcdose)
set(CPACK_PACKAGE_FILE_NAME "mcdose-${PROJECT_VERSION}-Linux-x86_64")
set(CPACK_STRIP_FILES ON)
include(CPack)
