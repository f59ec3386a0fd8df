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
    const std::size_t flush_bytes = options.flush_l2 ? 2 * device.l2_bytes : 0;
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

}  // namespace detail

inline int run_step(int argc, const char* const* argv, const StepApi& step) {
    return run_guarded([&] {
        Options options = parse_options(argc, argv, Tool::step);
        if (options.help) {
            std::cout << step.name << ": " << step.change << "\n" << usage(argv[0], Tool::step);
            return static_cast<int>(exit_ok);
        }
        if (options.input_path.empty() && !options.seed) options.seed = fresh_seed();  // printed, for replay
        return dispatch_type(options.type,
                             [&](auto zero) { return detail::run_typed<decltype(zero)>(step, options, argc, argv); });
    });
}

}  // namespace reduction
