// Step 02 — interleaved addressing with the working threads packed into the first warps.
//
// What changed since step 01: the same pairs are added in the same rounds, but thread t now works
// on element 2*s*t instead of "every thread whose index is a multiple of 2*s". The working threads
// are the first blockDim.x / (2*s) of the block, packed into as few warps as possible, so whole
// warps sit idle instead of every warp running half-empty; and the `%` is gone. Divergence is
// not gone entirely: once fewer than 32 threads work (2*s > blockDim.x / 32), warp 0 runs with
// some lanes idle, as in every tree, but that is a handful of rounds in one warp.
//
// What to expect: faster than step 01. The new cost: in round s, thread t touches element 2*s*t,
// so the working threads of a warp hit shared-memory addresses 2*s words apart, and several of
// them land in the same bank (2-way at s = 1, more as s grows): bank conflicts. Step 03 removes them.
#pragma once

#include "cuda_check.h"
#include "launch_math.h"
#include "shared_memory.cuh"

#include <cstddef>

namespace step02 {

inline constexpr const char* name = "step02_nondivergent";
inline constexpr const char* change = "strided index: working threads packed into whole warps";

// One element per thread; one partial sum per block in partials[blockIdx.x].
template <class T>
__global__ void reduce_nondivergent_kernel(const T* in, std::size_t n, T* partials) {
    T* sdata = dynamic_shared<T>();
    const unsigned int tid = threadIdx.x;
    // 64-bit index: blockIdx.x * blockDim.x overflows 32 bits once n passes 2^32
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : T(0);  // past the end, 0 changes no sum
    __syncthreads();

    // solution-begin: the tree with a strided index
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        const unsigned int index = 2 * s * tid;  // contiguous threads, strided elements
        if (index < blockDim.x) sdata[index] += sdata[index + s];
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
        reduce_nondivergent_kernel<<<static_cast<unsigned int>(blocks), block, shared_bytes, stream>>>(in, n, level_out);
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

}  // namespace step02
