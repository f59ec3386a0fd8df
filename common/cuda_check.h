// Error checking for every CUDA runtime call and every kernel launch.
//
// A failed call throws reduction::CudaError carrying the call's text, file, line and CUDA's own
// message. Throwing (rather than exit()) lets every DeviceBuffer on the way out free its memory,
// and lets main() decide the exit code in one place.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace reduction {

class CudaError : public std::runtime_error {
public:
    CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
    cudaError_t code() const { return code_; }

private:
    cudaError_t code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

}  // namespace reduction

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        const cudaError_t cuda_check_status_ = (call);                            \
        if (cuda_check_status_ != cudaSuccess)                                    \
            ::reduction::throw_cuda_error(cuda_check_status_, #call, __FILE__, __LINE__); \
    } while (0)

// After every <<<...>>>: a bad configuration is only reported through cudaGetLastError().
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
