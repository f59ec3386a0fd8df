// Step 10 — one launch: the last block adds the partials.
//
// What changed since step 09: the second launch is gone. Every block but the last posts its
// partial in its own slot in the scratch and leaves. The last block (blockIdx.x == gridDim.x - 1)
// adds its own share of the input like the others, then waits until every slot is full, adds the
// partials in index order, writes *out, and empties the slots for the next call.
//
// Why waiting is safe here: a block that waits for other blocks holds its place on an SM, and a
// block that is not yet running needs a place to run. Only one block waits, and the blocks it
// waits for never wait for anything: so long as two blocks fit on the GPU at once, the others run
// to the end one after another in the places left, and every slot fills. (A chain of waiting
// blocks would need more: CUB's single-pass scan hands out tile numbers in start order for that.)
// The last block by index is the combiner because blocks are handed out in index order in
// practice: it usually starts last, so it waits least. Nothing depends on that order.
//
// Why slots: a partial and the mark "this slot is full" are written by one 64-bit store, 32 bits of
// the partial in the low half and the mark in the high half. A 64-bit store is seen whole or not
// at all, so whoever sees the mark sees the partial: no fence between them, and no counter to learn
// who finished last. The order of additions depends only on n, the block size and the grid, never
// on which block finished when, so a float result is the same bits on every call. The operator is a
// template parameter (reduction::Sum, Max, Min): the same tree serves any associative operator with
// an identity.
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

// Partials each thread of the combiner loads at once, in one round trip to L2. At 5 the kernel
// needs 36 registers per thread (nvcc -Xptxas -v), so 6 blocks of 256 fit on an SM: 792 blocks on
// an H100, whose partials 256 threads read in one round. (At 4 it would need 32 registers, 8
// blocks would fit, and one warp would need a second round for partials 1,024 to 1,055.)
constexpr unsigned int partial_loads = 5;

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

// A slot: 64 bits, the high half `full` once a block has posted into it, the low half 32 bits of a
// partial. A partial of T takes slots_per_partial<T> of them (one for 1- to 4-byte types, two for
// 8-byte ones). Every slot is empty (zero) on entry and on return.
using Slot = unsigned long long;
constexpr Slot full = Slot{1} << 32;
template <class T>
constexpr unsigned int slots_per_partial = (sizeof(T) + 3) / 4;
constexpr unsigned int max_slots_per_partial = 2;

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

// The combiner's thread reads, per round, the slots of blocks first, first + Block, ... (at most
// partial_loads of them, only blocks of the grid, never the combiner's own: it has that at hand).
__device__ __forceinline__ bool posted_by_other(unsigned int block) { return block < gridDim.x && block != blockIdx.x; }

// Looks at every slot of this round at once (one round trip to L2 for all, not one each): `full`
// stands for the slots of blocks past the grid and of the combiner itself.
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

// `total` plus this round's partials, in index order, `own` standing for the combiner's. Returns
// false, and leaves total unchanged, if a slot was still empty.
template <class Op, unsigned int Block, class T>
__device__ __forceinline__ bool add_round(T& total, Slot* slots, unsigned int first, T own) {
    constexpr unsigned int words = slots_per_partial<T>;
    Slot seen[partial_loads][words];
    load_round<Block, T>(slots, first, seen);
    if (!all_full<Block, T>(seen)) return false;
    const Op op{};
#pragma unroll
    for (unsigned int k = 0; k < partial_loads && first + k * Block < gridDim.x; ++k) {
        T partial = own;
        if (first + k * Block != blockIdx.x) {
            unsigned int bits[words];
#pragma unroll
            for (unsigned int w = 0; w < words; ++w) bits[w] = static_cast<unsigned int>(seen[k][w]);
            memcpy(&partial, bits, sizeof(T));
        }
        total = op(total, partial);
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

// Any number of elements per thread; the last block combines every block's partial into *out, the
// others post theirs in `slots`. Every slot is empty on entry and on return.
template <class Op, unsigned int Block, class T>
__global__ void reduce_single_pass_kernel(const T* in, std::size_t n, T* out, Slot* slots) {
    __shared__ T warp_results[32];  // one entry per warp: at most 1024 / 32
    __shared__ T combiner_partial;
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

    // solution-begin: the last block combines the posted partials
    const bool is_combiner = blockIdx.x == gridDim.x - 1;  // the same for the whole block
    if (!is_combiner) {
        if (tid == 0) post_partial(slots + blockIdx.x * slots_per_partial<T>, sum);
        return;
    }
    if (tid == 0) combiner_partial = sum;
    __syncthreads();  // thread 0's partial, for the thread that adds it

    // Up to partial_loads partials per thread per round, in index order. A slot still empty belongs
    // to a block still adding, or not yet started: it will post; look at the round again after a pause.
    T total = Op::template identity<T>();
    for (unsigned int first = tid; first < gridDim.x; first += partial_loads * Block) {
        while (!add_round<Op, Block>(total, slots, first, combiner_partial)) {
        }
        empty_slots<Block, T>(slots, first);
    }
    total = block_reduce<Op, Block>(total, warp_results);  // the same fixed order on every call
    if (tid == 0) *out = total;
    // solution-end
}

template <class T>
using Kernel = void (*)(const T*, std::size_t, T*, Slot*);

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

// Blocks of this kernel that fit on the whole GPU at once, per block size: SM count x resident
// blocks per SM from the occupancy API, asked once per process and element type, of the current
// device. It differs between types (a double partial takes two slots, and its registers), so each
// type gets its own grid. Max and Min are launched with Sum's grid: the same loop and slots.
template <class T>
unsigned int resident_grid(int block) {
    static const std::array<unsigned int, 11> grids = [] {
        std::array<unsigned int, 11> result{};
        int device = 0, sms = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        for (int b = 32; b <= 1024; b *= 2) {
            int per_sm = 0;
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_for_block<reduction::Sum, T>(b), b, 0));
            result[reduction::log2_exact(b)] = static_cast<unsigned int>(sms * per_sm);
        }
        return result;
    }();
    return grids[reduction::log2_exact(block)];
}

// A tile of a 4-byte type: loads_per_iteration vectors of 4 elements per thread. (The same for
// every type: other types get a few idle blocks or a longer loop, nothing more.)
inline constexpr std::size_t tile_elements(int block) { return loads_per_iteration * block * (vector_bytes / 4); }

// The grid: enough blocks to fill the GPU, but none without elements to load.
template <class T>
unsigned int grid_for(std::size_t n, int block) {
    return static_cast<unsigned int>(std::min<std::size_t>(resident_grid<T>(block), reduction::ceil_div(n, tile_elements(block))));
}

// The most blocks a grid of this block size can have on the current device, whatever the type:
// every SM full of them. The scratch is sized for it, since its size cannot depend on T.
inline std::size_t most_blocks(int block) {
    int device = 0, sms = 0, threads_per_sm = 0, blocks_per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, device));
    return static_cast<std::size_t>(sms) * static_cast<std::size_t>(std::min(blocks_per_sm, threads_per_sm / block));
}

// The scratch: max_slots_per_partial slots per block. Its size is asked in elements of T but
// cannot depend on T, so it is counted in bytes: enough for a 1-byte T and any grid, a few
// kilobytes too many otherwise. The harness zero-fills it once; every call leaves it empty again.
inline std::size_t scratch_elements(std::size_t n, int block) {
    const std::size_t blocks = std::min(most_blocks(block), reduction::ceil_div(n, tile_elements(block)));
    return sizeof(Slot) * max_slots_per_partial * blocks;
}

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
// element, if any, and every lane of its vectors of `width` elements. The split depends on the
// input's alignment, which the depth cannot see, so this is the longest over every possible head.
inline std::size_t elements_of_first_thread(std::size_t count, std::size_t width, int block, std::size_t blocks) {
    std::size_t longest = 0;
    for (std::size_t head = 0; head < width && head <= count; ++head) {
        const std::size_t vectors = (count - head) / width;
        const std::size_t tail = count - head - vectors * width;
        const std::size_t chain = (head > 0) + (tail > 0) + width * loads_of_first_thread(vectors, block, blocks);
        longest = std::max(longest, chain);
    }
    return longest;
}

// Every thread adds its elements one after another, then the block tree adds log2(block) levels
// (5 in the warp, log2(block / 32) after it). In the combiner thread 0 adds the partials
// 0, block, 2 x block, ..., then the tree runs again. The longer of the two types whose sums
// round: float32 (4 per vector) and float64 (2), each on its own grid.
inline std::size_t addition_depth(std::size_t n, int block) {
    const std::size_t float_grid = grid_for<float>(n, block), double_grid = grid_for<double>(n, block);
    const std::size_t float_chain = elements_of_first_thread(n, vector_bytes / sizeof(float), block, float_grid) +
                                    reduction::ceil_div(float_grid, block);
    const std::size_t double_chain = elements_of_first_thread(n, vector_bytes / sizeof(double), block, double_grid) +
                                     reduction::ceil_div(double_grid, block);
    return std::max(float_chain, double_chain) + 2 * reduction::log2_exact(block);
}

// Any associative operator with an identity: reduction::Sum, reduction::Max, reduction::Min.
template <class Op, class T>
void reduce_op(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    const Kernel<T> kernel = kernel_for_block<Op, T>(block);
    const unsigned int grid = grid_for<T>(n, block);
    // solution-begin: one launch, with the slots in the scratch
    Slot* slots = reinterpret_cast<Slot*>(scratch);  // the scratch is 256-byte aligned (cudaMalloc)
    kernel<<<grid, block, 0, stream>>>(in, n, out, slots);
    CUDA_CHECK_LAUNCH();
    // solution-end
}

template <class T>
void reduce(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    reduce_op<reduction::Sum, T>(in, n, out, scratch, block, stream);
}

}  // namespace step10
