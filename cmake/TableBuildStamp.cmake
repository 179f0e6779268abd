# Writes OUT (a C++ file defining TableBuildStamp, transport/engine/TableBuildStamp.hh): the
# SHA-256 over FILES ('|'-separated, relative to SOURCE_DIR; each file's path and SHA-256),
# XRAYLIB_VERSION and COMPILER. Run by the build whenever one of FILES changes; the file is
# rewritten only when its text changes, so an edit elsewhere relinks nothing.
string(REPLACE "|" ";" _files "${FILES}")
list(SORT _files)
set(_manifest "")
foreach(_f IN LISTS _files)
  file(SHA256 "${SOURCE_DIR}/${_f}" _h)
  string(APPEND _manifest "${_f} ${_h}\n")
endforeach()
string(SHA256 _code "${_manifest}")
string(REPLACE "\"" "\\\"" _compiler "${COMPILER}")
set(_text "//! \\file transport/engine/TableBuildStamp.cc (generated at build time by cmake/TableBuildStamp.cmake)
#include \"transport/engine/TableBuildStamp.hh\"

namespace mcdose
{
char const* const TableBuildStamp::code_sha256 = \"${_code}\";
char const* const TableBuildStamp::xraylib_version = \"${XRAYLIB_VERSION}\";
char const* const TableBuildStamp::compiler = \"${_compiler}\";
}  // namespace mcdose
")
include(${CMAKE_CURRENT_LIST_DIR}/WriteIfChanged.cmake)
mcdose_write_if_changed("${OUT}" "${_text}")
