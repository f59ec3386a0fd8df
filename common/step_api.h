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

// One element type's functions of a step, built once where the step is named (step_api): a run turns --type into a
// template type once (dispatch_type) and then only asks typed<T>(step), never the run-time type again.
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

// Element type T's functions of the step whose Entry (the struct at the end of its reduce.cuh) is given: its run
// and scratch on the kernel type K = kernel_type_t<T, Op>.
template <class Entry, class Op, class T>
constexpr TypedFns<T> typed_fns_of() {
    using K = kernel_type_t<T, Op>;
    return typed_fns<T, K, &Entry::template run<Op, K>, &Entry::template scratch<K>>();
}

// The StepApi of a step for operator Op, from its Entry: e.g. step_api<step04::Entry>(), its sum.
template <class Entry, class Op = Sum>
StepApi step_api() {
    return {Entry::step_name, Entry::step_change, &Entry::depth, typed_fns_of<Entry, Op, std::int32_t>(),
            typed_fns_of<Entry, Op, float>(), typed_fns_of<Entry, Op, double>()};
}

// Sum, max and min of a step with operators (Entry::has_operators), e.g. step_ops<step11::Entry>().
template <class Entry>
StepOps step_ops() {
    static_assert(Entry::has_operators, "max and min from step11_any_operator on");
    return {step_api<Entry, Sum>(), step_api<Entry, Max>(), step_api<Entry, Min>()};
}
}  // namespace reduction
