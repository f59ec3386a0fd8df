// The classic one-launch ending: the block that draws the last atomicInc ticket adds the partials (bench/README.md).
#include "block_sizes.h"  // with the step's own includes

namespace last_ticket {

inline constexpr const char* name = "step10_threadfence";
inline constexpr const char* change = "step10's loop; partial, __threadfence, atomicInc ticket: the last block adds";

// Device-scope atomics (relaxed: the fences order them): another block's partial never comes from a stale L1 line.
template <class T>
using PartialRef = cuda::atomic_ref<T, cuda::thread_scope_device>;

template <unsigned int Block, class T>
__global__ void reduce_last_ticket_kernel(const T* in, std::size_t n, T* out, T* partials, unsigned int* counter) {
    __shared__ T warp_sums[32];  // one entry per warp: at most 1024 / 32
    __shared__ bool is_last;
    const unsigned int tid = threadIdx.x;
    const T sum = step10::block_sum<Block>(step10::thread_sum<Block>(in, n), warp_sums);
    if (tid == 0) {
        PartialRef<T>(partials[blockIdx.x]).store(sum, cuda::std::memory_order_relaxed);
        __threadfence();  // the partial is visible device-wide before the ticket is drawn
        const unsigned int ticket = atomicInc(counter, gridDim.x - 1);  // the last ticket resets it to 0
        __threadfence();  // every partial the tickets before it stand for is visible to what follows
        is_last = ticket == gridDim.x - 1;
    }
    __syncthreads();  // is_last for every thread; thread 0's fence now orders this block's loads too
    if (!is_last) return;
    // Up to partial_loads partials per thread per round, all loaded before any add, added in step 10's order.
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

// The scratch: the counter (zero-filled once, left 0 by every call), then from byte 16 the partials.
constexpr std::size_t partials_offset = 16;

template <class T>
void reduce(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    using Kernel = void (*)(const T*, std::size_t, T*, T*, unsigned int*);
    const Kernel kernel = reduction::kernel_for_block_size(
        block, name, [](auto b) -> Kernel { return reduce_last_ticket_kernel<decltype(b)::value, T>; });
    unsigned char* bytes = reinterpret_cast<unsigned char*>(scratch);  // 256-byte aligned (cudaMalloc)
    kernel<<<step10::grid_for(n, block), block, 0, stream>>>(in, n, out, reinterpret_cast<T*>(bytes + partials_offset),
                                                             reinterpret_cast<unsigned int*>(bytes));  // one launch
    CUDA_CHECK_LAUNCH();
}

template <class T>
std::size_t scratch_bytes(std::size_t n, int block) {
    static_assert(alignof(T) <= partials_offset && sizeof(unsigned int) <= partials_offset, "the counter and alignment fit");
    return partials_offset + step10::grid_for(n, block) * sizeof(T);
}

using step10::addition_depth;  // step 10's chain: the same loop, grid, tree and order of the partials

// As the harness calls it: step 10's Entry (its depth) with this variant's names, scratch and reduce.
struct Entry : step10::Entry {
    static constexpr const char *step_name = name, *step_change = change;
    template <class K> static std::size_t scratch(std::size_t n, int block) { return scratch_bytes<K>(n, block); }
    template <class Op, class K>
    static void run(const K* in, std::size_t n, K* out, K* w, int b, cudaStream_t s) { reduce(in, n, out, w, b, s); }
};

}  // namespace last_ticket
