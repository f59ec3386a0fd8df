// Step 08 — warp shuffles: the tree inside a warp moves from shared memory into registers.
//
// What changed since step 07: each warp adds its 32 values with __shfl_down_sync, which reads a
// register of another lane directly: five levels, no shared memory, no __syncwarp(). Lane 0 of
// every warp writes its warp's sum into a 32-entry shared array; after one barrier, warp 0 adds
// those few values with shuffles again. The block tree needs one __syncthreads() instead of one per
// level above 32, and Block x sizeof(T) bytes of shared memory become 32 x sizeof(T).
//
// Why it should help: a shared-memory level is a store, a barrier and a load per thread; a shuffle
// level is one instruction. The tree runs once per block, so this is a small part of the run time
// at large n, but a larger part of the short runs (2^20, 2^24), where fixed costs dominate.
//
// What to expect: a small gain, mostly at 2^20 and 2^24; at 2^28 the loads decide and both steps
// read the same bytes the same way.
#pragma once

#include "cuda_check.h"
#include "launch_math.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <stdexcept>

namespace step08 {

inline constexpr const char* name = "step08_warp_shuffle";
inline constexpr const char* change = "warp-level tree in registers with __shfl_down_sync";

// solution-begin: one shuffle, for every type
// The value `offset` lanes above this one. A shuffle moves 32 bits (a 64-bit type takes two); there
// is no 8- or 16-bit integer overload, so smaller integers travel in a 32-bit register and come back
// unchanged.
template <class T>
__device__ __forceinline__ T shuffle_down(T value, unsigned int offset) {
    constexpr unsigned int all_lanes = 0xffffffffu;
    if constexpr (sizeof(T) < sizeof(unsigned int)) {
        return static_cast<T>(__shfl_down_sync(all_lanes, static_cast<unsigned int>(value), offset));
    } else {
        return __shfl_down_sync(all_lanes, value, offset);
    }
}

// Adds the values of lanes 0 .. Lanes-1 into lane 0 (log2(Lanes) levels; the other lanes end with
// partial sums nobody reads). Every lane of the warp must call it: the shuffles name all 32.
template <unsigned int Lanes, class T>
__device__ __forceinline__ T warp_sum(T value) {
#pragma unroll
    for (unsigned int offset = Lanes / 2; offset > 0; offset /= 2) value += shuffle_down(value, offset);
    return value;
}
// solution-end

// The sum of the whole block's values, in thread 0 (the other threads hold partial sums nobody
// reads). Every thread of the block must call it: it holds a barrier.
template <unsigned int Block, class T>
__device__ __forceinline__ T block_sum(T sum, T* warp_sums) {
    constexpr unsigned int warps = Block / 32;
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    // solution-begin: the block's sum with shuffles
    sum = warp_sum<32>(sum);  // every warp at once, in registers
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();  // the only barrier of the tree
    if (warp == 0) {
        sum = lane < warps ? warp_sums[lane] : T(0);
        sum = warp_sum<warps>(sum);  // log2(Block / 32) levels: none for a 32-thread block
    }
    // solution-end
    return sum;
}

// Each thread issues this many loads per loop iteration, Block elements apart (coalesced): they
// do not depend on each other, so all are in flight at once (step 07's lesson measures 2, 4, 8).
constexpr unsigned int loads_per_iteration = 4;

// Any number of elements per thread; one partial sum per block in partials[blockIdx.x].
template <unsigned int Block, class T>
__global__ void reduce_warp_shuffle_kernel(const T* in, std::size_t n, T* partials) {
    __shared__ T warp_sums[32];  // one slot per warp: at most 1024 / 32
    const unsigned int tid = threadIdx.x;
    // 64-bit index: blockIdx.x * blockDim.x overflows 32 bits once n passes 2^32
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

    sum = block_sum<Block>(sum, warp_sums);
    if (tid == 0) partials[blockIdx.x] = sum;
}

template <class T>
using Kernel = void (*)(const T*, std::size_t, T*);

// The runtime block size picks its compile-time instantiation.
template <class T>
Kernel<T> kernel_for_block(int block) {
    switch (block) {
        case 32: return reduce_warp_shuffle_kernel<32, T>;
        case 64: return reduce_warp_shuffle_kernel<64, T>;
        case 128: return reduce_warp_shuffle_kernel<128, T>;
        case 256: return reduce_warp_shuffle_kernel<256, T>;
        case 512: return reduce_warp_shuffle_kernel<512, T>;
        case 1024: return reduce_warp_shuffle_kernel<1024, T>;
        default: throw std::invalid_argument("step08: block must be 32, 64, 128, 256, 512 or 1024");
    }
}

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
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_for_block<double>(b), b, 0));
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

// One partial per block of the first launch.
template <class T>
std::size_t scratch_bytes(std::size_t n, int block) { return grid_for(n, block) * sizeof(T); }

// Elements the first thread of block 0 adds before the tree: the most of any thread, since each
// of its loads comes first in its tile. Exact, where loads_per_iteration x ceil(count / stride)
// would count the loads of a last tile that stop at `count`.
inline std::size_t elements_of_first_thread(std::size_t count, int block, std::size_t blocks) {
    const std::size_t grid_stride = loads_per_iteration * block * blocks;
    std::size_t elements = 0;
    for (std::size_t k = 0; k < loads_per_iteration; ++k)
        if (k * block < count) elements += reduction::ceil_div(count - k * block, grid_stride);
    return elements;
}

// In each launch a thread adds its elements one after another, then the block tree adds
// log2(block) levels: 5 in the warp, log2(block / 32) after it.
inline std::size_t addition_depth(std::size_t n, int block) {
    const std::size_t grid = grid_for(n, block);
    return elements_of_first_thread(n, block, grid) + elements_of_first_thread(grid, block, 1) +
           2 * reduction::log2_exact(block);
}

template <class T>
void reduce(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    const Kernel<T> kernel = kernel_for_block<T>(block);
    const unsigned int grid = grid_for(n, block);
    kernel<<<grid, block, 0, stream>>>(in, n, scratch);  // one partial per block
    CUDA_CHECK_LAUNCH();
    kernel<<<1, block, 0, stream>>>(scratch, grid, out);  // one block adds the partials
    CUDA_CHECK_LAUNCH();
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

}  // namespace step08
