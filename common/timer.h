// Timing of device work with CUDA events, three ways, so that the figures mean what they say.
//
// per call (the headline: median and min): the calls are queued behind a "gate" kernel that spins
//   until the host opens it, each call (every launch of one reduction) between its own pair of
//   events; so the GPU runs them back to back from a full queue and no call waits for the host,
//   at any n. An L2 flush (--flush-l2) sits between one call's stop event and the next's start.
// batch: the calls back to back behind the gate with one event pair per chunk, total / count:
//   throughput when nothing separates the calls. A flush would be inside it: none with --flush-l2.
// idle: every stream synchronised before each call, so the GPU is idle when it is made: what one
//   isolated call costs, launch latency included (the largest figure at small n).
//
// Work on several GPUs (common/multi_gpu) is timed on every stream at once: the slowest stream's
// time, and with MPI the slowest rank's. At most gate_chunk calls are queued behind one gate:
// CUDA's launch queue is finite, and a host blocked on a full queue while the GPU waits for the
// host would deadlock. The gate opens itself after gate_timeout_ns, and the timing then fails.
#pragma once

#include "cuda_check.h"
#include "device_buffer.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace reduction {

inline constexpr int gate_chunk = 64;                                    // repetitions queued behind one gate
inline constexpr unsigned long long gate_timeout_ns = 5'000'000'000ull;  // the gate opens itself after 5 s

// The host's side of the gate: two ints in pinned host memory mapped into every device, which the
// gate kernels read and write; one write of the host opens every gate queued since close():
//   close(); hold(stream) on each stream, then the work; open(); synchronise; check_not_timed_out(what)
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
    double median_ms = 0;
    double min_ms = 0;
    int count = 0;
};

// Median (mean of the two middle values for an even count) and minimum. Throws on no samples.
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
    // Device memory a flusher takes, for the memory check before it is made.
    static std::size_t bytes_for(std::size_t l2_bytes) { return 2 * l2_bytes; }
    void flush(cudaStream_t stream) {
        CUDA_CHECK(cudaMemsetAsync(buffer_.get(), ++value_ & 0xFF, buffer_.bytes(), stream));
    }

private:
    DeviceBuffer<unsigned char> buffer_;
    int value_ = 0;
};

// A stream the timed work runs on, and its device.
struct TimedStream {
    int device = 0;
    cudaStream_t stream = nullptr;
};

// What the processes of an MPI run do together; both empty in a single process.
struct AcrossRanks {
    std::function<void()> barrier;                    // before the gates open, before each idle call
    std::function<void(std::vector<double>&)> max;    // element-wise over the ranks, in place
};

// work() enqueues one call on every stream: `warmup` times untimed, then `iters` times each of the
// three ways above. A flusher (one stream only) flushes the L2 before every timed call.
Timing time_on_device(const std::function<void()>& work, int warmup, int iters, const std::vector<TimedStream>& streams,
                      L2Flusher* flusher = nullptr, const AcrossRanks& ranks = {});

// Bytes read / time, in GB/s (10^9 bytes per second, as memory datasheets count).
inline double bandwidth_gbps(std::size_t bytes, double milliseconds) {
    return static_cast<double>(bytes) / (milliseconds * 1e-3) / 1e9;
}

}  // namespace reduction
