# reduction_add_help_test(<step folder>): the test <tag>_help, labels host and <tag>: the step's program
# links and starts, GPU or not (--help). The host part of tools/grade runs the tests labelled host and
# <tag>; the course tree and an assignment both register this one here, so that the step's host part
# scores the same checks in either. Needs no Catch2: registered before the tests that do.
include_guard(GLOBAL)

function(reduction_add_help_test step)
  string(SUBSTRING "${step}" 0 6 tag)
  add_test(NAME ${tag}_help COMMAND ${step} --help)
  set_tests_properties(${tag}_help PROPERTIES LABELS "host;${tag}")
endfunction()
