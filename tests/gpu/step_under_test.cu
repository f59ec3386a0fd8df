// Compiles the chosen step's reduce.cuh: its kernels are templates, instantiated here for every
// type the tests use.
#include "step_under_test.h"

#include REDUCTION_STEP_HEADER

namespace reduction::test {

const StepApi& step_under_test() {
    static const StepApi step = step_api<REDUCTION_STEP_NS::Entry>();
    return step;
}

ReduceFn<std::uint8_t> step_reduce_uint8() { return &REDUCTION_STEP_NS::reduce<std::uint8_t>; }

std::size_t step_scratch_bytes_uint8(std::size_t n, int block) { return REDUCTION_STEP_NS::scratch_bytes<std::uint8_t>(n, block); }

}  // namespace reduction::test
