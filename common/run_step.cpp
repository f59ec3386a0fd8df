#include "run_step.h"

#include "device_info.h"
#include "device_input.h"
#include "exit_codes.h"
#include "main_guard.h"
#include "measure.h"
#include "options.h"
#include "report.h"

#include <iostream>
#include <memory>

namespace reduction {
namespace {

template <class T>
int run_typed(const StepApi& step, const Options& options) {
    InputPlan<T> plan(options);  // a bad --input file is the user's error (exit 2), whatever the machine
    const DeviceInfo device = open_device(options.device);
    const std::size_t n = plan.n();
    const std::size_t flush_bytes = options.flush_l2 ? 2 * device.l2_bytes : 0;
    require_device_memory(device_bytes_needed({&step}, element_type_of<T>(), n, options.block, flush_bytes),
                          std::string(step.name) + " on " + std::to_string(n) + " " + type_name(element_type_of<T>()));

    const DeviceInput<T> input = upload_input(plan);
    const std::unique_ptr<L2Flusher> flusher = l2_flusher(options, device);
    const Measurement m = measure_step(step, input.values.get(), n, input.reference, measure_settings(options), device,
                                       flusher.get(), cudaStream_t{});

    switch (options.format) {
        case OutputFormat::text: print_text(std::cout, m, device, input.description); break;
        case OutputFormat::csv: std::cout << csv_header() << "\n" << csv_row(m) << "\n"; break;
        case OutputFormat::json: std::cout << json_record(m, device, input.description) << "\n"; break;
    }
    if (!m.verdict.pass) std::cerr << step.name << ": verification FAILED: " << m.verdict.note << "\n";
    return m.verdict.pass ? exit_ok : exit_wrong_result;
}

}  // namespace

int run_step(int argc, const char* const* argv, const StepApi& step) {
    return run_guarded([&] {
        const Options options = parse_options(argc, argv, Tool::step);
        if (options.help) {
            std::cout << step.name << ": " << step.change << "\n" << usage(argv[0], Tool::step);
            return static_cast<int>(exit_ok);
        }
        return dispatch_type(options.type, [&](auto zero) { return run_typed<decltype(zero)>(step, options); });
    });
}

}  // namespace reduction
