#include "measure.h"

#include <algorithm>

namespace reduction {

std::size_t step_working_bytes(const StepApi& step, ElementType type, std::size_t n, int block) {
    return step.scratch_bytes(type, n, block) + type_size(type);
}

std::size_t device_bytes_needed(const std::vector<const StepApi*>& steps, ElementType type, std::size_t n, int block,
                                std::size_t flush_bytes) {
    std::size_t working = 0;
    for (const StepApi* step : steps) working = std::max(working, step_working_bytes(*step, type, n, block));
    return n * type_size(type) + working + flush_bytes;
}

template <class T>
Measurement measure_step(const StepApi& step, const T* device_input, std::size_t n, const Reference& reference,
                         const MeasureSettings& settings, const DeviceInfo& device, L2Flusher* flusher,
                         cudaStream_t stream) {
    StepRun<T> run(step, device_input, n, settings.block);
    Measurement m;
    m.step = step.name;
    m.change = step.change;
    m.type = element_type_of<T>();
    m.n = n;
    m.block = settings.block;
    m.depth = run.addition_depth();
    m.l2_flushed = flusher != nullptr;

    const Verdict first = verify(run.run_once(stream), reference, m.depth);
    m.time = time_on_device([&](cudaStream_t s) { run.launch(s); }, settings.warmup, settings.iters, stream, flusher);
    // the last timed repetition's result must be right too: a race can hide in the first run
    const Verdict after_timing = verify(run.read_result(stream), reference, m.depth);
    m.verdict = first.pass ? after_timing : first;
    if (first.pass && !after_timing.pass) m.verdict.note = "right on the first run, wrong after timing: " + after_timing.note;

    m.gbps = bandwidth_gbps(n * sizeof(T), m.time.median_ms);
    m.percent_of_peak = device.peak_gbps > 0 ? 100.0 * m.gbps / device.peak_gbps : 0.0;
    return m;
}

#define REDUCTION_INSTANTIATE_MEASURE(T)                                                                    \
    template Measurement measure_step<T>(const StepApi&, const T*, std::size_t, const Reference&,          \
                                         const MeasureSettings&, const DeviceInfo&, L2Flusher*, cudaStream_t);
REDUCTION_INSTANTIATE_MEASURE(std::int32_t)
REDUCTION_INSTANTIATE_MEASURE(float)
REDUCTION_INSTANTIATE_MEASURE(double)

}  // namespace reduction
