// Says whether a CUDA device can be used, for scripts that must tell "no GPU here" (a skip) from
// "the program failed on the GPU" (a failure): exit 0 and the device count, or exit 77 and why not.
#include <cuda_runtime.h>

#include <iostream>

int main() {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
        std::cout << "no usable CUDA device (" << (status != cudaSuccess ? cudaGetErrorString(status) : "none found")
                  << ")\n";
        return 77;
    }
    std::cout << count << " CUDA device" << (count == 1 ? "" : "s") << "\n";
    return 0;
}
