// Everything a step's main() does: parse the command line, check the input, run, verify, time and
// report (common/README.md walks through it). A step only passes its entry points
// (REDUCTION_STEP_API).
#pragma once

#include "device_info.h"
#include "exit_codes.h"
#include "input.h"
#include "measure.h"
#include "options.h"
#include "report.h"
#include "step_api.h"

#include <iostream>
#include <memory>
#include <string>

namespace reduction {
namespace detail {

template <class T>
int run_typed(const StepApi& step, const Options& options, int argc, const char* const* argv) {
    const ElementType type = element_type_of<T>();
    const std::size_t n = input_count(options, type);  // a bad --input file is exit 2, whatever the machine
    const DeviceInfo device = open_device(options.device);
    const std::size_t flush_bytes = options.flush_l2 ? L2Flusher::bytes_for(device.l2_bytes) : 0;
    require_device_memory(device_bytes_needed({&step}, type, n, options.block, flush_bytes),
                          std::string(step.name) + " on " + std::to_string(n) + " " + type_name(type));

    const DeviceInput<T> input = upload_input<T>(options);
    const std::unique_ptr<L2Flusher> flusher = options.flush_l2 ? std::make_unique<L2Flusher>(device.l2_bytes) : nullptr;
    const Measurement m = measure_step(step, input.values.get(), n, input.reference,
                                       MeasureSettings{options.block, options.warmup, options.iters}, device,
                                       flusher.get(), cudaStream_t{});
    switch (options.format) {
        case OutputFormat::text: print_text(std::cout, m, device, input_description(options)); break;
        case OutputFormat::csv:
            std::cout << stamp_lines(make_stamp(device, options, argc, argv)) << csv_header() << "\n" << csv_row(m) << "\n";
            break;
        case OutputFormat::json: std::cout << json_document(make_stamp(device, options, argc, argv), {m}) << "\n"; break;
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
        const StepApi& step = ops ? ops->for_op(options.op) : sum_step;
        if (options.input_path.empty() && !options.seed) options.seed = fresh_seed();  // printed, for replay
        return dispatch_type(options.type,
                             [&](auto zero) { return detail::run_typed<decltype(zero)>(step, options, argc, argv); });
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
