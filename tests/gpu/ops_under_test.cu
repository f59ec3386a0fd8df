// The step's reduce_op<Op, T> for Max and Min, for the operator tests (ops_tests.cpp), which
// step_tests.cmake compiles into the test program of every step that has reduce_op. The sum is the one
// step_under_test.cu instantiates: each kernel is compiled once per test program.
#include "step_under_test.h"

#include REDUCTION_STEP_HEADER

namespace reduction::test {

const StepOps& step_ops_under_test() {
    static const StepOps ops = {step_under_test(), step_api<REDUCTION_STEP_NS::Entry, Max>(),
                                step_api<REDUCTION_STEP_NS::Entry, Min>()};
    return ops;
}

}  // namespace reduction::test
