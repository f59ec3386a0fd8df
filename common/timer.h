// Timing of device work with CUDA events.
//
// Each repetition gets its own pair of events around the whole reduction (every launch until one
// value is on the device), so the host's own work between launches is never timed. Warm-up runs
// first (module load, first-touch of the pages); the median and the minimum over the repetitions
// are reported: the median is the honest number, the minimum what the hardware can do.
#pragma once

#include "cuda_check.h"
#include "device_buffer.h"

#include <cstddef>
#include <vector>

namespace reduction {

struct TimingStats {
    double median_ms = 0;
    double min_ms = 0;
    int count = 0;
};

// Median (mean of the two middle values for an even count) and minimum. Throws on no samples.
TimingStats summarize(std::vector<double> samples_ms);

// Evicts the L2 by writing a buffer twice its size, so the next read comes from DRAM ("cold").
class L2Flusher {
public:
    explicit L2Flusher(std::size_t l2_bytes) : buffer_(2 * l2_bytes) {}
    void flush(cudaStream_t stream) {
        CUDA_CHECK(cudaMemsetAsync(buffer_.get(), ++value_ & 0xFF, buffer_.bytes(), stream));
    }
    std::size_t bytes() const { return buffer_.bytes(); }

private:
    DeviceBuffer<unsigned char> buffer_;
    int value_ = 0;
};

// Runs run(stream) `warmup` times untimed, then `iters` times each between two events.
// With a flusher, the L2 is flushed before every repetition, outside the events.
template <class Run>
TimingStats time_on_device(Run&& run, int warmup, int iters, cudaStream_t stream, L2Flusher* flusher = nullptr) {
    for (int i = 0; i < warmup; ++i) {
        if (flusher) flusher->flush(stream);
        run(stream);
    }
    std::vector<cudaEvent_t> starts(iters), stops(iters);
    struct Events {  // destroys whatever was created, on every exit path
        std::vector<cudaEvent_t>& a;
        std::vector<cudaEvent_t>& b;
        ~Events() {
            for (auto e : a) if (e) cudaEventDestroy(e);
            for (auto e : b) if (e) cudaEventDestroy(e);
        }
    } guard{starts, stops};
    for (int i = 0; i < iters; ++i) {
        starts[i] = stops[i] = nullptr;
        CUDA_CHECK(cudaEventCreate(&starts[i]));
        CUDA_CHECK(cudaEventCreate(&stops[i]));
    }
    for (int i = 0; i < iters; ++i) {
        if (flusher) flusher->flush(stream);
        CUDA_CHECK(cudaEventRecord(starts[i], stream));
        run(stream);
        CUDA_CHECK(cudaEventRecord(stops[i], stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<double> samples(iters);
    for (int i = 0; i < iters; ++i) {
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, starts[i], stops[i]));
        samples[i] = ms;
    }
    return summarize(std::move(samples));
}

// Bytes read / time, in GB/s (10^9 bytes per second, as memory datasheets count).
inline double bandwidth_gbps(std::size_t bytes, double milliseconds) {
    return static_cast<double>(bytes) / (milliseconds * 1e-3) / 1e9;
}

}  // namespace reduction
