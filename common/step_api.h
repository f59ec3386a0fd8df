// How the harness, the tests and the comparison see a step: its names and its entry points,
// type-erased so that all steps fit in one table.
//
// Every step's reduce.cuh provides, in its own namespace (step01, step02, ...):
//   constexpr const char* name;      // the directory and target name, e.g. "step03_sequential"
//   constexpr const char* change;    // the one idea it adds, for tables
//   std::size_t scratch_elements(std::size_t n, int block);   // device scratch the caller provides
//   std::size_t addition_depth(std::size_t n, int block);     // longest chain of additions (tolerance)
//   template <class T> void reduce(const T* in, std::size_t n, T* out, T* scratch, int block,
//                                  cudaStream_t stream);
// reduce() sums in[0..n) into *out on the device: any n >= 1, no allocation, no host
// synchronisation, no copy, so that the caller can time it.
#pragma once

#include "element_type.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace reduction {

template <class T>
using ReduceFn = void (*)(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream);

struct StepApi {
    const char* name;
    const char* change;
    std::size_t (*scratch_bytes)(ElementType type, std::size_t n, int block);
    std::size_t (*addition_depth)(std::size_t n, int block);
    ReduceFn<std::int32_t> reduce_int32;
    ReduceFn<float> reduce_float32;
    ReduceFn<double> reduce_float64;
};

template <class T>
ReduceFn<T> reduce_fn(const StepApi& step) {
    if constexpr (std::is_same_v<T, std::int32_t>) return step.reduce_int32;
    else if constexpr (std::is_same_v<T, float>) return step.reduce_float32;
    else return step.reduce_float64;
}

}  // namespace reduction

// The StepApi of the step in namespace `ns`, e.g. REDUCTION_STEP_API(step01).
#define REDUCTION_STEP_API(ns)                                                                  \
    ::reduction::StepApi {                                                                      \
        ns::name, ns::change,                                                                   \
        [](::reduction::ElementType type, std::size_t n, int block) {                           \
            return ns::scratch_elements(n, block) * ::reduction::type_size(type);               \
        },                                                                                      \
        &ns::addition_depth, &ns::reduce<std::int32_t>, &ns::reduce<float>, &ns::reduce<double> \
    }
