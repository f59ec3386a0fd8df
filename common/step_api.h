// A step's names and entry points, type-erased so that all steps fit in one table (contract: common/README.md).
#pragma once
#include "element_type.h"
#include "operators.h"
#include <cuda_runtime.h>

namespace reduction {
template <class T>
using ReduceFn = void (*)(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream);
// The type a kernel adds for elements of type T: the same type, except int32 -> uint32 (wraps, defined).
template <class T> using kernel_type_t = std::conditional_t<std::is_same_v<T, std::int32_t>, std::uint32_t, T>;
// ReduceFn<T> that runs `reduce` (a step's reduce<kernel_type_t<T>>) on the same bytes.
template <class T, ReduceFn<kernel_type_t<T>> reduce>
void reduce_as_kernel_type(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    using K = kernel_type_t<T>;
    static_assert(sizeof(K) == sizeof(T) && alignof(K) == alignof(T), "the kernel type must share T's layout");
    reduce(reinterpret_cast<const K*>(in), n, reinterpret_cast<K*>(out), reinterpret_cast<K*>(scratch), block, stream);
}

struct StepApi {
    const char* name;
    const char* change;
    std::size_t (*scratch_bytes)(ElementType type, std::size_t n, int block);
    std::size_t (*addition_depth)(std::size_t n, int block);
    ReduceFn<std::int32_t> reduce_int32;
    ReduceFn<float> reduce_float32;
    ReduceFn<double> reduce_float64;
};

// The int32 entry of a step with a template operator: a sum runs on uint32, max and min compare int32 itself.
template <class Op, ReduceFn<std::uint32_t> as_unsigned, ReduceFn<std::int32_t> as_signed>
constexpr ReduceFn<std::int32_t> int32_entry() {
    if constexpr (Op::kind == OpKind::sum) return &reduce_as_kernel_type<std::int32_t, as_unsigned>;
    else return as_signed;
}

// A step that takes the operator as a template parameter (reduce_op<Op, T>): one StepApi each.
struct StepOps {
    StepApi sum, max, min;
    const StepApi& for_op(OpKind op) const { return op == OpKind::max ? max : op == OpKind::min ? min : sum; }
};

template <class T>
ReduceFn<T> reduce_fn(const StepApi& step) {
    if constexpr (std::is_same_v<T, std::int32_t>) return step.reduce_int32;
    else if constexpr (std::is_same_v<T, float>) return step.reduce_float32;
    else return step.reduce_float64;
}
}  // namespace reduction

// The name, change, scratch_bytes (scratch_bytes<K>, K the kernel type of the type asked) and addition_depth of `ns`.
#define REDUCTION_STEP_HEAD(ns)                                                                                \
    ns::name, ns::change, [](::reduction::ElementType type, std::size_t n, int block) {                        \
        return ::reduction::dispatch_type(type, [&](auto zero) {                                               \
            return ns::scratch_bytes<::reduction::kernel_type_t<decltype(zero)>>(n, block);                    \
        });                                                                                                    \
    }, &ns::addition_depth

// The StepApi of the step in namespace `ns`, e.g. REDUCTION_STEP_API(step01).
#define REDUCTION_STEP_API(ns)                                                                                 \
    ::reduction::StepApi {                                                                                     \
        REDUCTION_STEP_HEAD(ns),                                                                               \
        &::reduction::reduce_as_kernel_type<std::int32_t, &ns::reduce<::reduction::kernel_type_t<std::int32_t>>>, \
        &ns::reduce<float>, &ns::reduce<double>                                                                \
    }

// The StepApi of step `ns` reducing with operator `Op` through its ns::reduce_op<Op, T>.
#define REDUCTION_STEP_API_OP(ns, Op)                                                                          \
    ::reduction::StepApi {                                                                                     \
        REDUCTION_STEP_HEAD(ns),                                                                               \
        ::reduction::int32_entry<Op, &ns::reduce_op<Op, std::uint32_t>, &ns::reduce_op<Op, std::int32_t>>(),   \
        &ns::reduce_op<Op, float>, &ns::reduce_op<Op, double>                                                  \
    }

// Sum, max and min of step `ns`, e.g. REDUCTION_STEP_OPS(step11).
#define REDUCTION_STEP_OPS(ns)                                                                                 \
    ::reduction::StepOps {                                                                                     \
        REDUCTION_STEP_API_OP(ns, ::reduction::Sum), REDUCTION_STEP_API_OP(ns, ::reduction::Max),             \
            REDUCTION_STEP_API_OP(ns, ::reduction::Min)                                                        \
    }
