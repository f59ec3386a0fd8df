// What compare measures (course_table.h): the plan of steps and types, and the steps measured on one input.
#include "any_order_bound.h"
#include "course_steps.h"
#include "course_table.h"
#include "exit_codes.h"
#include "input.h"

#include <iostream>
#include <optional>
#include <type_traits>

namespace reduction::bench {
namespace {

// "01, 02, ..., 10, cub, read_probe, read_probe_bulk", from the course itself so that a new step is
// listed without an edit.
std::string valid_step_keys() {
    std::string keys;
    for (const StepApi& step : course_steps()) keys += std::string(step.name).substr(4, 2) + ", ";
    return keys + cub_step().name + ", " + read_probe_step().name + ", " + read_probe_bulk_step().name +
           " (a full name such as " + course_steps().front().name + " works too)";
}

// The read probe's patterns: not reductions, never verified, the same for every operator.
bool is_probe(const StepApi& step) { return &step == &read_probe_step() || &step == &read_probe_bulk_step(); }

// The StepApi that runs `step` with the operator; nullptr when the step only sums.
const StepApi* with_operator(const StepApi& step, OpKind op) {
    if (op == OpKind::sum || is_probe(step)) return &step;
    const StepOps* ops = step_ops(step);
    return ops ? &ops->for_op(op) : nullptr;
}

// CUB's float sums: measure_step checks them with gamma_{n-1}, which says nothing from about 2^23
// floats on; they are checked again, on one more run, against the any-order bound
// (any_order_bound.h) wherever that one still says something. int32 stays exact.
template <class T>
void verify_cub_any_order(const StepApi& step, Measurement& m, const DeviceInput<T>& input, int block) {
    if (&step != &cub_step() || !std::is_floating_point_v<T>) return;
    StepRun<T> run(step, input.values.get(), input.n, block);
    std::optional<Verdict> verdict = verify_any_order(run.run_once(), input.reference);
    if (!verdict) return;
    if (m.verified && !m.verdict.pass) return;  // gamma_{n-1} already failed it: keep that verdict
    m.verified = true;
    m.verdict = std::move(*verdict);
}

template <class T>
std::vector<Measurement> measure_typed(const std::vector<const StepApi*>& steps, const InputSpec& spec, OpKind op,
                                       const MeasureSettings& settings, const DeviceInfo& device) {
    const RunInput<T> run = prepare_run<T>(steps, spec, op, settings, device, "the course table");
    std::vector<Measurement> rows;
    for (const StepApi* step : steps) {
        const bool check = !is_probe(*step);
        Measurement m = measure_step(*step, run, settings, device, check);
        if (check) verify_cub_any_order(*step, m, run.input, settings.block);
        if (m.verified && !m.verdict.pass)
            std::cerr << step->name << ": verification FAILED on " << m.n << " " << type_name(m.type) << ": "
                      << m.verdict.note << " (result " << m.verdict.result << ", expected " << m.verdict.expected
                      << ")\n";
        rows.push_back(std::move(m));
    }
    rate_table(rows);
    return rows;
}

// --steps resolved with find_step, in course order with CUB last whatever order they were named
// in, so that "x previous" always compares a step with the one before it. Default: every step
// and CUB. An unknown key is a UsageError listing the valid ones.
std::vector<const StepApi*> selected_steps(const std::vector<std::string>& keys, OpKind op) {
    const std::vector<StepApi>& course = course_steps();
    const bool all = keys.empty();
    std::vector<bool> wanted(course.size(), all);
    bool cub = all, probe = all, bulk_probe = all && bulk_copies_available();  // the bulk pattern: sm_90 builds and GPUs
    for (const std::string& key : keys) {
        const StepApi* step = key == read_probe_step().name        ? &read_probe_step()
                              : key == read_probe_bulk_step().name ? &read_probe_bulk_step()
                                                                   : find_step(key);
        if (!step)
            throw UsageError("--steps: '" + key + "' is not a step of the course; valid keys: " + valid_step_keys());
        if (step == &cub_step())
            cub = true;
        else if (step == &read_probe_step())
            probe = true;
        else if (step == &read_probe_bulk_step())
            bulk_probe = true;
        else if (!with_operator(*step, op))
            throw UsageError("--steps: " + std::string(step->name) + " computes sums only; --op " + op_name(op) +
                             " needs a step whose operator is a template parameter (step11_any_operator on)");
        else
            wanted[static_cast<std::size_t>(step - course.data())] = true;
    }
    // --op max|min without --steps: the steps that take an operator, CUB and the probe
    std::vector<const StepApi*> steps;
    for (std::size_t i = 0; i < course.size(); ++i)
        if (wanted[i])
            if (const StepApi* step = with_operator(course[i], op)) steps.push_back(step);
    if (cub) steps.push_back(with_operator(cub_step(), op));
    if (probe) steps.push_back(&read_probe_step());
    if (bulk_probe) steps.push_back(&read_probe_bulk_step());
    return steps;
}

// --type all: int32 and float32. --sweep without --type: the same two. Otherwise the one type.
std::vector<ElementType> selected_types(const Options& options) {
    if (options.both_types || (options.sweep && !options.type_given)) return {ElementType::int32, ElementType::float32};
    return {options.type};
}

}  // namespace

ComparePlan plan_compare(const Options& options) {
    ComparePlan plan{selected_steps(options.steps, options.op), selected_types(options)};
    if (!options.input.path.empty() && plan.types.size() > 1)
        throw UsageError("--input holds values of one type; name it with --type int32, float32 or float64, not all");
    if (options.sweep && options.format == OutputFormat::json) throw UsageError("--sweep writes CSV; drop --json");
    if (!options.sweep) plan.n = input_count(options.input, plan.types.front());  // reads the file's size, nothing more
    return plan;
}

std::vector<Measurement> measure_steps(const std::vector<const StepApi*>& steps, ElementType type, const InputSpec& input,
                                       OpKind op, const MeasureSettings& settings, const DeviceInfo& device) {
    return dispatch_type(type, [&](auto zero) { return measure_typed<decltype(zero)>(steps, input, op, settings, device); });
}

}  // namespace reduction::bench
