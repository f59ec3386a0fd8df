// What a slot of shared memory holds before a kernel writes it is not defined: it may be what an
// earlier kernel left. This kernel leaves 0x7F bytes (a huge value for every type) in all the shared
// memory of every SM, so that, on a GPU that keeps them, a step that reads a slot nobody wrote in
// this call adds a huge value and fails.
#include "gpu_test_support.h"

#include "cuda_check.h"

namespace reduction::test {

namespace {
__global__ void dirty_shared_memory_kernel(unsigned int words) {
    extern __shared__ unsigned int junk[];
    for (unsigned int i = threadIdx.x; i < words; i += blockDim.x) junk[i] = 0x7F7F7F7Fu;
}
}  // namespace

void dirty_shared_memory(cudaStream_t stream) {
    int device = 0, sms = 0, bytes = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    CUDA_CHECK(cudaFuncSetAttribute(dirty_shared_memory_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    // two blocks per SM, each as much shared memory as a block may have: every SM runs at least one
    dirty_shared_memory_kernel<<<2 * sms, 1024, bytes, stream>>>(static_cast<unsigned int>(bytes / 4));
    CUDA_CHECK_LAUNCH();
}

}  // namespace reduction::test
