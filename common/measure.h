// Running steps on one device input: verified, timed (timer.h), verified again; one Measurement per run.
#pragma once
#include "device_info.h"
#include "input.h"
#include "settings.h"
#include "step_api.h"
#include "timer.h"
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

namespace reduction {
// A step bound to one input and block size, owning scratch (scratch_bytes of the step for n and block, asked
// once by the caller; zeroed once) and output; default stream.
template <class T>
class StepRun {
public:
    StepRun(const StepApi& step, const T* device_input, std::size_t n, int block, std::size_t scratch_bytes)
        : step_(step), input_(device_input), n_(n), block_(block), scratch_(scratch_bytes), output_(1) {
        if (scratch_.bytes() > 0) CUDA_CHECK(cudaMemset(scratch_.get(), 0, scratch_.bytes()));
    }
    // The whole reduction, every launch; what the timer measures.
    void launch() { typed<T>(step_).reduce(input_, n_, output_.get(), reinterpret_cast<T*>(scratch_.get()), block_, {}); }
    // Output poisoned with 0xFF bytes first: a step that never writes it cannot pass on an old right answer.
    T run_once() {
        CUDA_CHECK(cudaMemset(output_.get(), 0xFF, sizeof(T)));
        launch();
        return read_result();
    }
    T read_result() {
        T value{};
        CUDA_CHECK(cudaMemcpy(&value, output_.get(), sizeof(T), cudaMemcpyDeviceToHost));
        return value;
    }
private:
    const StepApi& step_;
    const T* input_;
    std::size_t n_;
    int block_;
    DeviceBuffer<unsigned char> scratch_;
    DeviceBuffer<T> output_;
};

struct Measurement {  // one measured row: what ran, on what, how fast, and whether it was right
    std::string op = "sum";
    std::string step, change;
    ElementType type = ElementType::int32;  // for the report: the row's element type (row_for)
    std::size_t n = 0;
    std::size_t bytes = 0;          // the input's bytes, n * sizeof(T): what every bandwidth and footprint reads
    int block = 0;
    std::size_t depth = 0;          // addition_depth, for the float tolerance
    Timing time{};
    double gbps = 0;                // from the per-call median
    double percent_of_peak = 0;
    double batch_gbps = NAN;        // from the batch time; NaN when there is none
    double peak_gbps = 0;
    bool l2_flushed = false;
    bool verified = true;           // false: timed only, never checked (status "-")
    Verdict verdict{};              // the first run's, or the timed runs' if only those failed
};

// A row for n elements of T: the one place a run's template type is written back as an ElementType, the report's
// "type" cell; the input's byte count, once.
template <class T>
Measurement row_for(OpKind op, std::string step, std::string change, std::size_t n, int block, std::size_t depth) {
    return {op_name(op), std::move(step), std::move(change), element_type_of<T>(), n, n * sizeof(T), block, depth};
}

// Device bytes for n elements of T, a step's scratch (the largest of a run's), an output and the flush buffer;
// saturated (--n near 2^62 fails).
template <class T>
std::size_t device_bytes_needed(std::size_t scratch_bytes, std::size_t n, const MeasureSettings& settings,
                                const DeviceInfo& device) {
    std::size_t working = scratch_bytes + sizeof(T);
    if (settings.flush_l2) working += L2Flusher::bytes_for(device.l2_bytes);
    const std::size_t limit = std::numeric_limits<std::size_t>::max();
    return n > (limit - working) / sizeof(T) ? limit : n * sizeof(T) + working;
}

// The first run's verdict if it failed, else the last timed run's (a race can hide in the first run).
// A float sum whose bound allows any finite result (gamma_d >= 1) cannot fail: timed, not verified.
template <class T>
void set_verdict(Measurement& m, const Verdict& first, const Verdict& after_timing, const Reference& reference) {
    m.verdict = after_timing;
    if (!first.pass) m.verdict = first;
    else if (!after_timing.pass) m.verdict.note = "right on the first run, wrong after timing: " + after_timing.note;
    if constexpr (std::is_floating_point_v<T>) {
        const bool finite_sum = reference.op == OpKind::sum && reference.first_non_finite == Reference::no_index;
        if (m.verdict.pass && finite_sum && gamma_bound<T>(m.depth) >= 1.0) {
            m.verified = false;
            m.verdict.note = "timed, not verified: for an addition order this deep the error bound allows any result";
        }
    }
}

// GB/s and the share of the peak, from the per-call median and from the batch time, for the row's input bytes.
inline void add_bandwidth(Measurement& m, double peak_gbps) {
    m.peak_gbps = peak_gbps;
    m.gbps = bandwidth_gbps(m.bytes, m.time.per_call.median_ms);
    m.percent_of_peak = peak_gbps > 0 ? 100.0 * m.gbps / peak_gbps : 0.0;
    if (std::isfinite(m.time.batch_ms)) m.batch_gbps = bandwidth_gbps(m.bytes, m.time.batch_ms);
}

template <class T>
struct RunInput {  // the input every step of a run is measured on, and the L2 flusher (null: L2 warm)
    DeviceInput<T> input;
    std::unique_ptr<L2Flusher> flusher;
    std::vector<std::pair<const StepApi*, std::size_t>> scratch;  // each step's scratch_bytes for this input
    std::size_t scratch_bytes(const StepApi& step) const {
        for (const auto& [which, bytes] : scratch)
            if (which == &step) return bytes;
        throw std::logic_error(std::string(step.name) + " is not a step of this run");
    }
};

// Asks each step its scratch once, checks the device memory (EnvironmentError naming `what`), then uploads the input
// (counted_input) with its reference for `op`.
template <class T>
RunInput<T> prepare_run(const std::vector<const StepApi*>& steps, const InputSpec& spec, OpKind op,
                        const MeasureSettings& settings, const DeviceInfo& device, const std::string& what) {
    std::vector<std::pair<const StepApi*, std::size_t>> scratch;
    std::size_t largest = 0;
    for (const StepApi* step : steps)
        largest = std::max(largest, scratch.emplace_back(step, typed<T>(*step).scratch_bytes(spec.n, settings.block)).second);
    require_device_memory(device_bytes_needed<T>(largest, spec.n, settings, device),
                          what + " on " + std::to_string(spec.n) + " " + type_name<T>());
    return {upload_input<T>(spec, op), settings.flush_l2 ? std::make_unique<L2Flusher>(device.l2_bytes) : nullptr,
            std::move(scratch)};
}

// `check` false: a probe that is timed like a step but computes no reduction (status "-").
template <class T>
Measurement measure_step(const StepApi& step, const RunInput<T>& run_input, const MeasureSettings& settings,
                         const DeviceInfo& device, bool check = true) {
    const DeviceInput<T>& input = run_input.input;
    StepRun<T> run(step, input.values.get(), input.n, settings.block, run_input.scratch_bytes(step));
    Measurement m = row_for<T>(input.reference.op, step.name, step.change, input.n, settings.block,
                               step.addition_depth(input.n, settings.block));
    m.l2_flushed = run_input.flusher != nullptr;
    m.verified = check;
    const T first = run.run_once();
    m.time = time_on_device([&] { run.launch(); }, settings.warmup, settings.iters, {{device.index, cudaStream_t{}}},
                            run_input.flusher.get());
    add_bandwidth(m, device.peak_gbps);
    if (check)
        set_verdict<T>(m, verify(first, input.reference, m.depth), verify(run.read_result(), input.reference, m.depth),
                       input.reference);
    else
        m.verdict = {true, "", "", 0, 0, "not a reduction: timed, not verified"};
    return m;
}
}  // namespace reduction
