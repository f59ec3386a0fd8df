// Step 12 — small inputs: one block, one tile, the shortest chain of dependent steps.
//
// What changed since step 11: an input that one block covers in one tile (4,096 four-byte
// elements at block 256) no longer goes through the single-pass machinery. reduce_op launches one
// block, of only as many warps as the input has vectors for (a multiple of 32 threads, at most
// the block size given), built from the same kernel with OneTile = true: each thread issues all of
// its loads at once (no loop), adds what they brought as a tree, and the block's tree writes
// *out. There is nobody to wait for, so no slots and no second tree. The warp's tree is one
// instruction for 32-bit integers, wherever it runs (REDUX, sm_80 and later). Larger inputs run
// as in step 11, but for one __syncwarp() before the last block's second tree (see there).
//
// Why it should help: below a few thousand elements the time is the launch, one round trip to
// memory and a chain of dependent additions and shuffles. Every change here shortens that chain:
// fewer warps start sooner and have a shorter tree, a thread's 16 values are added in 4 levels
// instead of 16 additions one after another, a warp's 32 integers in one instruction instead of
// 5 shuffles and adds, and the last block's bookkeeping is gone. CUB also runs one launch of one
// block up to 4,096 elements (its single-tile path), but only a full, aligned tile of 4,096 gets
// its vector loads; below that each thread loads and adds one element per iteration of a loop, and
// under 256 elements, with idle threads, each warp adds with shuffles, not the one instruction
// (the lesson's lab notes).
//
// What to expect: a gain up to 2^12 elements, where the old path ran one block anyway. Above it
// a little less than step 11's time while a call is short enough for its block trees to count
// (the lesson's lab notes measure how far); from 2^24 on the trees are off the critical path
// (step 08 measured the warp instruction there: no gain).
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
#include <type_traits>

namespace step12 {

inline constexpr const char* name = "step12_small_n";
inline constexpr const char* change = "small inputs: one block, every load at once, trees instead of chains";

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

// One instruction (REDUX, sm_80 and later) that adds, or takes the max or min of, the 32 lanes'
// values of a 32-bit integer and gives every lane the result.
template <class Op, class T>
__device__ __forceinline__ T warp_instruction(T value) {
    constexpr unsigned int all_lanes = 0xffffffffu;
    if constexpr (Op::kind == reduction::OpKind::sum) return __reduce_add_sync(all_lanes, value);
    else if constexpr (Op::kind == reduction::OpKind::max) return __reduce_max_sync(all_lanes, value);
    else return __reduce_min_sync(all_lanes, value);
}

// Combines the values of lanes 0 .. Lanes-1 into lane 0 (log2(Lanes) levels; the other lanes end
// with partial results nobody reads). Every lane of the warp must call it: the shuffles name all 32.
// A 32-bit integer takes the one instruction instead, over all 32 lanes (block_reduce asks for 32).
template <class Op, unsigned int Lanes, class T>
__device__ __forceinline__ T warp_reduce(T value) {
    // solution-begin: the warp's tree as one instruction
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    constexpr bool one_instruction = false;  // sm_75 code (the no-GPU build makes some) has no REDUX
#else
    constexpr bool one_instruction = Lanes > 1 && std::is_integral_v<T> && sizeof(T) == 4;
#endif
    // solution-end
    if constexpr (one_instruction) value = warp_instruction<Op>(value);
    constexpr unsigned int first_offset = one_instruction ? 0 : Lanes / 2;
#pragma unroll
    for (unsigned int offset = first_offset; offset > 0; offset /= 2) value = Op()(value, shuffle_down(value, offset));
    return value;
}

// values[0] combined with values[1], ..., values[Count - 1], as a tree of log2(Count) levels: the
// additions of one level do not wait for each other. Count is a power of two.
template <class Op, unsigned int Count, class T>
__device__ __forceinline__ T tree_reduce(T (&values)[Count]) {
    if constexpr (Count > 1) {
#pragma unroll
        for (unsigned int half = Count / 2; half > 0; half /= 2)
#pragma unroll
            for (unsigned int i = 0; i < Count / 2; ++i)  // a fixed bound: both loops unroll, values stays in registers
                if (i < half) values[i] = Op()(values[i], values[i + half]);
    }
    return values[0];
}

// The whole block's values combined, in thread 0 (the other threads hold partial results nobody
// reads). Every thread of the block must call it: it holds a barrier. Used twice by the last
// block: for its own partial, and for the partials of all blocks. After the barrier thread 0
// alone reads the warps' results and adds them as a tree: a few additions in registers, where
// warp 0 used to shuffle (log2(Block / 32) rounds of a shuffle and an addition).
template <class Op, unsigned int Block, class T>
__device__ __forceinline__ T block_reduce(T value, T* warp_results) {
    constexpr unsigned int warps = Block / 32;
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    value = warp_reduce<Op, 32>(value);  // every warp at once, in registers
    if (lane == 0) warp_results[warp] = value;
    __syncthreads();  // the only barrier of the tree
    // solution-begin: thread 0's tree over the warps' results
    if (threadIdx.x == 0) {
        T results[warps];
#pragma unroll
        for (unsigned int w = 0; w < warps; ++w) results[w] = warp_results[w];
        value = tree_reduce<Op>(results);  // log2(Block / 32) levels: none for a 32-thread block
    }
    // solution-end
    return value;
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

// This thread's share of in[0, n), combined one after another in registers: its head and tail
// element, if any, and its vectors. A function, so that kernels beyond the steps can call it.
template <class Op, unsigned int Block, class T>
__device__ __forceinline__ T thread_reduce(const T* in, std::size_t n) {
    const Op op{};
    T sum = Op::template identity<T>();  // the identity changes nothing, like 0 for a sum
    const unsigned int tid = threadIdx.x;
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

// `total` combined with this round's partials, in index order, `own` standing for the last
// block's. Returns false, and leaves total unchanged, if a slot was still empty.
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

// Vectors each thread loads in an input of one tile or less. The tile is counted in 4-byte elements
// (tile_elements), so an 8-byte type needs twice as many 16-byte vectors to cover it.
template <class T>
constexpr unsigned int one_tile_loads = loads_per_iteration * (sizeof(T) > 4 ? sizeof(T) / 4 : 1);

// This thread's elements of an input of one tile or less: its head and tail element, if any, and
// its vectors tid, tid + Block, ..., every load issued before any addition and no loop around
// them. The one_tile_loads x width values (16 for float32 and float64) are then added as a tree,
// log2 of that many levels instead of one addition after another: at this size the thread's
// additions are on the critical path. Each input enters as op(identity, value), as in step 11 an
// input only ever arrives as the operator's second operand: that is what makes a NaN lose under
// max and min (`b > a ? b : a` keeps a NaN that arrives first).
template <class Op, unsigned int Block, class T>
__device__ __forceinline__ T one_tile_sum(const T* in, std::size_t n) {
    constexpr unsigned int width = Vector<T>::width, count = one_tile_loads<T> * width;
    const Op op{};
    const unsigned int tid = threadIdx.x;
    const std::size_t head = head_elements(in, n);
    const std::size_t vectors = (n - head) / width;
    const std::size_t tail_begin = head + vectors * width;
    const Vector<T>* body = reinterpret_cast<const Vector<T>*>(in + head);
    const T identity = Op::template identity<T>();
    T edge = identity;
    if (tid < head) edge = op(edge, in[tid]);
    if (tid < n - tail_begin) edge = op(edge, in[tail_begin + tid]);
    T values[count];  // vector k's lanes at values[k * width], ...
#pragma unroll
    for (unsigned int k = 0; k < one_tile_loads<T>; ++k) {
        Vector<T> loaded;
        if (tid + k * Block < vectors) {
            loaded = load_vector(body + tid + k * Block);
        } else {
#pragma unroll
            for (unsigned int w = 0; w < width; ++w) loaded.lane[w] = identity;
        }
#pragma unroll
        for (unsigned int w = 0; w < width; ++w) values[k * width + w] = op(identity, loaded.lane[w]);
    }
    return op(edge, tree_reduce<Op>(values));
}

// Any number of elements per thread; the last block combines every block's partial into *out,
// the others post theirs in `slots`. Every slot is empty on entry and on return. With OneTile, a
// grid of one block that holds the whole input in one tile: no loop, no slots.
template <class Op, unsigned int Block, class T, bool OneTile>
__global__ void reduce_single_pass_kernel(const T* in, std::size_t n, T* out, Slot* slots) {
    __shared__ T warp_results[32];  // one entry per warp: at most 1024 / 32
    __shared__ T last_block_partial;
    const unsigned int tid = threadIdx.x;
    // solution-begin: one tile: all loads at once, trees, straight to *out
    if constexpr (OneTile) {
        const T total = block_reduce<Op, Block>(one_tile_sum<Op, Block>(in, n), warp_results);
        if (tid == 0) *out = total;
        return;
    }
    // solution-end
    T sum = thread_reduce<Op, Block>(in, n);

    sum = block_reduce<Op, Block>(sum, warp_results);

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
    T total = Op::template identity<T>();
    for (unsigned int first = tid; first < gridDim.x; first += partial_loads * Block) {
        while (!add_round<Op, Block>(total, slots, first, last_block_partial)) {
        }
        empty_slots<Block, T>(slots, first);
    }
    // solution-begin: the warp whole again before the second tree
    // Each lane left its spin loop on its own; the compiler cannot tell that they are together again
    // and would guard every shuffle below with a slower path for a split warp (lab notes).
    __syncwarp();
    // solution-end
    total = block_reduce<Op, Block>(total, warp_results);  // the same fixed order on every call
    if (tid == 0) *out = total;
}

template <class T>
using Kernel = void (*)(const T*, std::size_t, T*, Slot*);

// The runtime block size picks its compile-time instantiation.
template <class Op, class T, bool OneTile = false>
Kernel<T> kernel_for_block(int block) {
    switch (block) {
        case 32: return reduce_single_pass_kernel<Op, 32, T, OneTile>;
        case 64: return reduce_single_pass_kernel<Op, 64, T, OneTile>;
        case 128: return reduce_single_pass_kernel<Op, 128, T, OneTile>;
        case 256: return reduce_single_pass_kernel<Op, 256, T, OneTile>;
        case 512: return reduce_single_pass_kernel<Op, 512, T, OneTile>;
        case 1024: return reduce_single_pass_kernel<Op, 1024, T, OneTile>;
        default: throw std::invalid_argument("step12: block must be 32, 64, 128, 256, 512 or 1024");
    }
}

// Blocks that fit on the whole GPU at once, per block size: SM count x resident blocks per SM from
// the occupancy API. Asked once per process, of the current device, for the float64 instantiation
// (the one that needs the most shared memory and slots), so that every element type uses the same
// grid. Max and Min are launched with Sum's grid: the same loop and slots.
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

// The threads of the one block that sums an input of one tile or less: one per tile's worth of
// vectors (loads_per_iteration each), rounded up to whole warps and a power of two, at most
// `block`. Counted in 4-byte vectors, like the tile, so that it does not depend on T.
inline int small_block(std::size_t n, int block) {
    const std::size_t threads = reduction::ceil_div(n, loads_per_iteration * (vector_bytes / 4));
    int small = 32;
    while (small < block && static_cast<std::size_t>(small) < threads) small *= 2;
    return small;
}

// The values a thread adds as a tree in one_tile_sum: 16 for float32 and for float64, the types
// whose sums round, so the depth need not know T.
constexpr unsigned int one_tile_values = one_tile_loads<float> * Vector<float>::width;
static_assert(one_tile_values == one_tile_loads<double> * Vector<double>::width);

// Every thread adds its elements one after another, then the block tree adds log2(block) levels
// (5 in the warp, log2(block / 32) after it). In the last block thread 0 adds the partials
// 0, block, 2 x block, ..., then the tree runs again. An input of one tile: a value passes
// log2(one_tile_values) levels of its thread's tree, one more for the edge element, then one tree
// of small_block threads.
inline std::size_t addition_depth(std::size_t n, int block) {
    const std::size_t grid = grid_for(n, block);
    if (grid == 1)
        return reduction::log2_exact(one_tile_values) + 1 + reduction::log2_exact(small_block(n, block));
    return elements_of_first_thread(n, block, grid) + reduction::ceil_div(grid, block) +
           2 * reduction::log2_exact(block);
}

// Any associative operator with an identity: reduction::Sum, reduction::Max, reduction::Min.
template <class Op, class T>
void reduce_op(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    const unsigned int grid = grid_for(n, block);
    // solution-begin: one tile or less: small_block threads, the OneTile kernel
    const bool one_tile = grid == 1;
    const int threads = one_tile ? small_block(n, block) : block;
    const Kernel<T> kernel = one_tile ? kernel_for_block<Op, T, true>(threads) : kernel_for_block<Op, T>(threads);
    // solution-end
    Slot* slots = reinterpret_cast<Slot*>(scratch);  // the scratch is 256-byte aligned (cudaMalloc)
    kernel<<<grid, threads, 0, stream>>>(in, n, out, slots);  // one launch
    CUDA_CHECK_LAUNCH();
}

template <class T>
void reduce(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    reduce_op<reduction::Sum, T>(in, n, out, scratch, block, stream);
}

// This step as the harness calls it (common/step_api.h): its names, its bookkeeping, and its reduce on the
// kernel's element type K. The same lines in every step; from step 11 on, `run` passes the operator Op on.
struct Entry {
    static constexpr const char* step_name = name;
    static constexpr const char* step_change = change;
    static constexpr bool has_operators = true;   // --op sum, max or min
    static std::size_t depth(std::size_t n, int block) { return addition_depth(n, block); }
    template <class K>
    static std::size_t scratch(std::size_t n, int block) { return scratch_bytes<K>(n, block); }
    template <class Op, class K>
    static void run(const K* in, std::size_t n, K* out, K* work, int block, cudaStream_t stream) {
        reduce_op<Op>(in, n, out, work, block, stream);
    }
};

}  // namespace step12
