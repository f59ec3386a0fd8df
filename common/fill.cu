// fill_input (input.h): the generated input written by the GPU, a 32 GiB input in milliseconds.
#include "cuda_check.h"
#include "input.h"
#include "launch_math.h"
#include <algorithm>

namespace reduction {
namespace {
// One kernel per pattern and type (the loop has no switch); a grid-stride loop with 64-bit indices.
template <class T, Pattern P>
__global__ void fill_kernel(T* out, std::size_t first, std::size_t count, std::uint64_t seed) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride)
        out[k] = formula::pattern_value<T>(P, seed, first + k);
}
}  // namespace

template <class T>
void fill_input(T* out, std::size_t first, std::size_t count, Pattern pattern, std::uint64_t seed, cudaStream_t stream) {
    if (count == 0) return;
    using Kernel = void (*)(T*, std::size_t, std::size_t, std::uint64_t);
    constexpr Kernel kernels[] = {fill_kernel<T, Pattern::random>, fill_kernel<T, Pattern::ones>,
                                  fill_kernel<T, Pattern::index>, fill_kernel<T, Pattern::alternating>};
    constexpr int block = 256;
    constexpr std::size_t max_blocks = 32768;  // several waves on any GPU; the loop covers the rest
    const auto blocks = static_cast<unsigned>(std::min(ceil_div(count, block), max_blocks));
    kernels[static_cast<int>(pattern)]<<<blocks, block, 0, stream>>>(out, first, count, seed);
    CUDA_CHECK_LAUNCH();
}

template void fill_input<std::int32_t>(std::int32_t*, std::size_t, std::size_t, Pattern, std::uint64_t, cudaStream_t);
template void fill_input<float>(float*, std::size_t, std::size_t, Pattern, std::uint64_t, cudaStream_t);
template void fill_input<double>(double*, std::size_t, std::size_t, Pattern, std::uint64_t, cudaStream_t);
}  // namespace reduction
