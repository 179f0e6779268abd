# Writes OUT (a C++ file defining BuildInfo::git_describe) from `git describe` of SOURCE_DIR.
# Run at every build by the mcdose_git_describe target, so that the stamp in CLI output and
# result files names the tree that was built, not the one that was configured; the file is
# rewritten only when the description changes, so an unchanged tree relinks nothing.
set(_describe "unknown")
if(GIT_EXECUTABLE)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --tags
    WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE _out RESULT_VARIABLE _rc
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_rc EQUAL 0 AND _out)
    set(_describe "${_out}")
  endif()
endif()
set(_text "//! \\file core/GitDescribe.cc (generated at build time by cmake/GitDescribe.cmake)
#include \"core/Config.hh\"

namespace mcdose
{
char const* const BuildInfo::git_describe = \"${_describe}\";
}  // namespace mcdose
")
include(${CMAKE_CURRENT_LIST_DIR}/WriteIfChanged.cmake)
mcdose_write_if_changed("${OUT}" "${_text}")
