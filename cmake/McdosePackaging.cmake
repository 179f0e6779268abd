# Relocatable bundle: `cmake --install build --prefix DIR` (or `cpack` for a TGZ)
# gives DIR/bin/mcdose plus every non-glibc shared library it needs under DIR/lib,
# all found through the $ORIGIN/../lib RPATH. The CUDA driver (libcuda) and the
# CUDA toolkit libraries are *not* bundled: the target machine provides them.
install(TARGETS mcdose RUNTIME DESTINATION bin)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/plot_dose.py DESTINATION bin OPTIONAL)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION share/mcdose/examples)

install(CODE [[
  file(GET_RUNTIME_DEPENDENCIES
    EXECUTABLES "${CMAKE_INSTALL_PREFIX}/bin/mcdose"
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
