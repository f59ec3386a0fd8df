// The gate: a one-thread kernel that holds a stream until the host opens it, so that the calls
// queued behind it start back to back, with no host work between them (timer.h says how the
// timings use it). One gate for every stream of every GPU a program drives: the timer's one
// stream, and the multi-GPU harness's stream per GPU (common/multi_gpu/team.h).
#pragma once

#include <cuda_runtime.h>

#include <string>

namespace reduction {

inline constexpr int gate_chunk = 64;                                  // repetitions queued behind one gate
inline constexpr unsigned long long gate_timeout_ns = 5'000'000'000ull;  // the gate opens itself after 5 s

// The host's side: two ints in pinned host memory, mapped into every device (portable), that the
// gate kernels read and write directly; one write of the host opens every gate queued since close().
//
//   gate.close();                          // the next gate kernels wait
//   gate.hold(stream);                     // on each stream (each GPU current in turn), then the work
//   gate.open();                           // every held stream starts at once
//   cudaStreamSynchronize(stream);         // every held one
//   gate.check_not_timed_out("queueing 64 repetitions");
class Gate {
public:
    Gate();
    ~Gate();  // opens the gate: never leaves a kernel spinning behind us, whatever was thrown
    Gate(const Gate&) = delete;
    Gate& operator=(const Gate&) = delete;

    void close();
    void hold(cudaStream_t stream);  // queues one gate kernel on `stream` of the current device
    void open();
    // After every held stream was synchronised: the gate must have been opened by the host, not by
    // the timeout. Otherwise CudaError: "timing: <what> took more than 5 s, so the times would
    // include host work".
    void check_not_timed_out(const std::string& what) const;

private:
    int* flags_ = nullptr;  // [0]: open, [1]: timed out
    bool closed_ = false;
};

}  // namespace reduction
