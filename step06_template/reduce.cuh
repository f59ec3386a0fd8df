// Step 06 — the block size as a template parameter: the whole tree unrolled at compile time.
//
// What changed since step 05: the kernel is instantiated once per block size (32 ... 1024), and
// `blockDim.x` becomes the compile-time constant `Block`. The compiler now knows how many rounds
// the tree has: the loop is unrolled completely, the comparisons against the stride fold into
// constants, the levels a small block does not need vanish, and `2 * Block` costs nothing.
// A runtime switch maps --block to the matching instantiation.
//
// What to expect: a small gain at most. Step 04 and 05 already made the kernel wait mostly on
// memory, and loop overhead is only a few instructions per round: on an H100 this step may tie
// step 05. It is here because fast reductions fix their block size at compile time (CUB's
// tuning policies do, though CUB's sm_90 kernel also differs in many other ways: 16 items per
// thread, vector loads, shuffle block reductions), and step 07 builds on it.
#pragma once

#include "cuda_check.h"
#include "launch_math.h"
#include "shared_memory.cuh"

#include <cstddef>
#include <stdexcept>

namespace step06 {

inline constexpr const char* name = "step06_template";
inline constexpr const char* change = "block size as a template parameter, tree fully unrolled";

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

// Two elements per thread; one partial sum per block in partials[blockIdx.x].
template <unsigned int Block, class T>
__global__ void reduce_template_kernel(const T* in, std::size_t n, T* partials) {
    T* sdata = dynamic_shared<T>();
    const unsigned int tid = threadIdx.x;
    // 64-bit index: blockIdx.x * blockDim.x overflows 32 bits once n passes 2^32
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * (2 * Block) + tid;
    T sum = i < n ? in[i] : T(0);  // past the end, 0 changes no sum
    if (i + Block < n) sum += in[i + Block];
    sdata[tid] = sum;
    __syncthreads();

    // solution-begin: the tree with the compile-time block size
#pragma unroll  // Block is a constant: the loop disappears
    for (unsigned int s = Block / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];  // a warp reads 32 consecutive words
        __syncthreads();  // outside the if: every thread of the block must reach it
    }
    if (tid < 32) {  // warp 0 finishes alone: all 32 of its lanes enter, as __syncwarp() requires
        if (Block >= 64) warp_level(sdata, tid, 32);
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
using Kernel = void (*)(const T*, std::size_t, T*);

// The runtime block size picks its compile-time instantiation.
template <class T>
Kernel<T> kernel_for_block(int block) {
    // solution-begin: the kernel for the block size
    switch (block) {
        case 32: return reduce_template_kernel<32, T>;
        case 64: return reduce_template_kernel<64, T>;
        case 128: return reduce_template_kernel<128, T>;
        case 256: return reduce_template_kernel<256, T>;
        case 512: return reduce_template_kernel<512, T>;
        case 1024: return reduce_template_kernel<1024, T>;
        default: throw std::invalid_argument("step06: block must be 32, 64, 128, 256, 512 or 1024");
    }
    // solution-end
}

template <class T>
void reduce(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    T* const level_outputs[2] = {scratch, scratch + reduction::ceil_div(n, 2 * block)};
    const std::size_t shared_bytes = block * sizeof(T);
    const Kernel<T> kernel = kernel_for_block<T>(block);
    for (int level = 0;; ++level) {
        const std::size_t blocks = reduction::ceil_div(n, 2 * block);  // < 2^31 for any n that fits on a GPU
        T* const level_out = blocks == 1 ? out : level_outputs[level % 2];
        kernel<<<static_cast<unsigned int>(blocks), block, shared_bytes, stream>>>(in, n, level_out);
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

}  // namespace step06
