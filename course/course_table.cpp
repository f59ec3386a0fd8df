// compare's library (course_table.h): the plan, the steps measured on one input, and the arithmetic on rows.
#include "course_table.h"
#include "any_order_bound.h"
#include "course_steps.h"
#include "exit_codes.h"
#include "input.h"
#include "report.h"
#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>
#include <type_traits>

namespace reduction::course {
namespace {
// other's per-call median / mine, only when both are real times: a zero or missing time gives no ratio.
std::optional<double> speedup(const Measurement* other, const Measurement& mine) {
    const double theirs = other ? other->time.per_call.median_ms : NAN, ours = mine.time.per_call.median_ms;
    if (!(theirs > 0) || !(ours > 0) || !std::isfinite(theirs) || !std::isfinite(ours)) return std::nullopt;
    return theirs / ours;
}

std::string ratio_cell(const std::optional<double>& ratio) { return ratio ? format_number("%.2f", *ratio) : "-"; }

// The read probe's patterns: not reductions, never verified, the same for every operator.
bool is_probe(const StepApi& step) { return &step == &read_probe_step() || &step == &read_probe_bulk_step(); }

// CUB's sums, whose order of additions is not ours to know: checked against the any-order bound too.
bool is_cub_sum(const StepApi& step) { return &step == &cub_step() || &step == cub_gpu_to_gpu_step(); }

// Whether the step has functions for T (cub_gpu_to_gpu has none for int32), and the steps of a table of T.
template <class T>
bool runs_on(const StepApi& step) { return typed<T>(step).reduce != nullptr; }

template <class T>
std::vector<const StepApi*> steps_on(const std::vector<const StepApi*>& steps) {
    std::vector<const StepApi*> kept;
    for (const StepApi* step : steps)
        if (runs_on<T>(*step)) kept.push_back(step);
    return kept;
}

// The StepApi that runs `step` with the operator; nullptr when the step only sums.
const StepApi* with_operator(const StepApi& step, OpKind op) {
    if (op == OpKind::sum || is_probe(step)) return &step;
    const StepOps* ops = step_ops(step);
    return ops ? &ops->for_op(op) : nullptr;
}

// --steps in course order, then CUB's rows and the probes, so that "x previous" compares a step with the one before
// it. Default: all (cub_gpu_to_gpu where the build has it, the bulk pattern where build and GPU have it); with
// --op max|min, those that take an operator.
std::vector<const StepApi*> selected_steps(const std::vector<std::string>& keys, OpKind op) {
    std::vector<const StepApi*> candidates;
    std::string valid;  // "01, 02, ..., cub, cub_gpu_to_gpu, read_probe, read_probe_bulk": a new step needs no edit
    for (const StepApi& step : course_steps()) {
        candidates.push_back(&step);
        valid += std::string(step.name).substr(4, 2) + ", ";
    }
    candidates.push_back(&cub_step());
    if (const StepApi* reproducible = cub_gpu_to_gpu_step()) candidates.push_back(reproducible);
    candidates.insert(candidates.end(), {&read_probe_step(), &read_probe_bulk_step()});
    for (std::size_t i = course_steps().size(); i < candidates.size(); ++i)
        valid += candidates[i]->name + std::string(", ");
    std::vector<bool> wanted(candidates.size(), keys.empty());
    wanted.back() = keys.empty() && bulk_copies_available();  // the bulk pattern: sm_90 and later builds and GPUs
    for (const std::string& key : keys) {
        if (key == cub_gpu_to_gpu_name && !cub_gpu_to_gpu_step())
            throw UsageError("--steps: " + key + " is not in this build: " + cub_gpu_to_gpu_missing() +
                             " (then configure and build again)");
        const StepApi* step = find_step(key);
        if (!step)
            throw UsageError("--steps: '" + key + "' is not a step of the course; valid keys: " +
                             valid.substr(0, valid.size() - 2) + " (a full name such as " + course_steps().front().name +
                             " works too)");
        if (!with_operator(*step, op) && step == cub_gpu_to_gpu_step())
            throw UsageError("--steps: " + key + " has no --op " + op_name(op) + ": " + cub_gpu_to_gpu_float_only);
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

// cub_gpu_to_gpu sums float32 and float64 only. Named in --steps for none of the plan's types: the user's mistake.
// Otherwise left out of the int32 table with a note (and int32 out of the plan where no other row is left in it), or
// out of the plan when chosen by default for int32 alone. Without its library, a note says why it is skipped.
void place_gpu_to_gpu(ComparePlan& plan, const Options& options) {
    const StepApi* reproducible = cub_gpu_to_gpu_step();
    if (!reproducible) {
        const auto is_float = [](ElementType type) { return type != ElementType::int32; };
        const bool floats = std::any_of(plan.types.begin(), plan.types.end(), is_float);
        if (options.steps.empty() && options.op == OpKind::sum && floats)
            plan.notes.push_back(std::string(cub_gpu_to_gpu_name) + ": skipped: " + cub_gpu_to_gpu_missing());
        return;
    }
    const auto at = std::find(plan.steps.begin(), plan.steps.end(), reproducible);
    if (at == plan.steps.end()) return;
    const auto runs = [&](ElementType type) {
        return dispatch_type(type, [&](auto zero) { return runs_on<decltype(zero)>(*reproducible); });
    };
    if (std::none_of(plan.types.begin(), plan.types.end(), runs)) {
        if (!options.steps.empty())
            throw UsageError(std::string("--steps: ") + cub_gpu_to_gpu_name + " has no " + type_name(plan.types.front()) +
                             " table (--type float32, float64 or all): " + cub_gpu_to_gpu_float_only);
        plan.steps.erase(at);
        return;
    }
    for (auto type = plan.types.begin(); type != plan.types.end();) {
        if (runs(*type)) {
            ++type;
            continue;
        }
        plan.notes.push_back(std::string(cub_gpu_to_gpu_name) + ": not in the " + type_name(*type) + " table: " +
                             cub_gpu_to_gpu_float_only);
        type = plan.steps.size() > 1 ? type + 1 : plan.types.erase(type);  // a table of no row: the type goes
    }
}
}  // namespace

ComparePlan plan_compare(const Options& options) {
    // --type all: int32 and float32, and so does --sweep without --type
    const bool both = options.both_types || (options.sweep && !options.type_given);
    ComparePlan plan{selected_steps(options.steps, options.op),
                     both ? std::vector<ElementType>{ElementType::int32, ElementType::float32}
                          : std::vector<ElementType>{options.type},
                     options.input, {}};
    if (!options.input.path.empty() && plan.types.size() > 1)
        throw UsageError("--input holds values of one type; name it with --type int32, float32 or float64, not all");
    if (options.sweep && options.format == OutputFormat::json) throw UsageError("--sweep writes CSV; drop --json");
    place_gpu_to_gpu(plan, options);
    if (!options.sweep)  // the file's size, nothing more
        plan.input = dispatch_type(plan.types.front(), [&](auto zero) { return counted_input<decltype(zero)>(options.input); });
    return plan;
}

std::size_t bytes_needed(const std::vector<const StepApi*>& steps, ElementType type, std::size_t n,
                         const MeasureSettings& settings, const DeviceInfo& device) {
    return dispatch_type(type, [&](auto zero) {
        using T = decltype(zero);
        std::size_t largest = 0;
        for (const StepApi* step : steps_on<T>(steps))
            largest = std::max(largest, typed<T>(*step).scratch_bytes(n, settings.block));
        return device_bytes_needed<T>(largest, n, settings, device);
    });
}

std::vector<TableRow> measure_steps(const std::vector<const StepApi*>& steps, ElementType type, const InputSpec& input,
                                    OpKind op, const MeasureSettings& settings, const DeviceInfo& device) {
    return dispatch_type(type, [&](auto zero) {
        using T = decltype(zero);
        const std::vector<const StepApi*> table = steps_on<T>(steps);
        const RunInput<T> run = prepare_run<T>(table, input, op, settings, device, "the course table");
        std::vector<Measurement> rows;
        for (const StepApi* step : table) {
            Measurement& m = rows.emplace_back(measure_step(*step, run, settings, device, !is_probe(*step)));
            // CUB's float sums: gamma_{n-1} says nothing from about 2^23 floats on, so unless it failed them they
            // are checked again, on one more run, against the any-order bound wherever that one says something
            if (is_cub_sum(*step) && std::is_floating_point_v<T> && (!m.verified || m.verdict.pass)) {
                StepRun<T> again(*step, run.input.values.get(), run.input.n, settings.block, run.scratch_bytes(*step));
                if (std::optional<Verdict> verdict = verify_any_order(again.run_once(), run.input.reference)) {
                    m.verified = true;
                    m.verdict = std::move(*verdict);
                }
            }
            if (m.verified && !m.verdict.pass)
                std::cerr << step->name << ": verification FAILED on " << m.n << " " << type_name(m.type) << ": "
                          << m.verdict.note << " (result " << m.verdict.result << ", expected " << m.verdict.expected
                          << ")\n";
        }
        return rate_table(rows);
    });
}

std::vector<TableRow> rate_table(const std::vector<Measurement>& measured) {
    std::vector<TableRow> rows;
    for (const Measurement& m : measured) rows.push_back({m});
    const Measurement *first = nullptr, *cub = nullptr;
    for (const Measurement& row : rows) {
        if (!first && row.step.rfind("step01", 0) == 0) first = &row;  // "step01_interleaved"
        if (!cub && row.step == "cub") cub = &row;
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        // CUB's rows (cub, cub_gpu_to_gpu) are no steps of the course
        const bool next_step = i > 0 && rows[i].step.rfind("cub", 0) != 0 && rows[i].verified;
        rows[i].ratios = {speedup(next_step ? &rows[i - 1] : nullptr, rows[i]), speedup(first, rows[i]),
                          speedup(cub, rows[i])};
    }
    return rows;
}

ExtraCells ratio_cells(const Ratios& ratios) {
    const auto cell = [](const char* name, const std::optional<double>& ratio) {
        return ExtraCell{name, ratio.value_or(NAN), "%.4f"};
    };
    return {cell("x_previous", ratios.previous), cell("x_step01", ratios.step01), cell("x_cub", ratios.cub)};
}

std::string l2_text(bool flushed) { return std::string("L2 ") + l2_word(flushed); }

std::string text_table(const std::vector<TableRow>& rows) {
    std::vector<std::vector<std::string>> lines = {{"step", "what changed", "ms/call", "batch ms", "GB/s", "% of peak",
                                                    "x previous", "x step01", "x CUB", "check"}};
    for (const TableRow& r : rows)
        lines.push_back({r.step, r.change, format_number("%.4f", r.time.per_call.median_ms),
                         std::isfinite(r.time.batch_ms) ? format_number("%.4f", r.time.batch_ms) : "-",
                         format_number("%.1f", r.gbps), format_number("%.1f", r.percent_of_peak),
                         ratio_cell(r.ratios.previous), ratio_cell(r.ratios.step01), ratio_cell(r.ratios.cub),
                         status_text(r)});
    std::vector<std::size_t> width(lines[0].size(), 0);
    for (const auto& cells : lines)
        for (std::size_t c = 0; c < cells.size(); ++c) width[c] = std::max(width[c], cells[c].size());
    std::string out;
    for (const auto& cells : lines) {
        std::string line;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::string pad(width[c] - cells[c].size(), ' ');
            const bool left = c < 2 || c + 1 == cells.size();  // step, change and check; the numbers right-aligned
            line += (c > 0 ? "  " : "") + (left ? cells[c] + pad : pad + cells[c]);
        }
        line.erase(line.find_last_not_of(' ') + 1);
        out += line + "\n";
    }
    return out;
}

bool fits_with_margin(std::size_t bytes_needed, std::size_t budget_bytes) {
    return bytes_needed <= budget_bytes && bytes_needed / 10 <= budget_bytes - bytes_needed;
}

SweepPlan plan_sweep(std::size_t budget_bytes, const std::function<std::size_t(std::size_t n)>& bytes_needed) {
    SweepPlan plan;
    for (int log2 = sweep_first_log2; log2 <= sweep_last_log2; ++log2) {
        const std::size_t n = std::size_t{1} << log2;
        // the bytes needed only grow with n: once one size does not fit, no larger one does
        (plan.skipped.empty() && fits_with_margin(bytes_needed(n), budget_bytes) ? plan.sizes : plan.skipped).push_back(n);
    }
    return plan;
}
}  // namespace reduction::course
