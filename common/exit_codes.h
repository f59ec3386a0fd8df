// How every executable of the course ends: the exit codes, the exceptions that carry a failure to
// main(), and run_guarded(), the one place where an exception becomes one line on stderr and a code.
//
//   0  verified                      1  wrong result
//   2  bad command line or input     3  no usable GPU, or not enough device memory
//   4  a CUDA error while running (the message names the call that failed)
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
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// No CUDA device or driver, or too little memory for the requested size: exit 3.
class EnvironmentError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A CUDA runtime call that failed; the text names the call, file and line (see CUDA_CHECK).
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
    try {
        return body();
    } catch (const UsageError& e) {
        std::cerr << "error: " << e.what() << "\n";
        return exit_bad_input;
    } catch (const EnvironmentError& e) {
        std::cerr << "error: " << e.what() << "\n";
        return exit_no_gpu;
    } catch (const CudaError& e) {
        std::cerr << "CUDA error: " << e.what() << "\n";
        return is_environment_failure(e.code()) ? exit_no_gpu : exit_cuda_error;
    } catch (const std::bad_alloc&) {
        std::cerr << "error: not enough host memory for the input and its reference; try a smaller --n\n";
        return exit_no_gpu;
    } catch (const std::length_error&) {  // a vector longer than the host can address
        std::cerr << "error: the input is larger than this machine can hold; try a smaller --n\n";
        return exit_no_gpu;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return exit_cuda_error;
    }
}

}  // namespace reduction
