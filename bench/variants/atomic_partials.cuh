// Step 10's loop, then atomicAdd of each block's partial into *out (zeroed first): a float sum in order of arrival.
#include "block_sizes.h"

namespace atomic_partials {

inline constexpr const char* name = "step10_atomic_add";
inline constexpr const char* change = "step10's loop, then atomicAdd of each block's partial into *out";

template <unsigned int Block, class T>
__global__ void reduce_atomic_kernel(const T* in, std::size_t n, T* out) {
    __shared__ T warp_results[32];
    const T sum = step10::block_sum<Block>(step10::thread_sum<Block>(in, n), warp_results);
    if (threadIdx.x == 0) atomicAdd(out, sum);  // in the order the blocks happen to finish
}

template <class T>
std::size_t scratch_bytes(std::size_t, int) { return 0; }

// The chain: a thread's elements, the tree, then up to one atomic addition per block.
inline std::size_t addition_depth(std::size_t n, int block) {
    const std::size_t grid = step10::grid_for(n, block);
    return step10::elements_of_first_thread(n, block, grid) + grid + reduction::log2_exact(block);
}

template <class T>
void reduce(const T* in, std::size_t n, T* out, T*, int block, cudaStream_t stream) {
    using Kernel = void (*)(const T*, std::size_t, T*);
    const Kernel kernel = reduction::kernel_for_block_size(
        block, name, [](auto b) -> Kernel { return reduce_atomic_kernel<decltype(b)::value, T>; });
    CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(T), stream));  // the atomics add into it
    kernel<<<step10::grid_for(n, block), block, 0, stream>>>(in, n, out);
    CUDA_CHECK_LAUNCH();
}

// As the harness calls it: step 10's Entry with this variant's names, scratch, depth and reduce.
struct Entry : step10::Entry {
    static constexpr const char *step_name = name, *step_change = change;
    static std::size_t depth(std::size_t n, int block) { return addition_depth(n, block); }
    template <class K> static std::size_t scratch(std::size_t n, int block) { return scratch_bytes<K>(n, block); }
    template <class Op, class K>
    static void run(const K* in, std::size_t n, K* out, K* w, int b, cudaStream_t s) { reduce(in, n, out, w, b, s); }
};

}  // namespace atomic_partials
