// GPU tests: without a usable CUDA device they exit with 77, which ctest reports as Skipped
// (SKIP_RETURN_CODE), never as passed.
#include "../catch_main.h"
#include "gpu_test_support.h"

#include "exit_codes.h"

#include <cuda_runtime.h>

#include <iostream>

int main(int argc, char* argv[]) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
        std::cout << "SKIPPED: no usable CUDA device ("
                  << (status != cudaSuccess ? cudaGetErrorString(status) : "none found")
                  << "); the GPU tests need an NVIDIA GPU\n";
        return reduction::exit_skipped;
    }
    const int failures = Catch::Session().run(argc, argv);
    if (failures == 0 && reduction::test::skipped_for_resources()) {
        std::cout << "SKIPPED: " << reduction::test::skip_reason() << "\n";
        return reduction::exit_skipped;
    }
    return failures;
}
