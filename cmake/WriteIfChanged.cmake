# mcdose_write_if_changed(PATH TEXT): write TEXT to PATH unless PATH already holds it, so that a
# generated source whose text is unchanged recompiles and relinks nothing.
function(mcdose_write_if_changed path text)
  set(_old "")
  if(EXISTS "${path}")
    file(READ "${path}" _old)
  endif()
  if(NOT _old STREQUAL text)
    file(WRITE "${path}" "${text}")
  endif()
endfunction()
