# MCPL (Monte Carlo Particle Lists; Kittelmann et al., Comput. Phys. Commun. 218
# (2017) 17; Debian libmcpl-dev): phase-space files read as a source and written
# from a run (io/McplFile.cc). Optional: without it a phase-space study stops
# with an error naming this option.
find_path(MCPL_INCLUDE_DIR mcpl.h)
find_library(MCPL_LIBRARY mcpl)
set(_mcpl_default OFF)
if(MCPL_INCLUDE_DIR AND MCPL_LIBRARY)
  set(_mcpl_default ON)
endif()
option(MCDOSE_USE_MCPL "Read and write MCPL phase-space files (ON when libmcpl is found)"
  ${_mcpl_default})
if(MCDOSE_USE_MCPL)
  if(NOT (MCPL_INCLUDE_DIR AND MCPL_LIBRARY))
    message(FATAL_ERROR "MCDOSE_USE_MCPL is ON but mcpl.h / libmcpl were not found: "
      "install libmcpl-dev (Debian) or set MCPL_INCLUDE_DIR and MCPL_LIBRARY")
  endif()
  add_library(mcdose_mcpl_external UNKNOWN IMPORTED)
  set_target_properties(mcdose_mcpl_external PROPERTIES
    IMPORTED_LOCATION ${MCPL_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${MCPL_INCLUDE_DIR})
  message(STATUS "MCPL phase-space files: ${MCPL_LIBRARY}")
else()
  message(STATUS "MCPL phase-space files: off (install libmcpl-dev and set -DMCDOSE_USE_MCPL=ON)")
endif()
