// Step 09 — 16-byte loads: four int32 or float32 (two float64, sixteen uint8) per load instruction.
//
// What changed since step 08: the grid-stride loop reads the input as 16-byte vectors (one
// LDG.E.128 each) instead of one element per load, still four independent loads per thread per
// iteration. A vector load needs an address that is a multiple of 16, and the caller may hand in
// any element address: the few elements before the first 16-byte boundary (the head) and the few
// after the last whole vector (the tail) are read one by one by the first threads of the grid.
//
// Why it should help: the same bytes now take a quarter of the load instructions (for 4-byte
// types), and each thread keeps four times as many bytes in flight per iteration: 64 instead of 16.
// Fewer instructions per byte leave the SMs more time to issue loads, and more bytes in flight per
// thread is what Little's law asks of a kernel that wants the whole memory bandwidth.
//
// What to expect: a gain only where step 08 keeps too few bytes in flight or spends its cycles
// issuing loads (step 07's lesson measures the bytes Little's law needs); near the read ceiling at 2^28.
#pragma once

#include "cuda_check.h"
#include "launch_math.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace step09 {

inline constexpr const char* name = "step09_vector_loads";
inline constexpr const char* change = "16-byte vector loads, scalar head and tail for any alignment";

// The value `offset` lanes above this one. Shuffles move 32 or 64 bits; there is no 8- or 16-bit
// overload, so smaller types travel in a 32-bit register and come back unchanged.
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

// The sum of the whole block's values, in thread 0 (the other threads hold partial sums nobody
// reads). Every thread of the block must call it: it holds a barrier.
template <unsigned int Block, class T>
__device__ __forceinline__ T block_sum(T sum, T* warp_sums) {
    constexpr unsigned int warps = Block / 32;
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    sum = warp_sum<32>(sum);  // every warp at once, in registers
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();  // the only barrier of the tree
    if (warp == 0) {
        sum = lane < warps ? warp_sums[lane] : T(0);
        sum = warp_sum<warps>(sum);  // log2(Block / 32) levels: none for a 32-thread block
    }
    return sum;
}

// Each thread issues this many loads per loop iteration, Block vectors apart (coalesced): they
// do not depend on each other, so all are in flight at once.
constexpr unsigned int loads_per_iteration = 4;

constexpr std::size_t vector_bytes = 16;  // the widest load one thread can issue

// solution-begin: the 16-byte vector and its load
template <class T>
struct alignas(vector_bytes) Vector {
    static constexpr unsigned int width = vector_bytes / sizeof(T);  // 16 uint8, 4 int32/float, 2 double
    T lane[width];
};

// One 128-bit load (LDG.E.128) whatever T is: the hardware loads bits, the lanes are only how we
// read them afterwards. The memcpy reinterprets registers and compiles to nothing.
template <class T>
__device__ __forceinline__ Vector<T> load_vector(const Vector<T>* address) {
    const uint4 bits = __ldg(reinterpret_cast<const uint4*>(address));
    Vector<T> vector;
    memcpy(&vector, &bits, sizeof(bits));
    return vector;
}
// solution-end

// Elements before the first 16-byte boundary at or after `in`: the scalar head (at most n).
template <class T>
__host__ __device__ __forceinline__ std::size_t head_elements(const T* in, std::size_t n) {
    const std::size_t misalignment = reinterpret_cast<std::uintptr_t>(in) % vector_bytes;
    const std::size_t head = misalignment == 0 ? 0 : (vector_bytes - misalignment) / sizeof(T);
    return head < n ? head : n;
}

// This thread's share of in[0, n), added one after another in registers: its head and tail
// element, if any, and its vectors. A function, so that kernels beyond the steps can call it.
template <unsigned int Block, class T>
__device__ __forceinline__ T thread_sum(const T* in, std::size_t n) {
    T sum = T(0);
    // solution-begin: head, whole vectors, tail
    const unsigned int tid = threadIdx.x;
    // in[0, head) scalar | vectors of width elements, 16-byte aligned | in[tail_begin, n) scalar
    const std::size_t head = head_elements(in, n);
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
        for (unsigned int k = 0; k < loads_per_iteration; ++k) loaded[k] = load_vector(body + i + k * Block);
#pragma unroll
        for (unsigned int k = 0; k < loads_per_iteration; ++k)  // adds only after every load is issued
#pragma unroll
            for (unsigned int w = 0; w < Vector<T>::width; ++w) sum += loaded[k].lane[w];
    }
#pragma unroll
    for (unsigned int k = 0; k < loads_per_iteration; ++k) {  // the one tile of this thread that crosses the end
        if (i + k * Block < vectors) {
            const Vector<T> loaded = load_vector(body + i + k * Block);
#pragma unroll
            for (unsigned int w = 0; w < Vector<T>::width; ++w) sum += loaded.lane[w];
        }
    }
    // solution-end
    return sum;
}

// Any number of elements per thread; one partial sum per block in partials[blockIdx.x].
template <unsigned int Block, class T>
__global__ void reduce_vector_loads_kernel(const T* in, std::size_t n, T* partials) {
    __shared__ T warp_sums[32];  // one slot per warp: at most 1024 / 32
    const unsigned int tid = threadIdx.x;
    T sum = thread_sum<Block>(in, n);

    sum = block_sum<Block>(sum, warp_sums);
    if (tid == 0) partials[blockIdx.x] = sum;
}

template <class T>
using Kernel = void (*)(const T*, std::size_t, T*);

// The runtime block size picks its compile-time instantiation.
template <class T>
Kernel<T> kernel_for_block(int block) {
    switch (block) {
        case 32: return reduce_vector_loads_kernel<32, T>;
        case 64: return reduce_vector_loads_kernel<64, T>;
        case 128: return reduce_vector_loads_kernel<128, T>;
        case 256: return reduce_vector_loads_kernel<256, T>;
        case 512: return reduce_vector_loads_kernel<512, T>;
        case 1024: return reduce_vector_loads_kernel<1024, T>;
        default: throw std::invalid_argument("step09: block must be 32, 64, 128, 256, 512 or 1024");
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

// A tile of a 4-byte type: loads_per_iteration vectors of 4 elements per thread. (The same for
// every type: addition_depth does not know T, so the grid must not depend on it; other types get
// a few idle blocks or a longer loop, nothing more.)
inline constexpr std::size_t tile_elements(int block) { return loads_per_iteration * block * (vector_bytes / 4); }

// The first launch's grid: enough blocks to fill the GPU, but none without elements to load.
inline unsigned int grid_for(std::size_t n, int block) {
    return static_cast<unsigned int>(std::min<std::size_t>(resident_grid(block), reduction::ceil_div(n, tile_elements(block))));
}

// One partial per block of the first launch.
template <class T>
std::size_t scratch_bytes(std::size_t n, int block) { return grid_for(n, block) * sizeof(T); }

// Vectors the first thread of block 0 loads: the most of any thread, since each of its loads
// comes first in its tile.
inline std::size_t loads_of_first_thread(std::size_t vectors, int block, std::size_t blocks) {
    const std::size_t grid_stride = loads_per_iteration * block * blocks;
    std::size_t loads = 0;
    for (std::size_t k = 0; k < loads_per_iteration; ++k)
        if (k * block < vectors) loads += reduction::ceil_div(vectors - k * block, grid_stride);
    return loads;
}

// Elements the first thread of block 0 adds, one after another, in one launch: its head and tail
// element, if any, and every lane of its vectors. The split depends on the input's alignment,
// which the depth cannot see, so this is the longest over every possible head; and on the vector
// width, so it is the longer of float32's (4) and float64's (2), the types whose sums round.
inline std::size_t elements_of_first_thread(std::size_t count, int block, std::size_t blocks) {
    std::size_t longest = 0;
    for (std::size_t width : {vector_bytes / sizeof(float), vector_bytes / sizeof(double)}) {
        for (std::size_t head = 0; head < width && head <= count; ++head) {
            const std::size_t vectors = (count - head) / width;
            const std::size_t tail = count - head - vectors * width;
            const std::size_t chain = (head > 0) + (tail > 0) + width * loads_of_first_thread(vectors, block, blocks);
            longest = std::max(longest, chain);
        }
    }
    return longest;
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

}  // namespace step09
