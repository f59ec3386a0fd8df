# The course's steps from course/steps.csv (its header says what each column means), as lists in
# the course's order, one entry per row: REDUCTION_STEP_FOLDERS, and REDUCTION_STEP_KIND,
# REDUCTION_STEP_PREVIOUS, REDUCTION_STEP_API and REDUCTION_STEP_SPEED_AT ("-" where the manifest
# leaves it empty: CMake lists drop empty entries); REDUCTION_STEPS, the folders of kind single, and
# REDUCTION_MULTI_GPU_STEPS, those of kind multi_gpu.
# reduction_step_field(<folder> <KIND|PREVIOUS|API|SPEED_AT> <var>) looks one up ("" for "-").
# reduction_use_previous_step(<target> <folder>) compiles <target> against the step that <folder>'s row
# names as previous (a multi-GPU step runs it on every GPU).
# REDUCTION_STEPS_CSV names another manifest.
# DIRECTORY, not GLOBAL: the lists are variables of the folder that includes this file (and those below it), so
# a folder that did not inherit them reads them again: an assignment's top level, after its step's folder.
include_guard(DIRECTORY)
set(REDUCTION_COURSE_ROOT ${CMAKE_CURRENT_LIST_DIR}/..)  # holds the step folders (a course, or an assignment)

if(NOT REDUCTION_STEPS_CSV)
  get_filename_component(REDUCTION_STEPS_CSV ${CMAKE_CURRENT_LIST_DIR}/../course/steps.csv ABSOLUTE)
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${REDUCTION_STEPS_CSV})

# Only the first five columns are read: they hold no comma or quote. A `;` in the change column
# splits its line into two list entries; the second never starts like a row.
file(STRINGS ${REDUCTION_STEPS_CSV} _rows REGEX "^step")
foreach(_list FOLDERS KIND PREVIOUS API SPEED_AT)
  set(REDUCTION_STEP_${_list})
endforeach()
set(REDUCTION_STEPS)
set(REDUCTION_MULTI_GPU_STEPS)
foreach(_row IN LISTS _rows)
  if(NOT _row MATCHES "^(step[0-9][0-9]_[a-z0-9_]+),(single|multi_gpu),(step[0-9][0-9]_[a-z0-9_]+|),(sum|op),([0-9]*),")
    if(_row MATCHES "^step[0-9][0-9]_[a-z0-9_]+,")
      message(FATAL_ERROR "${REDUCTION_STEPS_CSV}: a malformed row: ${_row}")
    endif()
    continue()  # the tail of a change text after a `;`
  endif()
  list(APPEND REDUCTION_STEP_FOLDERS ${CMAKE_MATCH_1})
  set(_index 2)
  foreach(_list KIND PREVIOUS API SPEED_AT)
    set(_value "${CMAKE_MATCH_${_index}}")
    if(_value STREQUAL "")
      set(_value -)
    endif()
    list(APPEND REDUCTION_STEP_${_list} ${_value})
    math(EXPR _index "${_index} + 1")
  endforeach()
  if(CMAKE_MATCH_2 STREQUAL "single")
    list(APPEND REDUCTION_STEPS ${CMAKE_MATCH_1})
  else()
    list(APPEND REDUCTION_MULTI_GPU_STEPS ${CMAKE_MATCH_1})
  endif()
endforeach()
if(NOT REDUCTION_STEP_FOLDERS)
  message(FATAL_ERROR "${REDUCTION_STEPS_CSV} lists no step")
endif()

function(reduction_step_field folder field var)
  list(FIND REDUCTION_STEP_FOLDERS ${folder} index)
  if(index LESS 0)
    message(FATAL_ERROR "${folder} is not a row of ${REDUCTION_STEPS_CSV}")
  endif()
  list(GET REDUCTION_STEP_${field} ${index} value)
  if(value STREQUAL "-")
    set(value "")
  endif()
  set(${var} "${value}" PARENT_SCOPE)
endfunction()

# The previous step's header and namespace as REDUCTION_PREVIOUS_STEP_HEADER and REDUCTION_PREVIOUS_STEP_NS
# (step15_multi_gpu/reduce.cuh reads them), its folder found from the course's root: the manifest, not the
# step's source, says which step a multi-GPU step runs on each GPU.
function(reduction_use_previous_step target folder)
  reduction_step_field(${folder} PREVIOUS previous)
  if(NOT previous)
    message(FATAL_ERROR "${folder}: its row of ${REDUCTION_STEPS_CSV} names no previous step to run on each GPU")
  endif()
  string(SUBSTRING "${previous}" 0 6 tag)
  target_include_directories(${target} PRIVATE ${REDUCTION_COURSE_ROOT})
  target_compile_definitions(${target} PRIVATE REDUCTION_PREVIOUS_STEP_HEADER="${previous}/reduce.cuh"
                                               REDUCTION_PREVIOUS_STEP_NS=${tag})
endfunction()
