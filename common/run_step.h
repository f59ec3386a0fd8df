// Everything a step's main() does (common/README.md draws it): parse, check the input, run, verify, time, report.
#pragma once
#include "options.h"
#include "report.h"

namespace reduction {
namespace detail {
template <class T>
int run_typed(const StepApi& step, const Options& options, int argc, const char* const* argv) {
    const InputSpec spec = counted_input<T>(options.input);  // a bad --input: exit 2, on any machine
    const DeviceInfo device = open_device(options.device);   // name, L2, peak GB/s; no usable GPU: exit 3
    const RunInput<T> input = prepare_run<T>({&step}, spec, options.op, options.measure, device, step.name);
    const Measurement m = measure_step(step, input, options.measure, device);
    report_result(options.format, m, device, spec, options.measure, argc, argv);
    if (!m.verdict.pass) std::cerr << step.name << ": verification FAILED: " << m.verdict.note << "\n";
    return m.verdict.pass ? exit_ok : exit_wrong_result;
}

// The StepApi a run measures: the step's sum, or with --op the operator's (steps with operators only).
template <class Entry>
StepApi step_for(OpKind op) {
    if constexpr (Entry::has_operators) {
        return step_ops<Entry>().for_op(op);
    } else {
        if (op != OpKind::sum)
            throw UsageError(std::string("--op ") + op_name(op) + ": " + Entry::step_name +
                             " computes sums only; the operator is a template parameter from step11_any_operator on");
        return step_api<Entry>();
    }
}
}  // namespace detail

// A step's main(): `return reduction::run_step<step04::Entry>(argc, argv);`. Entry is the struct at the end of the
// step's reduce.cuh.
template <class Entry>
int run_step(int argc, const char* const* argv) {
    return run_guarded([&] {  // any exception becomes one line on stderr and its exit code (2, 3 or 4)
        Options options = parse_options(argc, argv, Tool::step);
        if (options.help) {
            std::cout << Entry::step_name << ": " << Entry::step_change << "\n" << usage(argv[0], Tool::step);
            return static_cast<int>(exit_ok);
        }
        const StepApi step = detail::step_for<Entry>(options.op);
        draw_seed(options.input);
        return dispatch_type(options.type, [&](auto zero) {  // --type becomes T here, once
            return detail::run_typed<decltype(zero)>(step, options, argc, argv);
        });
    });
}
}  // namespace reduction
