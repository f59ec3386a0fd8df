// Everything a step's main() does (common/README.md draws it): parse, check the input, run, verify, time, report.
#pragma once
#include "options.h"
#include "report.h"

namespace reduction {
namespace detail {
template <class T>
int run_typed(const StepApi& step, const Options& options, int argc, const char* const* argv) {
    const InputSpec spec = counted_input<T>(options.input);  // a bad --input: exit 2, on any machine
    const DeviceInfo device = open_device(options.device);
    const RunInput<T> input = prepare_run<T>({&step}, spec, options.op, options.measure, device, step.name);
    const Measurement m = measure_step(step, input, options.measure, device);
    const Stamp stamp = make_stamp(device, spec, options.measure, argc, argv);
    switch (options.format) {
        case OutputFormat::text: print_text(std::cout, m, device, input_description(spec)); break;
        case OutputFormat::csv: std::cout << stamp_lines(stamp) << csv_header() << "\n" << csv_row(m) << "\n"; break;
        case OutputFormat::json: std::cout << json_document(stamp, {m}) << "\n"; break;
    }
    if (!m.verdict.pass) std::cerr << step.name << ": verification FAILED: " << m.verdict.note << "\n";
    return m.verdict.pass ? exit_ok : exit_wrong_result;
}

// The run of one step whose operator is fixed (sum) or chosen by --op (`ops` given).
inline int run_step_with(int argc, const char* const* argv, const StepApi& sum_step, const StepOps* ops) {
    return run_guarded([&] {
        Options options = parse_options(argc, argv, Tool::step);
        if (options.help) {
            std::cout << sum_step.name << ": " << sum_step.change << "\n" << usage(argv[0], Tool::step);
            return static_cast<int>(exit_ok);
        }
        if (!ops && options.op != OpKind::sum)
            throw UsageError(std::string("--op ") + op_name(options.op) + ": " + sum_step.name +
                             " computes sums only; the operator is a template parameter from step11_any_operator on");
        draw_seed(options.input);
        const StepApi& step = ops ? ops->for_op(options.op) : sum_step;
        return dispatch_type(options.type, [&](auto zero) { return run_typed<decltype(zero)>(step, options, argc, argv); });
    });
}
}  // namespace detail

inline int run_step(int argc, const char* const* argv, const StepApi& step) {
    return detail::run_step_with(argc, argv, step, nullptr);
}

// A step with --op sum|max|min: REDUCTION_STEP_OPS(ns).
inline int run_step(int argc, const char* const* argv, const StepOps& ops) {
    return detail::run_step_with(argc, argv, ops.sum, &ops);
}
}  // namespace reduction
