#include "gate.h"

#include "cuda_check.h"

namespace reduction {
namespace {

__device__ unsigned long long global_time_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// One thread spins until the host writes 1 to *open, or until the timeout, which it reports.
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

void queue_gate(const int* open, int* timed_out, unsigned long long timeout_ns, cudaStream_t stream) {
    gate_kernel<<<1, 1, 0, stream>>>(open, timed_out, timeout_ns);
    CUDA_CHECK_LAUNCH();
}

}  // namespace reduction
