// How every executable ends: exit codes (common/README.md), the exceptions carrying a failure, and run_guarded().
#pragma once
#include <cuda_runtime.h>
#include <functional>
#include <iostream>
#include <new>
#include <stdexcept>
#include <string>

namespace reduction {
enum ExitCode : int {
    exit_ok = 0,
    exit_wrong_result = 1,   // verification failed
    exit_bad_input = 2,      // unknown flag, malformed value, unusable --input file
    exit_no_gpu = 3,         // no CUDA device or driver, too little device memory
    exit_cuda_error = 4,     // a CUDA call failed while running
};

// A malformed flag, a value out of range, an unreadable or wrong-sized --input file: exit 2.
struct UsageError : std::runtime_error { using std::runtime_error::runtime_error; };
// No CUDA device or driver, or too little memory for the requested size: exit 3.
struct EnvironmentError : std::runtime_error { using std::runtime_error::runtime_error; };
// A failed CUDA runtime call; the text names the call, file and line (see CUDA_CHECK).
class CudaError : public std::runtime_error {
public:
    CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
    cudaError_t code() const { return code_; }
private:
    cudaError_t code_;
};

// The CUDA errors that say "this machine cannot run it" rather than "something broke": exit 3.
inline bool is_environment_failure(cudaError_t code) {
    return code == cudaErrorMemoryAllocation || code == cudaErrorNoDevice || code == cudaErrorInsufficientDriver ||
           code == cudaErrorInvalidDevice || code == cudaErrorCompatNotSupportedOnDevice ||
           code == cudaErrorSystemDriverMismatch || code == cudaErrorNoKernelImageForDevice;
}

// Runs body() and returns its exit code; an exception becomes one line on stderr and its code.
inline int run_guarded(const std::function<int()>& body) {
    const auto fail = [](int code, const char* text, const char* prefix = "error: ") {
        std::cerr << prefix << text << "\n";
        return code;
    };
    try {
        return body();
    } catch (const UsageError& e) {
        return fail(exit_bad_input, e.what());
    } catch (const EnvironmentError& e) {
        return fail(exit_no_gpu, e.what());
    } catch (const CudaError& e) {
        return fail(is_environment_failure(e.code()) ? exit_no_gpu : exit_cuda_error, e.what(), "CUDA error: ");
    } catch (const std::bad_alloc&) {
        return fail(exit_no_gpu, "not enough host memory for the input and its reference; try a smaller --n");
    } catch (const std::length_error&) {  // a vector longer than the host can address
        return fail(exit_no_gpu, "the input is larger than this machine can hold; try a smaller --n");
    } catch (const std::exception& e) {
        return fail(exit_cuda_error, e.what());
    }
}
}  // namespace reduction
