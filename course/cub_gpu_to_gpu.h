// The interface of the shared library reduction_cub_gpu_to_gpu (course/CMakeLists.txt): CUB's reproducible float
// sum, compiled against a newer CCCL than the toolkit's. Only plain function pointers and cudaError_t cross it,
// nothing of either CCCL and no exception; course_cub.cu turns them into the row cub_gpu_to_gpu.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>

namespace reduction::gpu_to_gpu {
// in[0..n) summed into *out on `stream` in the order of CUB's determinism::gpu_to_gpu: the same bits on every GPU.
// With scratch null, a size query: it sets `bytes` and launches nothing. Otherwise the sum, in the `bytes` of
// scratch given: it allocates nothing and never waits for the GPU.
template <class T>
using SumFn = cudaError_t (*)(void* scratch, std::size_t& bytes, const T* in, T* out, std::size_t n, cudaStream_t stream);

struct Sums {
    SumFn<float> float32;
    SumFn<double> float64;
    int cccl_version;  // CCCL_VERSION of the headers it was compiled against: 3005000 is CCCL 3.5.0
};

// The library's one exported function: it is built with every other symbol hidden.
__attribute__((visibility("default"))) Sums sums();
}  // namespace reduction::gpu_to_gpu
