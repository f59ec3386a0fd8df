// Timing with CUDA events three ways: per call behind a gate kernel, batch, idle GPU (common/README.md).
#pragma once
#include "device_buffer.h"
#include <cmath>
#include <functional>
#include <vector>

namespace reduction {
inline constexpr int gate_chunk = 64;                                    // repetitions queued behind one gate
inline constexpr unsigned long long gate_timeout_ns = 5'000'000'000ull;  // the gate opens itself after 5 s

// The host's side of the gate, pinned flags mapped into every device: close(); hold(stream) on each stream, then
// the work; open() (every gate held since close()); synchronise; check_not_timed_out(what).
class Gate {
public:
    Gate();
    ~Gate();  // opens the gate: never leaves a kernel spinning behind us, whatever was thrown
    Gate(const Gate&) = delete;
    Gate& operator=(const Gate&) = delete;
    void close();
    void hold(cudaStream_t stream);  // queues one gate kernel on `stream` of the current device
    void open();
    // CudaError "timing: <what> took more than 5 s ..." if the timeout, not the host, opened it.
    void check_not_timed_out(const std::string& what) const;
private:
    int* flags_ = nullptr;  // [0]: open, [1]: timed out
    bool closed_ = false;
};

struct TimingStats {
    double median_ms = 0, min_ms = 0;
    int count = 0;
};

TimingStats summarize(std::vector<double> samples_ms);
struct Timing {
    TimingStats per_call;     // behind a gate, one event pair per call
    double batch_ms = NAN;    // per call, calls back to back (one event pair per chunk); NaN with an L2 flush
    TimingStats idle;         // GPU idle before each call
};

// Evicts the L2 by writing a buffer twice its size, so the next read comes from DRAM ("cold").
class L2Flusher {
public:
    explicit L2Flusher(std::size_t l2_bytes) : buffer_(bytes_for(l2_bytes)) {}
    static std::size_t bytes_for(std::size_t l2_bytes) { return 2 * l2_bytes; }  // for the memory check
    void flush(cudaStream_t s) { CUDA_CHECK(cudaMemsetAsync(buffer_.get(), ++value_ & 0xFF, buffer_.bytes(), s)); }
private:
    DeviceBuffer<unsigned char> buffer_;
    int value_ = 0;
};

struct TimedStream {  // a stream the timed work runs on, and its device
    int device = 0;
    cudaStream_t stream = nullptr;
};

struct AcrossRanks {  // what the processes of an MPI run do together; both empty in a single process
    std::function<void()> barrier;                    // before the gates open, before each idle call
    std::function<void(std::vector<double>&)> max;    // element-wise over the ranks, in place
};

// work() enqueues one call on every stream: `warmup` untimed, then `iters` each way; the slowest stream's times.
Timing time_on_device(const std::function<void()>& work, int warmup, int iters, const std::vector<TimedStream>& streams,
                      L2Flusher* flusher = nullptr, const AcrossRanks& ranks = {});

// Bytes read / time, in GB/s (10^9 bytes per second, as memory datasheets count).
inline double bandwidth_gbps(std::size_t bytes, double milliseconds) {
    return static_cast<double>(bytes) / (milliseconds * 1e-3) / 1e9;
}
}  // namespace reduction
