// Step 11's reduce_op<Op, T> for Sum, Max and Min, for its operator tests (step11_ops_tests.cpp).
// step_tests.cmake compiles every tests/gpu/<tag>_*.cpp and <tag>_*.cu into that tag's program.
#include "step_under_test.h"

#include REDUCTION_STEP_HEADER

namespace reduction::test {

const StepOps& step_ops_under_test() {
    static const StepOps ops = REDUCTION_STEP_OPS(REDUCTION_STEP_NS);
    return ops;
}

}  // namespace reduction::test
