# Helpers that give every mcdose library the same settings.
#
# mcdose_add_library(<name> SOURCES ... [CUDA_SOURCES ...] [DEPS ...] [PRIVATE_DEPS ...])
#   [SYSTEM_INCLUDES ...])
#   Creates mcdose_<name>. CUDA_SOURCES (.cu, launch code only) are compiled only
#   when MCDOSE_USE_CUDA is ON; otherwise the headers' inline fallbacks throw a
#   "built without CUDA" error.
function(mcdose_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;CUDA_SOURCES;DEPS;PRIVATE_DEPS;SYSTEM_INCLUDES" ${ARGN})
  set(_srcs ${ARG_SOURCES})
  if(MCDOSE_USE_CUDA)
    list(APPEND _srcs ${ARG_CUDA_SOURCES})
  endif()
  if(_srcs)
    add_library(mcdose_${name} STATIC ${_srcs})
    set(_scope PUBLIC)
  else()
    add_library(mcdose_${name} INTERFACE)
    set(_scope INTERFACE)
  endif()
  add_library(mcdose::${name} ALIAS mcdose_${name})
  target_include_directories(mcdose_${name} ${_scope}
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated>)
  target_link_libraries(mcdose_${name} ${_scope} ${ARG_DEPS})
  if(_srcs)
    # Private dependencies and third-party include paths only matter for
    # compiled sources (header-only folders get none).
    if(ARG_PRIVATE_DEPS)
      target_link_libraries(mcdose_${name} PRIVATE ${ARG_PRIVATE_DEPS})
    endif()
    if(ARG_SYSTEM_INCLUDES)
      target_include_directories(mcdose_${name} SYSTEM PRIVATE ${ARG_SYSTEM_INCLUDES})
    endif()
    set_target_properties(mcdose_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    if(MCDOSE_USE_CUDA)
      set_target_properties(mcdose_${name} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
    endif()
    target_compile_options(mcdose_${name} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter>)
  endif()
endfunction()
