// The alternative to step 10's last block: every block adds its partial into *out with atomicAdd.
// One kernel as well, but *out must be zeroed before it (a memset in the stream), and the partials
// arrive in whatever order the blocks finish, so a float sum changes from call to call.
// Step 10's loop and tree, only the end differs.
#include "block_sizes.h"

namespace atomic_partials {

template <unsigned int Block, class T>
__global__ void reduce_atomic_kernel(const T* in, std::size_t n, T* out) {
    __shared__ T warp_results[32];
    const unsigned int tid = threadIdx.x;
    T sum = step10::thread_sum<Block>(in, n);
    sum = step10::block_sum<Block>(sum, warp_results);
    if (tid == 0) atomicAdd(out, sum);  // in the order the blocks happen to finish
}

inline constexpr const char* name = "step10_atomic_add";
inline constexpr const char* change = "step10's loop, then atomicAdd of each block's partial into *out";

template <class T>
using Kernel = void (*)(const T*, std::size_t, T*);

template <class T>
Kernel<T> kernel_for_block(int block) {
    return reduction::kernel_for_block_size(block, name,
                                            [](auto b) -> Kernel<T> { return reduce_atomic_kernel<decltype(b)::value, T>; });
}

template <class T>
std::size_t scratch_bytes(std::size_t, int) { return 0; }

// Partials arrive in any order: the chain is a thread's elements, the tree, then up to one
// atomic addition per block.
inline std::size_t addition_depth(std::size_t n, int block) {
    const std::size_t grid = step10::grid_for(n, block);
    return step10::elements_of_first_thread(n, block, grid) + grid + reduction::log2_exact(block);
}

template <class T>
void reduce(const T* in, std::size_t n, T* out, T*, int block, cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(T), stream));  // the atomics add into it
    kernel_for_block<T>(block)<<<step10::grid_for(n, block), block, 0, stream>>>(in, n, out);
    CUDA_CHECK_LAUNCH();
}

}  // namespace atomic_partials
