// Step 07 — many elements per thread: a grid sized to the GPU and exactly two launches.
//
// What changed since step 06: the grid no longer grows with n. The first launch has just enough
// blocks to fill every SM (SM count x resident blocks per SM, from the occupancy API), and each
// thread walks the input with a grid-stride loop, four elements per iteration, adding them in a
// register before the block's tree runs once. That launch leaves one partial per block (about a thousand on an H100);
// a second launch of a single block sums them into the output. Two launches for any n.
//
// Why it helps: steps 01-06 spend a whole block tree, with its barriers and its shared-memory
// traffic, on every 2*B elements, and launch again for the partials. Here the tree runs once per
// block for thousands of elements, and the loop keeps many independent loads in flight, which is
// what a memory-bound kernel needs to approach the memory's bandwidth.
//
// What to expect: a large jump (step 04's is larger), to a large fraction of the H100's peak, within
// reach of CUB's cub::DeviceReduce::Sum.
#pragma once

#include "cuda_check.h"
#include "launch_math.h"
#include "shared_memory.cuh"

#include <algorithm>
#include <array>
#include <cstddef>
#include <stdexcept>

namespace step07 {

inline constexpr const char* name = "step07_multi_level";
inline constexpr const char* change = "grid-stride loop over a GPU-sized grid, two launches";

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

// Each thread issues this many loads per loop iteration, Block elements apart (coalesced): they
// do not depend on each other, so all are in flight at once. 2 (the classic form) leaves bandwidth
// unused on an H100; 4 reaches CUB's (measured in the lesson); 8 gains nothing more.
constexpr unsigned int loads_per_iteration = 4;

// Any number of elements per thread; one partial sum per block in partials[blockIdx.x].
template <unsigned int Block, class T>
__global__ void reduce_multi_level_kernel(const T* in, std::size_t n, T* partials) {
    T* sdata = dynamic_shared<T>();
    const unsigned int tid = threadIdx.x;
    // 64-bit index: blockIdx.x * blockDim.x overflows 32 bits once n passes 2^32
    // solution-begin: the grid-stride loop
    const std::size_t tile = loads_per_iteration * Block;  // elements a block covers per iteration
    const std::size_t grid_stride = static_cast<std::size_t>(gridDim.x) * tile;
    std::size_t i = static_cast<std::size_t>(blockIdx.x) * tile + tid;
    T sum = T(0);
    for (; i + (loads_per_iteration - 1) * Block < n; i += grid_stride) {  // whole tiles: no bounds checks
#pragma unroll
        for (unsigned int k = 0; k < loads_per_iteration; ++k) sum += in[i + k * Block];  // independent loads
    }
#pragma unroll
    for (unsigned int k = 0; k < loads_per_iteration; ++k)  // the one tile of this thread that crosses n
        if (i + k * Block < n) sum += in[i + k * Block];
    // solution-end
    sdata[tid] = sum;
    __syncthreads();

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
    if (tid == 0) partials[blockIdx.x] = sdata[0];
}

template <class T>
using Kernel = void (*)(const T*, std::size_t, T*);

// The runtime block size picks its compile-time instantiation.
template <class T>
Kernel<T> kernel_for_block(int block) {
    switch (block) {
        case 32: return reduce_multi_level_kernel<32, T>;
        case 64: return reduce_multi_level_kernel<64, T>;
        case 128: return reduce_multi_level_kernel<128, T>;
        case 256: return reduce_multi_level_kernel<256, T>;
        case 512: return reduce_multi_level_kernel<512, T>;
        case 1024: return reduce_multi_level_kernel<1024, T>;
        default: throw std::invalid_argument("step07: block must be 32, 64, 128, 256, 512 or 1024");
    }
}

// solution-begin: the grid of the first launch
// Blocks that fit on the whole GPU at once, per block size: SM count x resident blocks per SM from
// the occupancy API. Asked once per process, of the current device, for the float64 instantiation
// (the one that needs the most shared memory), so that every element type uses the same grid.
inline unsigned int resident_grid(int block) {
    static const std::array<unsigned int, 11> grids = [] {
        std::array<unsigned int, 11> result{};
        int device = 0, sms = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        for (int b = 32; b <= 1024; b *= 2) {
            int per_sm = 0;
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_for_block<double>(b), b,
                                                                     b * sizeof(double)));
            result[reduction::log2_exact(b)] = static_cast<unsigned int>(sms * per_sm);
        }
        return result;
    }();
    return grids[reduction::log2_exact(block)];
}

// The first launch's grid: enough blocks to fill the GPU, but none without an element to load.
inline unsigned int grid_for(std::size_t n, int block) {
    return static_cast<unsigned int>(
        std::min<std::size_t>(resident_grid(block), reduction::ceil_div(n, loads_per_iteration * block)));
}
// solution-end

// One partial per block of the first launch.
template <class T>
std::size_t scratch_bytes(std::size_t n, int block) { return grid_for(n, block) * sizeof(T); }

// In each launch a thread adds its elements one after another (loads_per_iteration per grid
// stride), then the block tree adds log2(block) levels.
inline std::size_t addition_depth(std::size_t n, int block) {
    const auto launch_depth = [block](std::size_t count, std::size_t blocks) {
        return loads_per_iteration * reduction::ceil_div(count, loads_per_iteration * block * blocks) +
               reduction::log2_exact(block);
    };
    const std::size_t grid = grid_for(n, block);
    return launch_depth(n, grid) + launch_depth(grid, 1);
}

template <class T>
void reduce(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    // solution-begin: the launch plan
    const std::size_t shared_bytes = block * sizeof(T);
    const Kernel<T> kernel = kernel_for_block<T>(block);
    const unsigned int grid = grid_for(n, block);
    kernel<<<grid, block, shared_bytes, stream>>>(in, n, scratch);  // one partial per block
    CUDA_CHECK_LAUNCH();
    kernel<<<1, block, shared_bytes, stream>>>(scratch, grid, out);  // one block adds the partials
    CUDA_CHECK_LAUNCH();
    // solution-end
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

}  // namespace step07
