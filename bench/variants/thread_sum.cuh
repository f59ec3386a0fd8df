// One thread's share of the input, added in registers: the grid-stride loop of step 09, which step
// 10 kept unchanged (16-byte vector loads, four in flight, a scalar head and tail for any
// alignment). The steps write it inside their kernels, where nothing else can call it; the
// variants that need it with another ending (the last-ticket block, the PDL kernel) call it here,
// so that this is the loop's only copy outside the steps. The same additions in the same order as
// the steps, so the same partial per block.
#pragma once

#include "step09_vector_loads/reduce.cuh"

#include <cstddef>

namespace variants {

template <unsigned int Block, class T>
__device__ __forceinline__ T thread_sum(const T* in, std::size_t n) {
    using step09::Vector;
    using step09::loads_per_iteration;
    const unsigned int tid = threadIdx.x;
    T sum = T(0);
    // in[0, head) scalar | vectors of width elements, 16-byte aligned | in[tail_begin, n) scalar
    const std::size_t head = step09::head_elements(in, n);
    const std::size_t vectors = (n - head) / Vector<T>::width;
    const std::size_t tail_begin = head + vectors * Vector<T>::width;
    const Vector<T>* body = reinterpret_cast<const Vector<T>*>(in + head);
    // 64-bit index: blockIdx.x * blockDim.x overflows 32 bits once n passes 2^32
    const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * Block + tid;
    if (thread < head) sum += in[thread];                        // fewer than 16 elements each:
    if (thread < n - tail_begin) sum += in[tail_begin + thread];  // the first threads of block 0
    const std::size_t tile = loads_per_iteration * Block;  // vectors a block covers per iteration
    const std::size_t grid_stride = static_cast<std::size_t>(gridDim.x) * tile;
    std::size_t i = static_cast<std::size_t>(blockIdx.x) * tile + tid;
    for (; i + (loads_per_iteration - 1) * Block < vectors; i += grid_stride) {  // whole tiles: no bounds checks
        Vector<T> loaded[loads_per_iteration];
#pragma unroll
        for (unsigned int k = 0; k < loads_per_iteration; ++k) loaded[k] = step09::load_vector(body + i + k * Block);
#pragma unroll
        for (unsigned int k = 0; k < loads_per_iteration; ++k)  // adds only after every load is issued
#pragma unroll
            for (unsigned int w = 0; w < Vector<T>::width; ++w) sum += loaded[k].lane[w];
    }
#pragma unroll
    for (unsigned int k = 0; k < loads_per_iteration; ++k) {  // the one tile of this thread that crosses the end
        if (i + k * Block < vectors) {
            const Vector<T> loaded = step09::load_vector(body + i + k * Block);
#pragma unroll
            for (unsigned int w = 0; w < Vector<T>::width; ++w) sum += loaded.lane[w];
        }
    }
    return sum;
}

}  // namespace variants
