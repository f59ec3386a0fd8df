# Run by ctest as the one test of a build configured without Catch2: fails with the reason, so
# that "run the tests" never reports success when no test could be built.
#   cmake -DREASON=... -P tests_unavailable.cmake
message(FATAL_ERROR "No tests were built: ${REASON}. Install Catch2 (apt-get install catch2) or allow network access for the fetch, then configure again.")
