// The step's reduce_op<Op, T> for Sum, Max and Min, for the operator tests (ops_tests.cpp), which
// step_tests.cmake compiles into the test program of every step that has reduce_op.
#include "step_under_test.h"

#include REDUCTION_STEP_HEADER

namespace reduction::test {

const StepOps& step_ops_under_test() {
    static const StepOps ops = step_ops<REDUCTION_STEP_NS::Entry>();
    return ops;
}

}  // namespace reduction::test
