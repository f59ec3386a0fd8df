// Step 01 — interleaved addressing with a divergent branch: the baseline.
//
// What it does: every thread loads one element into shared memory, then the block adds pairs in
// a tree: first neighbours 1 apart, then 2, 4, ... Only threads whose index is a multiple of 2*s
// work in round s, so the working threads are scattered over every warp (divergent branches),
// and `tid % (2*s)` costs an integer division per thread per round. Each block writes one partial
// sum; the host launches the same kernel on the partials until a single value is left.
//
// What to expect: correct for any n, and slow: a few hundred GB/s on an H100, far below the
// memory's peak. The next steps remove, one at a time, what holds it back.
#pragma once

#include "cuda_check.h"
#include "launch_math.h"
#include "shared_memory.cuh"

#include <cstddef>

namespace step01 {

inline constexpr const char* name = "step01_interleaved";
inline constexpr const char* change = "interleaved addressing, divergent branch";

// One element per thread; one partial sum per block in partials[blockIdx.x].
template <class T>
__global__ void reduce_interleaved_kernel(const T* in, std::size_t n, T* partials) {
    T* sdata = dynamic_shared<T>();
    const unsigned int tid = threadIdx.x;
    // 64-bit index: blockIdx.x * blockDim.x overflows 32 bits once n passes 2^32
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : T(0);  // past the end, 0 changes no sum
    __syncthreads();

    // solution-begin: the tree: interleaved pairs, a barrier after each round
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
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
        reduce_interleaved_kernel<<<static_cast<unsigned int>(blocks), block, shared_bytes, stream>>>(in, n, level_out);
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

}  // namespace step01
