// Step 10 — one launch: the last block adds the partials.
//
// What changed since step 09: the second launch is gone. Every block but the last posts its
// partial in its own slot in the scratch and leaves. The last block (blockIdx.x == gridDim.x - 1)
// adds its own share of the input like the others, then waits until every slot is full, adds the
// partials in a fixed order (per thread, then a tree), writes *out, and empties the slots.
//
// Why slots: a partial and the mark "this slot is full" are written together, the mark in the
// high half of a 64-bit word and 32 bits of the partial in the low half, by one relaxed
// device-scope atomic store (cuda::atomic_ref). An atomic access is single-copy atomic: a load of
// the word sees all 64 bits of one store, never half of one, so whoever sees the mark sees the
// partial, with no fence between them and no counter to learn who finished last. (A plain store
// of 64 bits makes no such promise; the atomic does.) The order of additions depends only on n,
// the block size and the grid, never on which block finished when, so a float result is the same
// bits on every call.
//
// What the wait assumes: the last block spins until every other block has posted, and those
// blocks never wait for anything. The wait ends if the blocks it waits for get to run while it
// spins. The grid is sized from the float64 kernel's occupancy (resident_grid): it fits the GPU
// at once for every type only because each type's kernel needs the same registers (partial_loads).
// Where a grid does not fit (a shared GPU), blocks not yet started take the places of finished
// ones. That blocks start while others run is how GPUs work, but the CUDA Programming Guide does
// not promise it (blocks must be able to run in any order, also one after another); the documented
// guarantee is a cooperative launch. CUB's single-pass scan makes the same assumption
// (agent_scan.cuh: "Blocks are launched in increasing order"). The lesson measures the alternatives.
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

#include <cuda/atomic>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace step10 {

inline constexpr const char* name = "step10_single_pass";
inline constexpr const char* change = "one launch: the last block adds the partials";

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
// reads). Every thread of the block must call it: it holds a barrier. Used twice by the last
// block: for its own partial, and for the partials of all blocks.
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

// This thread's share of in[0, n), added one after another in registers: its head and tail
// element, if any, and its vectors. A function, so that kernels beyond the steps can call it.
template <unsigned int Block, class T>
__device__ __forceinline__ T thread_sum(const T* in, std::size_t n) {
    T sum = T(0);
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
    return sum;
}

// A slot: 64 bits, the high half `full` once a block has posted into it, the low half 32 bits of a
// partial. A partial of T takes slots_per_partial<T> of them (one for 1- to 4-byte types, two for
// 8-byte ones). Every slot is empty (zero) on entry and on return.
using Slot = unsigned long long;
constexpr Slot full = Slot{1} << 32;
template <class T>
constexpr unsigned int slots_per_partial = (sizeof(T) + 3) / 4;

// Slots are read and written by different blocks while both run: always as device-scope atomics.
// Relaxed is enough, since each slot carries its own mark and nothing else needs ordering.
using SlotRef = cuda::atomic_ref<Slot, cuda::thread_scope_device>;

// Writes a partial into its slots, each with one 64-bit store of the mark and 32 bits of the value.
template <class T>
__device__ __forceinline__ void post_partial(Slot* slots, T value) {
    unsigned int bits[slots_per_partial<T>] = {};
    memcpy(bits, &value, sizeof(T));
#pragma unroll
    for (unsigned int w = 0; w < slots_per_partial<T>; ++w)
        SlotRef(slots[w]).store(full | bits[w], cuda::std::memory_order_relaxed);
}

// Partials each thread of the last block loads at once, in one round trip to L2, before it
// looks at any of them. At 5 the kernel needs 36 registers per thread for every element type
// (nvcc -Xptxas -v, sm_90), so 6 blocks of 256 fit on an SM: 792 blocks on an H100, whose
// partials 256 threads read in one round.
constexpr unsigned int partial_loads = 5;

// The last block's thread reads, per round, the slots of blocks first, first + Block, ... (at most
// partial_loads of them, only blocks of the grid, never the last block's own: it has that at hand).
__device__ __forceinline__ bool posted_by_other(unsigned int block) { return block < gridDim.x && block != blockIdx.x; }

// Looks at every slot of this round at once (one round trip to L2 for all, not one each): `full`
// stands for the slots of blocks past the grid and of the last block itself.
template <unsigned int Block, class T>
__device__ __forceinline__ void load_round(Slot* slots, unsigned int first, Slot (&seen)[partial_loads][slots_per_partial<T>]) {
    constexpr unsigned int words = slots_per_partial<T>;
    Slot* const round_slots = slots + static_cast<std::size_t>(first) * words;  // block first + k*Block: + k*Block*words
#pragma unroll
    for (unsigned int k = 0; k < partial_loads; ++k)
#pragma unroll
        for (unsigned int w = 0; w < words; ++w)
            seen[k][w] = posted_by_other(first + k * Block)
                             ? SlotRef(round_slots[k * Block * words + w]).load(cuda::std::memory_order_relaxed)
                             : full;
}

template <unsigned int Block, class T>
__device__ __forceinline__ bool all_full(const Slot (&seen)[partial_loads][slots_per_partial<T>]) {
    bool all = true;
#pragma unroll
    for (unsigned int k = 0; k < partial_loads; ++k)
#pragma unroll
        for (unsigned int w = 0; w < slots_per_partial<T>; ++w) all &= (seen[k][w] & full) != 0;
    return all;
}

// `total` plus this round's partials, in index order, `own` standing for the last block's. Returns
// false, and leaves total unchanged, if a slot was still empty.
template <unsigned int Block, class T>
__device__ __forceinline__ bool add_round(T& total, Slot* slots, unsigned int first, T own) {
    constexpr unsigned int words = slots_per_partial<T>;
    Slot seen[partial_loads][words];
    load_round<Block, T>(slots, first, seen);
    if (!all_full<Block, T>(seen)) return false;
#pragma unroll
    for (unsigned int k = 0; k < partial_loads && first + k * Block < gridDim.x; ++k) {
        T partial = own;
        if (first + k * Block != blockIdx.x) {
            unsigned int bits[words];
#pragma unroll
            for (unsigned int w = 0; w < words; ++w) bits[w] = static_cast<unsigned int>(seen[k][w]);
            memcpy(&partial, bits, sizeof(T));
        }
        total += partial;
    }
    return true;
}

// Empties this round's slots for the next call.
template <unsigned int Block, class T>
__device__ __forceinline__ void empty_slots(Slot* slots, unsigned int first) {
    constexpr unsigned int words = slots_per_partial<T>;
    Slot* const round_slots = slots + static_cast<std::size_t>(first) * words;
#pragma unroll
    for (unsigned int k = 0; k < partial_loads; ++k)
#pragma unroll
        for (unsigned int w = 0; w < words; ++w)
            if (posted_by_other(first + k * Block))
                SlotRef(round_slots[k * Block * words + w]).store(0, cuda::std::memory_order_relaxed);
}

// Any number of elements per thread; the last block adds every block's partial into *out, the
// others post theirs in `slots`. Every slot is empty on entry and on return.
template <unsigned int Block, class T>
__global__ void reduce_single_pass_kernel(const T* in, std::size_t n, T* out, Slot* slots) {
    __shared__ T warp_sums[32];  // one entry per warp: at most 1024 / 32
    __shared__ T last_block_partial;
    const unsigned int tid = threadIdx.x;
    T sum = thread_sum<Block>(in, n);

    sum = block_sum<Block>(sum, warp_sums);

    // solution-begin: post the partial, or (last block) wait for all and add them
    const bool is_last = blockIdx.x == gridDim.x - 1;  // the same for the whole block
    if (!is_last) {
        if (tid == 0) post_partial(slots + blockIdx.x * slots_per_partial<T>, sum);
        return;
    }
    if (tid == 0) last_block_partial = sum;
    __syncthreads();  // thread 0's partial, for the thread that adds it

    // Up to partial_loads partials per thread per round, in index order. A slot still empty belongs
    // to a block still adding, or not yet started: it will post, so the thread loads the round
    // again at once (it spins) until every slot of the round is full.
    T total = T(0);
    for (unsigned int first = tid; first < gridDim.x; first += partial_loads * Block) {
        while (!add_round<Block>(total, slots, first, last_block_partial)) {
        }
        empty_slots<Block, T>(slots, first);
    }
    total = block_sum<Block>(total, warp_sums);  // the same fixed order on every call
    if (tid == 0) *out = total;
    // solution-end
}

template <class T>
using Kernel = void (*)(const T*, std::size_t, T*, Slot*);

// The runtime block size picks its compile-time instantiation.
template <class T>
Kernel<T> kernel_for_block(int block) {
    switch (block) {
        case 32: return reduce_single_pass_kernel<32, T>;
        case 64: return reduce_single_pass_kernel<64, T>;
        case 128: return reduce_single_pass_kernel<128, T>;
        case 256: return reduce_single_pass_kernel<256, T>;
        case 512: return reduce_single_pass_kernel<512, T>;
        case 1024: return reduce_single_pass_kernel<1024, T>;
        default: throw std::invalid_argument("step10: block must be 32, 64, 128, 256, 512 or 1024");
    }
}

// Blocks that fit on the whole GPU at once, per block size: SM count x resident blocks per SM from
// the occupancy API. Asked once per process, of the current device, for the float64 instantiation
// (the one that needs the most shared memory and slots), so that every element type uses the same grid.
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

// The grid: enough blocks to fill the GPU, but none without elements to load.
inline unsigned int grid_for(std::size_t n, int block) {
    return static_cast<unsigned int>(std::min<std::size_t>(resident_grid(block), reduction::ceil_div(n, tile_elements(block))));
}

// The slots of one partial per block. The harness zero-fills them once; every call leaves them empty.
template <class T>
std::size_t scratch_bytes(std::size_t n, int block) { return grid_for(n, block) * slots_per_partial<T> * sizeof(Slot); }

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
// 0, block, 2 x block, ..., then the tree runs again.
inline std::size_t addition_depth(std::size_t n, int block) {
    const std::size_t grid = grid_for(n, block);
    return elements_of_first_thread(n, block, grid) + reduction::ceil_div(grid, block) +
           2 * reduction::log2_exact(block);
}

template <class T>
void reduce(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    const Kernel<T> kernel = kernel_for_block<T>(block);
    const unsigned int grid = grid_for(n, block);
    Slot* slots = reinterpret_cast<Slot*>(scratch);  // the scratch is 256-byte aligned (cudaMalloc)
    kernel<<<grid, block, 0, stream>>>(in, n, out, slots);  // one launch
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

}  // namespace step10
