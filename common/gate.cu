#include "gate.h"

#include "cuda_check.h"

#include <atomic>

namespace reduction {
namespace {

__device__ unsigned long long global_time_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// One thread spins until the host writes 1 to *open, or until the timeout, which it reports. Both
// point to the Gate's pinned host memory, as the current device's addresses of it.
__global__ void gate_kernel(const volatile int* open, volatile int* timed_out, unsigned long long timeout_ns) {
    const unsigned long long start = global_time_ns();
    while (*open == 0) {
        if (global_time_ns() - start > timeout_ns) {
            *timed_out = 1;
            return;
        }
    }
}

}  // namespace

Gate::Gate() {
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&flags_), 2 * sizeof(int),
                             cudaHostAllocMapped | cudaHostAllocPortable));
    flags_[0] = flags_[1] = 0;
}

Gate::~Gate() {
    open();
    cudaFreeHost(flags_);
}

void Gate::close() {
    flags_[0] = 0;
    flags_[1] = 0;
    closed_ = true;
}

void Gate::hold(cudaStream_t stream) {
    int* device_flags = nullptr;  // the current device's address of the flags
    CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flags), flags_, 0));
    gate_kernel<<<1, 1, 0, stream>>>(device_flags, device_flags + 1, gate_timeout_ns);
    CUDA_CHECK_LAUNCH();
}

void Gate::open() {
    if (!closed_) return;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    reinterpret_cast<volatile int*>(flags_)[0] = 1;
    closed_ = false;
}

void Gate::check_not_timed_out(const std::string& what) const {
    if (reinterpret_cast<volatile int*>(flags_)[1] != 0)
        throw CudaError(cudaErrorLaunchTimeout, "timing: " + what + " took more than " +
                                                    std::to_string(gate_timeout_ns / 1'000'000'000ull) +
                                                    " s, so the times would include host work");
}

}  // namespace reduction
