// Timing of device work with CUDA events, three ways, so that the figures mean what they say.
//
// per call (the headline: median and min)
//   Before the timed repetitions each stream is held by a tiny "gate" kernel that spins until the
//   host releases it. Every repetition (its own pair of events around the whole reduction, every
//   launch until one value is on the device) is queued behind the gate, then the gate is opened.
//   So the GPU runs the repetitions back to back from a full queue: no repetition waits for the
//   host, at any n. What a repetition's interval still holds: the GPU's own gap between launches
//   of one reduction, and the event at each end. With --flush-l2 the flush sits between the stop
//   event of one repetition and the start event of the next, outside every interval.
// batch
//   `iters` calls back to back, in chunks of at most gate_chunk queued behind a gate, one pair of
//   events around each chunk; the total divided by the count: throughput when nothing separates
//   the calls, not even an event. A flush between the calls would be inside the interval, so with
//   --flush-l2 there is no batch.
// idle
//   The streams are synchronised before each repetition, so the GPU is idle when the call is made:
//   what one isolated call costs a program that waits for its result. It includes the launch
//   latency (the host enqueues the first kernel while the GPU waits), so it is the largest figure
//   at small n and the three agree once the GPU's work dwarfs a few microseconds.
//
// Work that spans several GPUs (common/multi_gpu) is timed the same way on every stream at once:
// an event pair per stream, the slowest stream's time, and with MPI the slowest rank's.
//
// Queue the gate, then at most gate_chunk repetitions: CUDA's launch queue is finite, and a host
// blocked on a full queue while the GPU waits for the host would deadlock. The gate also gives up
// after gate_timeout_ns; the host then reports the timing as failed instead of hanging.
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

// The host's side of the gate: two ints in pinned host memory, mapped into every device
// (portable), that the gate kernels read and write directly; one write of the host opens every
// gate queued since close().
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

// work() enqueues one call on every stream. Runs it `warmup` times untimed, then measures it
// `iters` times in each of the three ways above. With a flusher (one stream only) the L2 is
// flushed before every timed call, outside the events.
Timing time_on_device(const std::function<void()>& work, int warmup, int iters, const std::vector<TimedStream>& streams,
                      L2Flusher* flusher = nullptr, const AcrossRanks& ranks = {});

// Bytes read / time, in GB/s (10^9 bytes per second, as memory datasheets count).
inline double bandwidth_gbps(std::size_t bytes, double milliseconds) {
    return static_cast<double>(bytes) / (milliseconds * 1e-3) / 1e9;
}

}  // namespace reduction
