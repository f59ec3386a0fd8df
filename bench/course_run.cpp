#include "course_run.h"

#include "course_steps.h"
#include "device_input.h"
#include "errors.h"
#include "measure.h"

#include <algorithm>
#include <iostream>
#include <memory>

namespace reduction::bench {
namespace {

// "01, 02, ..., 07, cub", from the course itself so that a new step is listed without an edit.
std::string valid_step_keys() {
    std::string keys;
    for (const StepApi& step : course_steps()) keys += std::string(step.name).substr(4, 2) + ", ";
    return keys + cub_step().name + " (a full name such as " + course_steps().front().name + " works too)";
}

Row to_row(const Measurement& m, const DeviceInfo& device) {
    Row row;
    row.type = type_name(m.type);
    row.n = m.n;
    row.block = m.block;
    row.step = m.step;
    row.change = m.change;
    row.median_ms = m.time.median_ms;
    row.min_ms = m.time.min_ms;
    row.gbps = m.gbps;
    row.percent_of_peak = m.percent_of_peak;
    row.peak_gbps = device.peak_gbps;
    row.l2_flushed = m.l2_flushed;
    row.pass = m.verdict.pass;
    return row;
}

template <class T>
TypeRun measure_typed(const std::vector<const StepApi*>& steps, const Options& options, const DeviceInfo& device) {
    InputPlan<T> plan(options);
    const std::size_t n = plan.n();
    require_device_memory(device_bytes_needed(steps, element_type_of<T>(), n, options, device),
                          "the course table on " + std::to_string(n) + " " + type_name(element_type_of<T>()));

    const DeviceInput<T> input = upload_input(plan);
    const std::unique_ptr<L2Flusher> flusher = l2_flusher(options, device);
    const MeasureSettings settings = measure_settings(options);

    TypeRun run;
    run.input_description = input.description;
    run.n = n;
    for (const StepApi* step : steps) {
        const Measurement m =
            measure_step(*step, input.values.get(), n, input.reference, settings, device, flusher.get(), cudaStream_t{});
        if (!m.verdict.pass)
            std::cerr << step->name << ": verification FAILED on " << n << " " << type_name(m.type) << ": "
                      << m.verdict.note << " (result " << m.verdict.result << ", expected " << m.verdict.expected
                      << ")\n";
        run.rows.push_back(to_row(m, device));
    }
    return run;
}

}  // namespace

std::vector<const StepApi*> selected_steps(const Options& options) {
    const std::vector<StepApi>& course = course_steps();
    std::vector<bool> wanted(course.size(), options.steps.empty());
    bool cub = options.steps.empty();
    for (const std::string& key : options.steps) {
        const StepApi* step = find_step(key);
        if (!step)
            throw UsageError("--steps: '" + key + "' is not a step of the course; valid keys: " + valid_step_keys());
        if (step == &cub_step())
            cub = true;
        else
            wanted[static_cast<std::size_t>(step - course.data())] = true;
    }
    std::vector<const StepApi*> steps;
    for (std::size_t i = 0; i < course.size(); ++i)
        if (wanted[i]) steps.push_back(&course[i]);
    if (cub) steps.push_back(&cub_step());
    return steps;
}

std::vector<ElementType> selected_types(const Options& options) {
    if (options.both_types || (options.sweep && !options.type_given)) return {ElementType::int32, ElementType::float32};
    return {options.type};
}

std::size_t device_bytes_needed(const std::vector<const StepApi*>& steps, ElementType type, std::size_t n,
                                const Options& options, const DeviceInfo& device) {
    return reduction::device_bytes_needed(steps, type, n, options.block, options.flush_l2 ? 2 * device.l2_bytes : 0);
}

TypeRun measure_steps(const std::vector<const StepApi*>& steps, ElementType type, const Options& options,
                      const DeviceInfo& device) {
    return dispatch_type(type, [&](auto zero) { return measure_typed<decltype(zero)>(steps, options, device); });
}

}  // namespace reduction::bench
