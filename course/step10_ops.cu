#include "step10_ops.h"

#include "step10_single_pass/reduce.cuh"

namespace reduction {

template <class T>
ReduceFn<T> step10_reduce_for(OpKind op) {
    switch (op) {
        case OpKind::sum: return &step10::reduce_op<Sum, T>;
        case OpKind::max: return &step10::reduce_op<Max, T>;
        case OpKind::min: return &step10::reduce_op<Min, T>;
    }
    return nullptr;  // not reached: every OpKind is listed
}

template ReduceFn<std::int32_t> step10_reduce_for<std::int32_t>(OpKind);
template ReduceFn<std::uint32_t> step10_reduce_for<std::uint32_t>(OpKind);
template ReduceFn<std::uint8_t> step10_reduce_for<std::uint8_t>(OpKind);
template ReduceFn<float> step10_reduce_for<float>(OpKind);
template ReduceFn<double> step10_reduce_for<double>(OpKind);

}  // namespace reduction
