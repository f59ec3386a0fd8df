// Step 10 — one launch: the last block to finish adds the partials.
//
// What changed since step 09: the second launch is gone. Every block writes its partial, then
// takes a ticket from a counter in the scratch (an atomic fetch_add with release and acquire
// ordering). The block that draws the last ticket knows every other partial is written and
// visible to it: it adds them all, in index order, writes *out, and sets the counter back to zero
// for the next call. The order of additions depends only on n, the block size and the grid, never
// on which block finished when, so a float result is the same bits on every call. The operator is
// a template parameter (reduction::Sum, Max, Min): the same tree serves any associative operator
// with an identity.
//
// Why it should help: a launch costs a few microseconds of latency and a gap in which the GPU
// idles; the second launch of step 09 pays it for about a thousand numbers. At large n that is a
// small share; at 2^20 and 2^24, where the whole reduction takes 5-30 us, it is a large one.
//
// What to expect: a clear gain at 2^20 and 2^24, the same speed as step 09 at 2^28 and beyond,
// where reading the input is everything.
#pragma once

#include "cuda_check.h"
#include "launch_math.h"
#include "operators.h"

#include <cuda/atomic>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace step10 {

inline constexpr const char* name = "step10_single_pass";
inline constexpr const char* change = "one launch: the last block to finish adds the partials";

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

// Combines the values of lanes 0 .. Lanes-1 into lane 0 (log2(Lanes) levels; the other lanes end
// with partial results nobody reads). Every lane of the warp must call it: the shuffles name all 32.
template <class Op, unsigned int Lanes, class T>
__device__ __forceinline__ T warp_reduce(T value) {
#pragma unroll
    for (unsigned int offset = Lanes / 2; offset > 0; offset /= 2) value = Op()(value, shuffle_down(value, offset));
    return value;
}

// The whole block's values into thread 0: a shuffle tree per warp, the warp results through
// shared memory, one barrier, a last shuffle tree in warp 0. Used twice per block: the block's own
// partial, and in the last block the partials of all blocks.
template <class Op, unsigned int Block, class T>
__device__ __forceinline__ T block_reduce(T value, T* warp_results) {
    constexpr unsigned int warps = Block / 32;
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    value = warp_reduce<Op, 32>(value);  // every warp at once, in registers
    if (lane == 0) warp_results[warp] = value;
    __syncthreads();  // the only barrier of the tree
    if (warp == 0) {
        value = lane < warps ? warp_results[lane] : Op::template identity<T>();
        value = warp_reduce<Op, warps>(value);  // log2(Block / 32) levels: none for a 32-thread block
    }
    return value;
}

// Each thread issues this many loads per loop iteration, Block vectors apart (coalesced): they
// do not depend on each other, so all are in flight at once.
constexpr unsigned int loads_per_iteration = 4;

constexpr std::size_t vector_bytes = 16;  // the widest load one thread can issue

// Partials each thread of the last block loads at once: about a thousand partials at block 256
// (SM count x resident blocks) take one round trip to L2.
constexpr unsigned int partial_loads = 8;

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

// Elements before the first 16-byte boundary at or after `in`: the scalar head (at most n).
template <class T>
__host__ __device__ __forceinline__ std::size_t head_elements(const T* in, std::size_t n) {
    const std::size_t misalignment = reinterpret_cast<std::uintptr_t>(in) % vector_bytes;
    const std::size_t head = misalignment == 0 ? 0 : (vector_bytes - misalignment) / sizeof(T);
    return head < n ? head : n;
}

// Any number of elements per thread; every block writes its partial in partials[blockIdx.x], and
// the last block to finish combines them all into *out. `ticket` is zero on entry and on return.
template <class Op, unsigned int Block, class T>
__global__ void reduce_single_pass_kernel(const T* in, std::size_t n, T* out, T* partials, unsigned int* ticket) {
    __shared__ T warp_results[32];  // one slot per warp: at most 1024 / 32
    __shared__ bool is_last_block;
    const Op op{};
    const unsigned int tid = threadIdx.x;
    T sum = Op::template identity<T>();  // the identity changes nothing, like 0 for a sum
    // in[0, head) scalar | vectors of width elements, 16-byte aligned | in[tail_begin, n) scalar
    const std::size_t head = head_elements(in, n);
    const std::size_t vectors = (n - head) / Vector<T>::width;
    const std::size_t tail_begin = head + vectors * Vector<T>::width;
    const Vector<T>* body = reinterpret_cast<const Vector<T>*>(in + head);
    // 64-bit index: blockIdx.x * blockDim.x overflows 32 bits once n passes 2^32
    const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * Block + tid;
    if (thread < head) sum = op(sum, in[thread]);                        // fewer than 16 elements each:
    if (thread < n - tail_begin) sum = op(sum, in[tail_begin + thread]);  // the first threads of block 0
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
            for (unsigned int w = 0; w < Vector<T>::width; ++w) sum = op(sum, loaded[k].lane[w]);
    }
#pragma unroll
    for (unsigned int k = 0; k < loads_per_iteration; ++k) {  // the one tile of this thread that crosses the end
        if (i + k * Block < vectors) {
            const Vector<T> loaded = load_vector(body + i + k * Block);
#pragma unroll
            for (unsigned int w = 0; w < Vector<T>::width; ++w) sum = op(sum, loaded.lane[w]);
        }
    }

    sum = block_reduce<Op, Block>(sum, warp_results);

    // solution-begin: write the partial, take a ticket (release + acquire); the last block combines, then resets
    if (tid == 0) {
        partials[blockIdx.x] = sum;
        // Release: this block's partial is visible to any block that draws a later ticket.
        // Acquire: the block that draws the last one sees every partial written before it.
        cuda::atomic_ref<unsigned int, cuda::thread_scope_device> arrivals(*ticket);
        is_last_block = arrivals.fetch_add(1, cuda::std::memory_order_acq_rel) == gridDim.x - 1;
    }
    __syncthreads();  // thread 0's acquire, then the barrier: the whole block may read the partials
    if (!is_last_block) return;  // the whole block leaves together: no barrier is left waiting

    // Up to partial_loads partials per thread, all loads issued before the first add: a loop of
    // load-then-add would wait for L2 once per partial instead of once per group.
    T total = Op::template identity<T>();
    for (unsigned int p = tid; p < gridDim.x; p += partial_loads * Block) {
        T loaded[partial_loads];
#pragma unroll
        for (unsigned int k = 0; k < partial_loads; ++k)  // from L2 (.cg): written by other SMs
            loaded[k] = p + k * Block < gridDim.x ? __ldcg(partials + p + k * Block) : Op::template identity<T>();
#pragma unroll
        for (unsigned int k = 0; k < partial_loads; ++k) total = op(total, loaded[k]);
    }
    total = block_reduce<Op, Block>(total, warp_results);  // the same fixed order on every call
    if (tid == 0) {
        *out = total;
        cuda::atomic_ref<unsigned int, cuda::thread_scope_device>(*ticket).store(0, cuda::std::memory_order_relaxed);
    }
    // solution-end
}

template <class T>
using Kernel = void (*)(const T*, std::size_t, T*, T*, unsigned int*);

// The runtime block size picks its compile-time instantiation.
template <class Op, class T>
Kernel<T> kernel_for_block(int block) {
    switch (block) {
        case 32: return reduce_single_pass_kernel<Op, 32, T>;
        case 64: return reduce_single_pass_kernel<Op, 64, T>;
        case 128: return reduce_single_pass_kernel<Op, 128, T>;
        case 256: return reduce_single_pass_kernel<Op, 256, T>;
        case 512: return reduce_single_pass_kernel<Op, 512, T>;
        case 1024: return reduce_single_pass_kernel<Op, 1024, T>;
        default: throw std::invalid_argument("step10: block must be 32, 64, 128, 256, 512 or 1024");
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
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_for_block<reduction::Sum, double>(b), b, 0));
            result[reduction::log2_exact(b)] = static_cast<unsigned int>(sms * per_sm);
        }
        return result;
    }();
    return grids[reduction::log2_exact(block)];
}

// A tile of a 4-byte type: loads_per_iteration vectors of 4 elements per thread. (Sizes must not
// depend on T, since the scratch size does not know it; other types get a few idle blocks or a
// longer loop, nothing more.)
inline constexpr std::size_t tile_elements(int block) { return loads_per_iteration * block * (vector_bytes / 4); }

// The first launch's grid: enough blocks to fill the GPU, but none without elements to load.
inline unsigned int grid_for(std::size_t n, int block) {
    return static_cast<unsigned int>(std::min<std::size_t>(resident_grid(block), reduction::ceil_div(n, tile_elements(block))));
}

// The ticket, an unsigned int, sits at the start of the scratch, in 4 slots of T: enough even for a
// 1-byte T, and the partials after it stay aligned for T. The scratch is zero when allocated, and
// every call leaves the ticket at zero.
constexpr std::size_t ticket_slots = sizeof(unsigned int);

// The ticket, then one partial per block.
inline std::size_t scratch_elements(std::size_t n, int block) { return ticket_slots + grid_for(n, block); }

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

// Every thread adds its elements one after another, then the block tree adds log2(block) levels
// (5 in the warp, log2(block / 32) after it). In the last block thread 0 adds the partials
// 0, block, 2 x block, ... (identities past the grid add nothing), then the tree runs again.
inline std::size_t addition_depth(std::size_t n, int block) {
    const std::size_t grid = grid_for(n, block);
    return elements_of_first_thread(n, block, grid) + reduction::ceil_div(grid, block) +
           2 * reduction::log2_exact(block);
}

// Any associative operator with an identity: reduction::Sum, reduction::Max, reduction::Min.
template <class Op, class T>
void reduce_op(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    const Kernel<T> kernel = kernel_for_block<Op, T>(block);
    const unsigned int grid = grid_for(n, block);
    // solution-begin: one launch, with the ticket and the partials in the scratch
    unsigned int* ticket = reinterpret_cast<unsigned int*>(scratch);
    kernel<<<grid, block, 0, stream>>>(in, n, out, scratch + ticket_slots, ticket);
    CUDA_CHECK_LAUNCH();
    // solution-end
}

template <class T>
void reduce(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    reduce_op<reduction::Sum, T>(in, n, out, scratch, block, stream);
}

}  // namespace step10
