// Error checking for every CUDA runtime call and every kernel launch.
//
// A failed call throws reduction::CudaError carrying the call's text, file, line and CUDA's own
// message. Throwing (rather than exit()) lets every DeviceBuffer on the way out free its memory,
// and lets run_guarded() in exit_codes.h decide the exit code in one place.
#pragma once

#include "exit_codes.h"

#include <cuda_runtime.h>

#include <string>

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
