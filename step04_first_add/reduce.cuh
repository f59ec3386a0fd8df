// Step 04 — first add during the global load: every thread adds two elements before the tree.
//
// What changed since step 03: a block of B threads now covers 2*B elements. Each thread loads
// in[i] and in[i + B] and stores their sum into shared memory, so the first round of the tree
// happens in registers, half as many blocks are launched, and no thread is idle after the load.
// The second load is guarded: if n is not a multiple of 2*B, the last block's upper half passes n.
//
// What to expect: close to twice step 03's bandwidth: the same tree work now covers twice the
// data. The block tree itself (log2(B) rounds, each behind a __syncthreads()) is the next cost.
#pragma once

#include "cuda_check.h"
#include "launch_math.h"
#include "shared_memory.cuh"

#include <cstddef>

namespace step04 {

inline constexpr const char* name = "step04_first_add";
inline constexpr const char* change = "two elements per thread, first add on load";

// Two elements per thread; one partial sum per block in partials[blockIdx.x].
template <class T>
__global__ void reduce_first_add_kernel(const T* in, std::size_t n, T* partials) {
    T* sdata = dynamic_shared<T>();
    const unsigned int tid = threadIdx.x;
    // 64-bit index: blockIdx.x * blockDim.x overflows 32 bits once n passes 2^32
    // solution-begin: the first add, during the load
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * (2 * blockDim.x) + tid;
    T sum = i < n ? in[i] : T(0);  // past the end, 0 changes no sum
    if (i + blockDim.x < n) sum += in[i + blockDim.x];
    sdata[tid] = sum;
    // solution-end
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];  // a warp reads 32 consecutive words
        __syncthreads();  // outside the if: every thread of the block must reach it
    }
    if (tid == 0) partials[blockIdx.x] = sdata[0];
}

// Partial sums of one level go to one half of the scratch and the next level's to the other:
// a launch must never write where its own blocks are still reading.
template <class T>
std::size_t scratch_bytes(std::size_t n, int block) {
    const std::size_t first_level = reduction::ceil_div(n, 2 * block);
    return (first_level + reduction::ceil_div(first_level, 2 * block)) * sizeof(T);
}

// Every launch adds one level on load and log2(block) in the tree; the host loop launches until
// one value is left.
inline std::size_t addition_depth(std::size_t n, int block) {
    std::size_t launches = 0;
    do {
        n = reduction::ceil_div(n, 2 * block);
        ++launches;
    } while (n > 1);
    return launches * (1 + reduction::log2_exact(block));
}

template <class T>
void reduce(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    T* const level_outputs[2] = {scratch, scratch + reduction::ceil_div(n, 2 * block)};
    const std::size_t shared_bytes = block * sizeof(T);
    for (int level = 0;; ++level) {
        // solution-begin: the grid
        const std::size_t blocks = reduction::ceil_div(n, 2 * block);  // < 2^31 for any n that fits on a GPU
        // solution-end
        T* const level_out = blocks == 1 ? out : level_outputs[level % 2];
        reduce_first_add_kernel<<<static_cast<unsigned int>(blocks), block, shared_bytes, stream>>>(in, n, level_out);
        CUDA_CHECK_LAUNCH();
        if (blocks == 1) return;
        in = level_out;
        n = blocks;
    }
}

// This step as the harness calls it (common/step_api.h): its names, its bookkeeping, and its reduce on the
// kernel's element type K. The same lines in every step; from step 11 on, `run` passes the operator Op on.
struct Entry {
    static constexpr const char* step_name = name;
    static constexpr const char* step_change = change;
    static constexpr bool has_operators = false;  // a sum only: --op max and min are refused
    static std::size_t depth(std::size_t n, int block) { return addition_depth(n, block); }
    template <class K>
    static std::size_t scratch(std::size_t n, int block) { return scratch_bytes<K>(n, block); }
    template <class Op, class K>
    static void run(const K* in, std::size_t n, K* out, K* work, int block, cudaStream_t stream) {
        reduce(in, n, out, work, block, stream);
    }
};

}  // namespace step04
