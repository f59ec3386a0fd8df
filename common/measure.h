// Running one step on a device buffer: once to verify, then timed (timer.h), then verified again.
// The result is one Measurement, the record that every report (text, CSV, JSON) is written from.
#pragma once

#include "cuda_check.h"
#include "device_buffer.h"
#include "device_info.h"
#include "reference.h"
#include "step_api.h"
#include "timer.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace reduction {

// A step bound to one input and block size, owning the scratch and output it needs.
template <class T>
class StepRun {
public:
    // Allocates the scratch and zero-fills it once (step_api.h's contract), outside any timing.
    StepRun(const StepApi& step, const T* device_input, std::size_t n, int block)
        : step_(step), input_(device_input), n_(n), block_(block),
          scratch_(step.scratch_bytes(element_type_of<T>(), n, block)), output_(1) {
        if (scratch_.bytes() > 0) CUDA_CHECK(cudaMemset(scratch_.get(), 0, scratch_.bytes()));
    }

    // The whole reduction, every launch; what the timer measures.
    void launch(cudaStream_t stream) {
        reduce_fn<T>(step_)(input_, n_, output_.get(), reinterpret_cast<T*>(scratch_.get()), block_, stream);
    }

    // Fills the output with 0xFF bytes (NaN for floats, -1 for int32), runs once, reads the result:
    // a step that never writes its output cannot pass by leaving an old right answer behind.
    T run_once(cudaStream_t stream) {
        CUDA_CHECK(cudaMemsetAsync(output_.get(), 0xFF, sizeof(T), stream));
        launch(stream);
        return read_result(stream);
    }

    T read_result(cudaStream_t stream) {
        T value{};
        CUDA_CHECK(cudaMemcpyAsync(&value, output_.get(), sizeof(T), cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        return value;
    }

    std::size_t addition_depth() const { return step_.addition_depth(n_, block_); }

private:
    const StepApi& step_;
    const T* input_;
    std::size_t n_;
    int block_;
    DeviceBuffer<unsigned char> scratch_;
    DeviceBuffer<T> output_;
};

struct MeasureSettings {
    int block = 256;
    int warmup = 5;
    int iters = 100;
    bool verify = true;  // false: a probe that is timed like a step but computes no reduction
};

// Speed-ups as ratios of per-call medians (other's / this row's): above 1, this row is faster.
// Unset where there is nothing to compare with; a step's own output leaves them all unset.
struct Ratios {
    std::optional<double> previous;
    std::optional<double> step01;
    std::optional<double> cub;
};

// One measured row: what ran, on what, how fast, and whether it was right.
struct Measurement {
    std::string op = "sum";
    std::string step;
    std::string change;
    ElementType type = ElementType::int32;
    std::size_t n = 0;
    int block = 0;
    std::size_t depth = 0;          // addition_depth, for the float tolerance
    Timing time;
    double gbps = 0;                // from the per-call median
    double percent_of_peak = 0;
    double batch_gbps = NAN;        // from the batch time; NaN when there is none
    double peak_gbps = 0;
    bool l2_flushed = false;
    bool verified = true;           // false: timed only, never checked (status "-")
    Verdict verdict;                // the first run's, or the timed runs' if only those failed
    Ratios ratios;
};

// Device bytes a step needs besides its input: scratch and the one output value.
inline std::size_t step_working_bytes(const StepApi& step, ElementType type, std::size_t n, int block) {
    return step.scratch_bytes(type, n, block) + type_size(type);
}

// Device bytes to measure `steps` one after another on one input of n elements: the input, the
// largest step's scratch and output, and the L2 flush buffer (0 when the L2 stays warm).
inline std::size_t device_bytes_needed(const std::vector<const StepApi*>& steps, ElementType type, std::size_t n,
                                       int block, std::size_t flush_bytes) {
    std::size_t working = 0;
    for (const StepApi* step : steps)
        working = std::max(working, step_working_bytes(*step, type, n, block));
    // saturate instead of wrapping: an --n near 2^62 must fail the memory check, not pass it
    const std::size_t limit = std::numeric_limits<std::size_t>::max();
    if (n > (limit - working - flush_bytes) / type_size(type)) return limit;
    return n * type_size(type) + working + flush_bytes;
}

// The verdict of a row checked twice: the first run's if it failed, else the last timed run's (a
// race can hide in the first run), saying so when only the timed runs went wrong.
inline Verdict verdict_of_both(const Verdict& first, const Verdict& after_timing) {
    if (!first.pass) return first;
    Verdict verdict = after_timing;
    if (!after_timing.pass) verdict.note = "right on the first run, wrong after timing: " + after_timing.note;
    return verdict;
}

// A float sum whose order is unknown gets the bound of the longest possible chain (CUB: n - 1).
// Once gamma_d >= 1 that bound allows any finite result: such a PASS could not fail.
inline bool bound_allows_anything(const Measurement& m, const Reference& reference) {
    const bool float_sum = m.type != ElementType::int32 && reference.op == OpKind::sum &&
                           reference.first_non_finite == Reference::no_index;
    return float_sum && gamma_bound(m.type, m.depth) >= 1.0;
}

// GB/s and the share of the peak, from the per-call median and from the batch time.
inline void add_bandwidth(Measurement& m, std::size_t bytes, double peak_gbps) {
    m.gbps = bandwidth_gbps(bytes, m.time.per_call.median_ms);
    m.percent_of_peak = peak_gbps > 0 ? 100.0 * m.gbps / peak_gbps : 0.0;
    if (std::isfinite(m.time.batch_ms)) m.batch_gbps = bandwidth_gbps(bytes, m.time.batch_ms);
}

template <class T>
Measurement measure_step(const StepApi& step, const T* device_input, std::size_t n, const Reference& reference,
                         const MeasureSettings& settings, const DeviceInfo& device, L2Flusher* flusher,
                         cudaStream_t stream) {
    StepRun<T> run(step, device_input, n, settings.block);
    Measurement m;
    m.op = op_name(reference.op);
    m.step = step.name;
    m.change = step.change;
    m.type = element_type_of<T>();
    m.n = n;
    m.block = settings.block;
    m.depth = run.addition_depth();
    m.l2_flushed = flusher != nullptr;
    m.peak_gbps = device.peak_gbps;
    m.verified = settings.verify;
    const auto timed = [&] {
        return time_on_device([&](cudaStream_t s) { run.launch(s); }, settings.warmup, settings.iters, stream, flusher);
    };

    if (!m.verified) {
        run.run_once(stream);
        m.verdict.pass = true;
        m.verdict.note = "not a reduction: timed, not verified";
        m.time = timed();
    } else {
        const Verdict first = verify(run.run_once(stream), reference, m.depth);
        m.time = timed();
        m.verdict = verdict_of_both(first, verify(run.read_result(stream), reference, m.depth));
        if (m.verdict.pass && bound_allows_anything(m, reference)) {
            m.verified = false;
            m.verdict.note = "timed, not verified: for an addition order this deep the error bound allows any result";
        }
    }
    add_bandwidth(m, n * sizeof(T), device.peak_gbps);
    return m;
}

}  // namespace reduction
