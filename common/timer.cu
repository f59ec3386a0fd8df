#include "timer.h"

#include "gate.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace reduction {
namespace {

// What a gate that opened itself was waiting for, in its error message.
const std::string queueing_what = "queueing " + std::to_string(gate_chunk) + " repetitions behind the gate kernel";

class Events {
public:
    explicit Events(int count) : events_(static_cast<std::size_t>(count), nullptr) {
        for (auto& e : events_) CUDA_CHECK(cudaEventCreate(&e));
    }
    ~Events() {
        for (auto e : events_)
            if (e) cudaEventDestroy(e);
    }
    Events(const Events&) = delete;
    Events& operator=(const Events&) = delete;
    cudaEvent_t operator[](std::size_t i) const { return events_[i]; }

private:
    std::vector<cudaEvent_t> events_;
};

float elapsed_ms(cudaEvent_t start, cudaEvent_t stop) {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
}

// Per call: each chunk of repetitions is queued behind a closed gate, then released at once.
TimingStats time_per_call(const DeviceWork& work, int iters, cudaStream_t stream, L2Flusher* flusher, Gate& gate) {
    Events starts(gate_chunk), stops(gate_chunk);
    std::vector<double> samples;
    for (int done = 0; done < iters;) {
        const int count = std::min(gate_chunk, iters - done);
        gate.close();
        gate.hold(stream);
        for (int i = 0; i < count; ++i) {
            if (flusher) flusher->flush(stream);
            CUDA_CHECK(cudaEventRecord(starts[i], stream));
            work(stream);
            CUDA_CHECK(cudaEventRecord(stops[i], stream));
        }
        gate.open();
        CUDA_CHECK(cudaStreamSynchronize(stream));
        gate.check_not_timed_out(queueing_what);
        for (int i = 0; i < count; ++i) samples.push_back(elapsed_ms(starts[i], stops[i]));
        done += count;
    }
    return summarize(std::move(samples));
}

// Batch: chunks of calls with nothing between them, one event pair around each chunk.
double time_batch(const DeviceWork& work, int iters, cudaStream_t stream, Gate& gate) {
    Events pair(2);
    double total_ms = 0;
    for (int done = 0; done < iters;) {
        const int count = std::min(gate_chunk, iters - done);
        gate.close();
        gate.hold(stream);
        CUDA_CHECK(cudaEventRecord(pair[0], stream));
        for (int i = 0; i < count; ++i) work(stream);
        CUDA_CHECK(cudaEventRecord(pair[1], stream));
        gate.open();
        CUDA_CHECK(cudaStreamSynchronize(stream));
        gate.check_not_timed_out(queueing_what);
        total_ms += elapsed_ms(pair[0], pair[1]);
        done += count;
    }
    return total_ms / iters;
}

// Idle: the GPU has nothing to do when each call is made.
TimingStats time_idle(const DeviceWork& work, int iters, cudaStream_t stream, L2Flusher* flusher) {
    Events pair(2);
    std::vector<double> samples;
    for (int i = 0; i < iters; ++i) {
        if (flusher) flusher->flush(stream);
        CUDA_CHECK(cudaStreamSynchronize(stream));
        CUDA_CHECK(cudaEventRecord(pair[0], stream));
        work(stream);
        CUDA_CHECK(cudaEventRecord(pair[1], stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        samples.push_back(elapsed_ms(pair[0], pair[1]));
    }
    return summarize(std::move(samples));
}

}  // namespace

TimingStats summarize(std::vector<double> samples_ms) {
    if (samples_ms.empty()) throw std::invalid_argument("summarize: no timing samples");
    std::sort(samples_ms.begin(), samples_ms.end());
    const std::size_t count = samples_ms.size();
    TimingStats stats;
    stats.count = static_cast<int>(count);
    stats.min_ms = samples_ms.front();
    stats.median_ms = count % 2 == 1 ? samples_ms[count / 2]
                                     : (samples_ms[count / 2 - 1] + samples_ms[count / 2]) / 2;
    return stats;
}

Timing time_on_device(const DeviceWork& work, int warmup, int iters, cudaStream_t stream, L2Flusher* flusher) {
    for (int i = 0; i < warmup; ++i) {
        if (flusher) flusher->flush(stream);
        work(stream);
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    Gate gate;
    Timing timing;
    timing.per_call = time_per_call(work, iters, stream, flusher, gate);
    if (!flusher) timing.batch_ms = time_batch(work, iters, stream, gate);
    timing.idle = time_idle(work, iters, stream, flusher);
    return timing;
}

}  // namespace reduction
