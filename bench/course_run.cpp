// What compare measures (course_table.h): the plan of steps and types, and the steps measured on one input.
#include "any_order_bound.h"
#include "course_steps.h"
#include "course_table.h"
#include "exit_codes.h"
#include "input.h"

#include <algorithm>
#include <iostream>
#include <optional>
#include <type_traits>

namespace reduction::bench {
namespace {

// The read probe's patterns: not reductions, never verified, the same for every operator.
bool is_probe(const StepApi& step) { return &step == &read_probe_step() || &step == &read_probe_bulk_step(); }

// The StepApi that runs `step` with the operator; nullptr when the step only sums.
const StepApi* with_operator(const StepApi& step, OpKind op) {
    if (op == OpKind::sum || is_probe(step)) return &step;
    const StepOps* ops = step_ops(step);
    return ops ? &ops->for_op(op) : nullptr;
}

// CUB's float sums: measure_step's gamma_{n-1} says nothing from about 2^23 floats on, so unless it failed
// them they are checked again, on one more run, against the any-order bound wherever that one says something.
template <class T>
void verify_cub_any_order(const StepApi& step, Measurement& m, const DeviceInput<T>& input, int block) {
    if (&step != &cub_step() || !std::is_floating_point_v<T> || (m.verified && !m.verdict.pass)) return;
    StepRun<T> run(step, input.values.get(), input.n, block);
    if (std::optional<Verdict> verdict = verify_any_order(run.run_once(), input.reference)) {
        m.verified = true;
        m.verdict = std::move(*verdict);
    }
}

template <class T>
std::vector<Measurement> measure_typed(const std::vector<const StepApi*>& steps, const InputSpec& spec, OpKind op,
                                       const MeasureSettings& settings, const DeviceInfo& device) {
    const RunInput<T> run = prepare_run<T>(steps, spec, op, settings, device, "the course table");
    std::vector<Measurement> rows;
    for (const StepApi* step : steps) {
        Measurement m = measure_step(*step, run, settings, device, !is_probe(*step));
        verify_cub_any_order(*step, m, run.input, settings.block);
        if (m.verified && !m.verdict.pass)
            std::cerr << step->name << ": verification FAILED on " << m.n << " " << type_name(m.type) << ": "
                      << m.verdict.note << " (result " << m.verdict.result << ", expected " << m.verdict.expected
                      << ")\n";
        rows.push_back(std::move(m));
    }
    rate_table(rows);
    return rows;
}

// --steps in course order, then CUB and the probe's two patterns, whatever order they were named in, so that
// "x previous" always compares a step with the one before it. Default: all of them (the bulk pattern where the
// build and GPU have it); with --op max|min, those that take an operator. An unknown key is a UsageError.
std::vector<const StepApi*> selected_steps(const std::vector<std::string>& keys, OpKind op) {
    std::vector<const StepApi*> candidates;
    std::string valid;  // "01, 02, ..., cub, read_probe, read_probe_bulk": a new step is listed without an edit
    for (const StepApi& step : course_steps()) {
        candidates.push_back(&step);
        valid += std::string(step.name).substr(4, 2) + ", ";
    }
    candidates.insert(candidates.end(), {&cub_step(), &read_probe_step(), &read_probe_bulk_step()});
    std::vector<bool> wanted(candidates.size(), keys.empty());
    wanted.back() = keys.empty() && bulk_copies_available();  // the bulk pattern: sm_90 builds and GPUs
    for (const std::string& key : keys) {
        const StepApi* step = key == read_probe_step().name        ? &read_probe_step()
                              : key == read_probe_bulk_step().name ? &read_probe_bulk_step()
                                                                   : find_step(key);
        if (!step)
            throw UsageError("--steps: '" + key + "' is not a step of the course; valid keys: " + valid +
                             cub_step().name + ", " + read_probe_step().name + ", " + read_probe_bulk_step().name +
                             " (a full name such as " + course_steps().front().name + " works too)");
        if (!with_operator(*step, op))
            throw UsageError("--steps: " + std::string(step->name) + " computes sums only; --op " + op_name(op) +
                             " needs a step whose operator is a template parameter (step11_any_operator on)");
        wanted[std::find(candidates.begin(), candidates.end(), step) - candidates.begin()] = true;
    }
    std::vector<const StepApi*> steps;
    for (std::size_t i = 0; i < candidates.size(); ++i)
        if (const StepApi* step = wanted[i] ? with_operator(*candidates[i], op) : nullptr) steps.push_back(step);
    return steps;
}

}  // namespace

ComparePlan plan_compare(const Options& options) {
    // --type all: int32 and float32, and so does --sweep without --type
    const bool both = options.both_types || (options.sweep && !options.type_given);
    ComparePlan plan{selected_steps(options.steps, options.op),
                     both ? std::vector<ElementType>{ElementType::int32, ElementType::float32}
                          : std::vector<ElementType>{options.type}};
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
