// Step 10 with another associative operator: the same single-pass kernel, instantiated for
// reduction::Sum, Max and Min. For the operator tests and the command line's --op.
#pragma once

#include "operators.h"
#include "step_api.h"

#include <cstddef>
#include <cstdint>

namespace reduction {

// step10::reduce_op<Op, T> for the operator `op`, with the same arguments and scratch as
// step10::reduce (scratch_bytes of the step10 StepApi). Instantiated for std::int32_t,
// std::uint32_t, std::uint8_t, float and double.
template <class T>
ReduceFn<T> step10_reduce_for(OpKind op);

}  // namespace reduction
