#include "timer.h"
#include <algorithm>
#include <atomic>
#include <memory>
#include <numeric>

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
    while (*open == 0 && global_time_ns() - start <= timeout_ns) {
    }
    if (*open == 0) *timed_out = 1;
}

// `count` events on each stream, each created on its stream's device.
class Events {
public:
    Events(const std::vector<TimedStream>& streams, int count) : streams_(streams), count_(count) {
        for (const TimedStream& s : streams) {
            CUDA_CHECK(cudaSetDevice(s.device));
            for (int i = 0; i < count; ++i) {
                cudaEvent_t event = nullptr;
                CUDA_CHECK(cudaEventCreate(&event));
                events_.emplace_back(event, &cudaEventDestroy);
            }
        }
    }
    cudaEvent_t at(std::size_t stream, int i) const { return events_[stream * count_ + i].get(); }
    void record(int i) const {  // event i on every stream
        for (std::size_t s = 0; s < streams_.size(); ++s) {
            CUDA_CHECK(cudaSetDevice(streams_[s].device));
            CUDA_CHECK(cudaEventRecord(at(s, i), streams_[s].stream));
        }
    }
    // The slowest stream's time from this event i to `stop`'s: the work is done when every GPU is.
    double slowest_ms(const Events& stop, int i) const {
        double slowest = 0;
        for (std::size_t s = 0; s < streams_.size(); ++s) {
            float ms = 0;
            CUDA_CHECK(cudaEventElapsedTime(&ms, at(s, i), stop.at(s, i)));
            slowest = std::max(slowest, static_cast<double>(ms));
        }
        return slowest;
    }
private:
    const std::vector<TimedStream>& streams_;
    std::size_t count_;
    std::vector<std::unique_ptr<CUevent_st, cudaError_t (*)(cudaEvent_t)>> events_;
};
}  // namespace

Gate::Gate() {
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&flags_), 2 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
    flags_[0] = flags_[1] = 0;
}

Gate::~Gate() {
    open();
    cudaFreeHost(flags_);
}

void Gate::close() {
    flags_[0] = flags_[1] = 0;
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

TimingStats summarize(std::vector<double> samples_ms) {
    if (samples_ms.empty()) throw std::invalid_argument("summarize: no timing samples");
    std::sort(samples_ms.begin(), samples_ms.end());
    const std::size_t count = samples_ms.size();
    const double median = count % 2 == 1 ? samples_ms[count / 2] : (samples_ms[count / 2 - 1] + samples_ms[count / 2]) / 2;
    return {median, samples_ms.front(), static_cast<int>(count)};
}

Timing time_on_device(const std::function<void()>& work, int warmup, int iters, const std::vector<TimedStream>& streams,
                      L2Flusher* flusher, const AcrossRanks& ranks) {
    const auto flush = [&] { if (flusher) flusher->flush(streams.front().stream); };
    const auto synchronize = [&] {
        for (const TimedStream& s : streams) {
            CUDA_CHECK(cudaSetDevice(s.device));
            CUDA_CHECK(cudaStreamSynchronize(s.stream));
        }
        if (ranks.barrier) ranks.barrier();
    };
    const auto slowest_rank = [&](std::vector<double> samples) {
        if (ranks.max) ranks.max(samples);
        return samples;
    };
    for (int i = 0; i < warmup; ++i) {
        flush();
        work();
    }
    synchronize();
    Gate gate;
    const Events starts(streams, gate_chunk), stops(streams, gate_chunk);
    // Chunks of calls queued behind the closed gate, then released: events around each call, or each chunk (batch).
    const auto behind_gate = [&](bool pair_per_call) {
        std::vector<double> samples;
        for (int done = 0; done < iters;) {
            const int count = std::min(gate_chunk, iters - done);
            gate.close();
            for (const TimedStream& s : streams) {
                CUDA_CHECK(cudaSetDevice(s.device));
                gate.hold(s.stream);
            }
            if (!pair_per_call) starts.record(0);
            for (int i = 0; i < count; ++i) {
                if (pair_per_call) {
                    flush();
                    starts.record(i);
                }
                work();
                if (pair_per_call) stops.record(i);
            }
            if (!pair_per_call) stops.record(0);
            if (ranks.barrier) ranks.barrier();
            gate.open();
            synchronize();
            gate.check_not_timed_out("queueing " + std::to_string(gate_chunk) + " repetitions behind the gate kernel");
            for (int i = 0; i < (pair_per_call ? count : 1); ++i) samples.push_back(starts.slowest_ms(stops, i));
            done += count;
        }
        return slowest_rank(std::move(samples));
    };
    Timing timing;
    timing.per_call = summarize(behind_gate(true));
    if (!flusher) {
        const std::vector<double> batch = behind_gate(false);
        timing.batch_ms = std::accumulate(batch.begin(), batch.end(), 0.0) / iters;
    }
    std::vector<double> idle;
    for (int i = 0; i < iters; ++i) {
        flush();
        synchronize();
        starts.record(0);
        work();
        stops.record(0);
        synchronize();
        idle.push_back(starts.slowest_ms(stops, 0));
    }
    timing.idle = summarize(slowest_rank(std::move(idle)));
    return timing;
}
}  // namespace reduction
