// The gate: a one-thread kernel that holds a stream until the host opens it, so that the calls
// queued behind it start back to back, with no host work between them (timer.h says how the
// timings use it). One gate kernel for every stream of every GPU a program drives.
#pragma once

#include <cuda_runtime.h>

namespace reduction {

// Queues the gate on `stream` (of the current device): it spins until open[0] is non-zero, or, after
// timeout_ns, sets timed_out[0] to 1 and ends. Both point to host memory mapped into the device
// (cudaHostAllocMapped; cudaHostAllocPortable for several GPUs), as device pointers.
void queue_gate(const int* open, int* timed_out, unsigned long long timeout_ns, cudaStream_t stream);

}  // namespace reduction
