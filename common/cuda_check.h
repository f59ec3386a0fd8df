// CUDA_CHECK: a failed call throws CudaError, so buffers are freed on the way out and run_guarded() picks the code.
#pragma once
#include "exit_codes.h"

namespace reduction {
[[noreturn]] inline void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
    throw CudaError(code, std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                              cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")");
}
}  // namespace reduction

#define CUDA_CHECK(call)                                                                   \
    do {                                                                                   \
        const cudaError_t cuda_check_status_ = (call);                                     \
        if (cuda_check_status_ != cudaSuccess)                                             \
            ::reduction::throw_cuda_error(cuda_check_status_, #call, __FILE__, __LINE__); \
    } while (0)

// After every <<<...>>>: a bad configuration is only reported through cudaGetLastError().
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
