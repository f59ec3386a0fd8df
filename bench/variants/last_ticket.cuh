// The classic one-launch ending: the block that finishes last adds the partials (the CUDA
// Programming Guide's example under "Memory Fence Functions", cuda-samples' threadFenceReduction).
// Step 10's loop, grid and block tree; only the end differs.
//
// Thread 0 of every block writes its partial, runs __threadfence(), then draws a ticket with
// atomicInc on a counter in the scratch. The block with the last ticket knows every other block
// wrote and fenced its partial before drawing, so it adds them all. No block spins: nothing is
// assumed about which blocks run together, and any grid works. atomicInc(counter, gridDim.x - 1)
// stores 0 on the last ticket, so the draw also empties the counter for the next call, as
// step_api.h asks of state kept in the scratch. The last block adds the partials in step 10's
// order, so a float sum is the same bits on every call, and step 10's bits. What it costs: a fence
// and an atomic per block, and the partials are read only once the last block has finished, where
// step 10's last block is already at the slots while the others end.
#include "block_sizes.h"
#include "cuda_check.h"

#include <cuda/atomic>

#include <cstddef>

namespace last_ticket {

inline constexpr const char* name = "step10_threadfence";
inline constexpr const char* change = "step10's loop; partial, __threadfence, atomicInc ticket: the last block adds";

// A partial is read by another block than the one that wrote it: both sides are device-scope
// atomics (relaxed: the fences order them), so the loads go to L2 and never see a stale L1 line.
template <class T>
using PartialRef = cuda::atomic_ref<T, cuda::thread_scope_device>;

template <unsigned int Block, class T>
__global__ void reduce_last_ticket_kernel(const T* in, std::size_t n, T* out, T* partials, unsigned int* counter) {
    __shared__ T warp_sums[32];  // one entry per warp: at most 1024 / 32
    __shared__ bool is_last;
    const unsigned int tid = threadIdx.x;
    T sum = step10::thread_sum<Block>(in, n);
    sum = step10::block_sum<Block>(sum, warp_sums);

    if (tid == 0) {
        PartialRef<T>(partials[blockIdx.x]).store(sum, cuda::std::memory_order_relaxed);
        __threadfence();  // the partial is visible device-wide before the ticket is drawn
        const unsigned int ticket = atomicInc(counter, gridDim.x - 1);  // the last ticket resets it to 0
        __threadfence();  // every partial the tickets before it stand for is visible to what follows
        is_last = ticket == gridDim.x - 1;
    }
    __syncthreads();  // is_last for every thread; thread 0's fence now orders this block's loads too
    if (!is_last) return;

    // Up to partial_loads partials per thread per round, all loads issued before any add, added in
    // index order: step 10's order.
    constexpr unsigned int loads = step10::partial_loads;
    T total = T(0);
    for (unsigned int first = tid; first < gridDim.x; first += loads * Block) {
        T seen[loads];
#pragma unroll
        for (unsigned int k = 0; k < loads; ++k)
            seen[k] = first + k * Block < gridDim.x
                          ? PartialRef<T>(partials[first + k * Block]).load(cuda::std::memory_order_relaxed)
                          : T(0);
#pragma unroll
        for (unsigned int k = 0; k < loads; ++k)
            if (first + k * Block < gridDim.x) total += seen[k];
    }
    total = step10::block_sum<Block>(total, warp_sums);  // the same fixed order on every call
    if (tid == 0) *out = total;
}

template <class T>
using Kernel = void (*)(const T*, std::size_t, T*, T*, unsigned int*);

// The runtime block size picks its compile-time instantiation.
template <class T>
Kernel<T> kernel_for_block(int block) {
    return reduction::kernel_for_block_size(block, "step10_threadfence",
                                            [](auto b) -> Kernel<T> { return reduce_last_ticket_kernel<decltype(b)::value, T>; });
}

// The scratch: the counter first, then one partial per block of step 10's grid from byte 16 on
// (aligned for every element type). The counter's place does not depend on the grid, so a scratch
// sized for a larger n also serves a smaller one. The harness zero-fills it once; every call
// leaves the counter at 0.
constexpr std::size_t partials_offset = 16;

template <class T>
void reduce(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    const Kernel<T> kernel = kernel_for_block<T>(block);
    const unsigned int grid = step10::grid_for(n, block);
    unsigned char* bytes = reinterpret_cast<unsigned char*>(scratch);  // 256-byte aligned (cudaMalloc)
    unsigned int* counter = reinterpret_cast<unsigned int*>(bytes);
    T* partials = reinterpret_cast<T*>(bytes + partials_offset);
    kernel<<<grid, block, 0, stream>>>(in, n, out, partials, counter);  // one launch
    CUDA_CHECK_LAUNCH();
}

template <class T>
std::size_t scratch_bytes(std::size_t n, int block) {
    static_assert(alignof(T) <= partials_offset && sizeof(unsigned int) <= partials_offset, "the counter and alignment fit");
    return partials_offset + step10::grid_for(n, block) * sizeof(T);
}

// Step 10's chain: the same loop, grid, tree and order of the partials.
inline std::size_t addition_depth(std::size_t n, int block) { return step10::addition_depth(n, block); }

}  // namespace last_ticket
