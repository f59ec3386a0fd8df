// The one step this test binary checks, chosen at compile time (step_tests.cmake defines
// REDUCTION_STEP_HEADER, REDUCTION_STEP_NS and REDUCTION_STEP_TAG), so that a step can be tested
// with only its own folder and common/: no other step and no CUB are compiled in.
#pragma once

#include "step_api.h"

#include <cstddef>
#include <cstdint>

namespace reduction::test {

// The step's entry points for int32, float32 and float64, as the harness sees them.
const StepApi& step_under_test();

// The same kernels instantiated for one-byte elements (summed modulo 256): 2^32 + 17 of them fit
// in 4 GiB, so the past-2^32 indexing case runs on every GPU with 5 GiB free.
ReduceFn<std::uint8_t> step_reduce_uint8();
std::size_t step_scratch_bytes_uint8(std::size_t n, int block);

// Sum, max and min of a step whose operator is a template parameter (step11_any_operator on).
// Defined only in that step's test program, by tests/gpu/ops_under_test.cu; its sum is step_under_test()'s.
const StepOps& step_ops_under_test();

}  // namespace reduction::test
