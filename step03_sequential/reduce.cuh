// Step 03 — sequential addressing: the active threads read contiguous, conflict-free addresses.
//
// What changed since step 02: the tree is folded the other way. In the first round the upper half
// of the block's values is added onto the lower half (stride blockDim.x / 2), then the upper
// quarter onto the lower quarter, and so on. Thread t always works on element t, so the threads
// of a warp read 32 consecutive words: one per bank, no bank conflicts, and the working threads
// stay the first s of the block: from s = 32 down, whole warps have no work in a round (as in step
// 02), though they still reach every round's barrier; step 05 lets them stop.
//
// What to expect: faster than step 02, by roughly what its bank conflicts cost. Still, half the
// threads of the block do nothing after loading their element; step 04 puts them to work.
#pragma once

#include "cuda_check.h"
#include "launch_math.h"
#include "shared_memory.cuh"

#include <cstddef>

namespace step03 {

inline constexpr const char* name = "step03_sequential";
inline constexpr const char* change = "sequential addressing, no bank conflicts";

// One element per thread; one partial sum per block in partials[blockIdx.x].
template <class T>
__global__ void reduce_sequential_kernel(const T* in, std::size_t n, T* partials) {
    T* sdata = dynamic_shared<T>();
    const unsigned int tid = threadIdx.x;
    // 64-bit index: blockIdx.x * blockDim.x overflows 32 bits once n passes 2^32
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : T(0);  // past the end, 0 changes no sum
    __syncthreads();

    // solution-begin: the tree with sequential addressing
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];  // a warp reads 32 consecutive words
        __syncthreads();  // outside the if: every thread of the block must reach it
    }
    // solution-end
    if (tid == 0) partials[blockIdx.x] = sdata[0];
}

// Partial sums of one level go to one half of the scratch and the next level's to the other:
// a launch must never write where its own blocks are still reading.
template <class T>
std::size_t scratch_bytes(std::size_t n, int block) {
    const std::size_t first_level = reduction::ceil_div(n, block);
    return (first_level + reduction::ceil_div(first_level, block)) * sizeof(T);
}

// Every launch adds log2(block) levels of the tree; the host loop launches until one value is left.
inline std::size_t addition_depth(std::size_t n, int block) {
    std::size_t launches = 0;
    do {
        n = reduction::ceil_div(n, block);
        ++launches;
    } while (n > 1);
    return launches * reduction::log2_exact(block);
}

template <class T>
void reduce(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    T* const level_outputs[2] = {scratch, scratch + reduction::ceil_div(n, block)};
    const std::size_t shared_bytes = block * sizeof(T);
    for (int level = 0;; ++level) {
        const std::size_t blocks = reduction::ceil_div(n, block);  // < 2^31 for any n that fits on a GPU
        T* const level_out = blocks == 1 ? out : level_outputs[level % 2];
        reduce_sequential_kernel<<<static_cast<unsigned int>(blocks), block, shared_bytes, stream>>>(in, n, level_out);
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

}  // namespace step03
