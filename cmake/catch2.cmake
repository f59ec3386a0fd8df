# Catch2 for the tests: the system's (v2 or v3) when find_package finds it, otherwise v3 fetched
# from GitHub (FetchContent's FIND_PACKAGE_ARGS: find first, fetch only what is not found). Nothing
# but the tests needs it, so when neither works the course still configures and builds, and this
# prints one line saying why the tests are off and how to get Catch2.
#
# Sets REDUCTION_CATCH2_MISSING to that reason (empty when Catch2 is available as Catch2::Catch2).
set(REDUCTION_CATCH2_MISSING "")
set(REDUCTION_CATCH2_TAG v3.7.1)
set(REDUCTION_CATCH2_URL https://github.com/catchorg/Catch2.git)

include(FetchContent)
FetchContent_Declare(Catch2 GIT_REPOSITORY ${REDUCTION_CATCH2_URL} GIT_TAG ${REDUCTION_CATCH2_TAG} GIT_SHALLOW TRUE
                     FIND_PACKAGE_ARGS)

# A fetch that cannot work stops the whole configure with a clone error: when the package is not
# installed, find out first whether the fetch can work (the search is cached: MakeAvailable's own
# find_package repeats it at no cost).
find_package(Catch2 QUIET)
if(NOT Catch2_FOUND AND NOT FETCHCONTENT_SOURCE_DIR_CATCH2 AND NOT EXISTS "${FETCHCONTENT_BASE_DIR}/catch2-src/CMakeLists.txt")
  find_package(Git QUIET)
  if(FETCHCONTENT_FULLY_DISCONNECTED)
    set(REDUCTION_CATCH2_MISSING "Catch2 was not found and FETCHCONTENT_FULLY_DISCONNECTED forbids fetching it")
  elseif(NOT GIT_FOUND)
    set(REDUCTION_CATCH2_MISSING "Catch2 was not found and git, needed to fetch it, was not found")
  else()
    execute_process(COMMAND "${GIT_EXECUTABLE}" ls-remote --exit-code "${REDUCTION_CATCH2_URL}" "${REDUCTION_CATCH2_TAG}"
                    RESULT_VARIABLE _catch2_reachable OUTPUT_QUIET ERROR_QUIET TIMEOUT 30)
    if(NOT _catch2_reachable EQUAL 0)
      set(REDUCTION_CATCH2_MISSING "Catch2 was not found and ${REDUCTION_CATCH2_URL} cannot be reached")
    endif()
  endif()
endif()

if(REDUCTION_CATCH2_MISSING)
  message(NOTICE "Tests are off: ${REDUCTION_CATCH2_MISSING}. Install Catch2 (apt-get install catch2) or allow network access for the fetch, then configure again.")
else()
  FetchContent_MakeAvailable(Catch2)
  if(Catch2_FOUND)
    message(STATUS "Catch2 ${Catch2_VERSION} (from ${Catch2_DIR})")
  else()
    message(STATUS "Catch2 ${REDUCTION_CATCH2_TAG} (fetched from ${REDUCTION_CATCH2_URL})")
  endif()
endif()
