// A step's names and entry points, type-erased so that all steps fit in one table (contract: common/README.md).
#pragma once
#include "element_type.h"
#include "operators.h"
#include <cuda_runtime.h>

namespace reduction {
template <class T>
using ReduceFn = void (*)(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream);
using ScratchFn = std::size_t (*)(std::size_t n, int block);

// The type a kernel computes in for elements of type T under operator Op: T itself, except an int32 sum, which runs
// on uint32 (its wrap-around is defined; int32's is not). The one place this choice is written.
template <class T, class Op = Sum>
using kernel_type_t = std::conditional_t<std::is_same_v<T, std::int32_t> && Op::kind == OpKind::sum, std::uint32_t, T>;

// ReduceFn<T> that runs `reduce` (a step's function on K, a type of T's layout) on the same bytes.
template <class T, class K, ReduceFn<K> reduce>
void reduce_as(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    static_assert(sizeof(K) == sizeof(T) && alignof(K) == alignof(T), "the kernel type must share T's layout");
    reduce(reinterpret_cast<const K*>(in), n, reinterpret_cast<K*>(out), reinterpret_cast<K*>(scratch), block, stream);
}

// One element type's functions of a step, built once where the step is named: a run turns --type into a template
// type once (dispatch_type) and then only asks typed<T>(step), never the run-time type again.
template <class T>
struct TypedFns {
    ReduceFn<T> reduce;
    ScratchFn scratch_bytes;  // bytes of zero-filled scratch reduce needs for (n, block)
};

// TypedFns<T> from a step's functions on its kernel type K (kernel_type_t<T, Op>).
template <class T, class K, ReduceFn<K> reduce, ScratchFn scratch_bytes>
constexpr TypedFns<T> typed_fns() {
    if constexpr (std::is_same_v<K, T>) return {reduce, scratch_bytes};
    else return {&reduce_as<T, K, reduce>, scratch_bytes};
}

struct StepApi {
    const char* name;
    const char* change;
    std::size_t (*addition_depth)(std::size_t n, int block);
    TypedFns<std::int32_t> int32;
    TypedFns<float> float32;
    TypedFns<double> float64;
};

template <class T>
const TypedFns<T>& typed(const StepApi& step) {
    if constexpr (std::is_same_v<T, std::int32_t>) return step.int32;
    else if constexpr (std::is_same_v<T, float>) return step.float32;
    else return step.float64;
}

// A step that takes the operator as a template parameter (reduce_op<Op, T>): one StepApi each.
struct StepOps {
    StepApi sum, max, min;
    const StepApi& for_op(OpKind op) const { return op == OpKind::max ? max : op == OpKind::min ? min : sum; }
};
}  // namespace reduction

// The TypedFns<T> of step `ns` for operator Op; __VA_ARGS__ is its reduce for the kernel type, written with K.
#define REDUCTION_TYPED_FNS(ns, T, Op, ...)                                                                     \
    [] {                                                                                                        \
        using K = ::reduction::kernel_type_t<T, Op>;                                                            \
        return ::reduction::typed_fns<T, K, __VA_ARGS__, &ns::scratch_bytes<K>>();                              \
    }()

// The StepApi of step `ns` for operator Op, its reduce for kernel type K given as __VA_ARGS__.
#define REDUCTION_STEP_API_WITH(ns, Op, ...)                                                                    \
    ::reduction::StepApi {                                                                                      \
        ns::name, ns::change, &ns::addition_depth, REDUCTION_TYPED_FNS(ns, std::int32_t, Op, __VA_ARGS__),      \
            REDUCTION_TYPED_FNS(ns, float, Op, __VA_ARGS__), REDUCTION_TYPED_FNS(ns, double, Op, __VA_ARGS__)   \
    }

// The StepApi of the step in namespace `ns`, e.g. REDUCTION_STEP_API(step01): its sum, ns::reduce<K>.
#define REDUCTION_STEP_API(ns) REDUCTION_STEP_API_WITH(ns, ::reduction::Sum, &ns::reduce<K>)

// The StepApi of step `ns` reducing with operator `Op` through its ns::reduce_op<Op, K>.
#define REDUCTION_STEP_API_OP(ns, Op) REDUCTION_STEP_API_WITH(ns, Op, &ns::reduce_op<Op, K>)

// Sum, max and min of step `ns`, e.g. REDUCTION_STEP_OPS(step11).
#define REDUCTION_STEP_OPS(ns)                                                                                  \
    ::reduction::StepOps {                                                                                      \
        REDUCTION_STEP_API_OP(ns, ::reduction::Sum), REDUCTION_STEP_API_OP(ns, ::reduction::Max),              \
            REDUCTION_STEP_API_OP(ns, ::reduction::Min)                                                         \
    }
