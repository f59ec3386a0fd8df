// Step 05 — the last warp without __syncthreads(): unrolled, with __syncwarp() between levels.
//
// What changed since step 04: once 32 or fewer threads are active, all of them are in warp 0, so
// a block-wide __syncthreads() is more than the remaining levels need. The last six levels
// (offsets 32, 16, ..., 1) are written out one by one and ordered with __syncwarp(), which waits
// for the 32 lanes of one warp only.
//
// Why __syncwarp() and not the classic `volatile` trick: since Volta (sm_70) the lanes of a warp
// are scheduled independently and are not guaranteed to execute in lock-step. Code that relies on
// lock-step reads a neighbour's slot that may not have been written yet: a data race, even on the
// runs where the sums come out right. Each level below reads, waits for every lane, writes, waits.
//
// What to expect: faster than step 04: six of the log2(B) block-wide barriers are gone, and the
// other warps of the block retire early. Register shuffles (__shfl_down_sync) are a later step.
#pragma once

#include "cuda_check.h"
#include "launch_math.h"
#include "shared_memory.cuh"

#include <cstddef>

namespace step05 {

inline constexpr const char* name = "step05_warp_unroll";
inline constexpr const char* change = "last warp unrolled, __syncwarp() instead of __syncthreads()";

// solution-begin: one level of the last warp's tree
// One level of the last warp's tree: lanes below `offset` add the value `offset` slots above.
// Reads and writes are separated: the first __syncwarp() orders every read of this level before
// any write, the second every write before the next level's reads. (Since lanes >= offset stay
// idle, no slot is both read and written within one level, so only the second is strictly needed;
// the first keeps the level correct in the form where every lane works.)
template <class T>
__device__ __forceinline__ void warp_level(T* sdata, unsigned int tid, unsigned int offset) {
    T sum{};
    if (tid < offset) sum = sdata[tid] + sdata[tid + offset];
    __syncwarp();
    if (tid < offset) sdata[tid] = sum;
    __syncwarp();
}
// solution-end

// Two elements per thread; one partial sum per block in partials[blockIdx.x].
template <class T>
__global__ void reduce_warp_unroll_kernel(const T* in, std::size_t n, T* partials) {
    T* sdata = dynamic_shared<T>();
    const unsigned int tid = threadIdx.x;
    // 64-bit index: blockIdx.x * blockDim.x overflows 32 bits once n passes 2^32
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * (2 * blockDim.x) + tid;
    T sum = i < n ? in[i] : T(0);  // past the end, 0 changes no sum
    if (i + blockDim.x < n) sum += in[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();

    // solution-begin: the tree, the last warp without barriers
    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];  // a warp reads 32 consecutive words
        __syncthreads();  // outside the if: every thread of the block must reach it
    }
    if (tid < 32) {  // warp 0 finishes alone: all 32 of its lanes enter, as __syncwarp() requires
        if (blockDim.x >= 64) warp_level(sdata, tid, 32);
        warp_level(sdata, tid, 16);
        warp_level(sdata, tid, 8);
        warp_level(sdata, tid, 4);
        warp_level(sdata, tid, 2);
        warp_level(sdata, tid, 1);
    }
    // solution-end
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
        const std::size_t blocks = reduction::ceil_div(n, 2 * block);  // < 2^31 for any n that fits on a GPU
        T* const level_out = blocks == 1 ? out : level_outputs[level % 2];
        reduce_warp_unroll_kernel<<<static_cast<unsigned int>(blocks), block, shared_bytes, stream>>>(in, n, level_out);
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

}  // namespace step05
