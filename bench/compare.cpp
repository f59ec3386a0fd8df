// compare: every step of the course and CUB in one process, on the same device buffer, verified
// and timed alike, as one table per type (or CSV, JSON, or a CSV sweep over sizes).
//   ./build/bin/compare --type all
//   ./build/bin/compare --type all --csv > results/h100/headline.csv
//   ./build/bin/compare --sweep > results/h100/sweep.csv
#include "course_table.h"

#include "cuda_check.h"
#include "device_info.h"
#include "exit_codes.h"
#include "input.h"
#include "options.h"
#include "report.h"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

namespace reduction::bench {
namespace {

// A row that is only timed (status "-") neither passes nor fails the run.
bool all_pass(const std::vector<Measurement>& rows) {
    for (const Measurement& row : rows)
        if (row.verified && !row.verdict.pass) return false;
    return true;
}

void print_text(const std::vector<std::vector<Measurement>>& tables, const ComparePlan& plan, const Options& options,
                const DeviceInfo& device) {
    std::string type_list;
    std::size_t widest = 0;
    for (ElementType type : plan.types) {
        type_list += (type_list.empty() ? "" : ", ") + std::string(type_name(type));
        widest = std::max(widest, type_size(type));
    }
    std::cout << "Course table: every step and CUB on the same device buffer, each verified\n"
              << "  device   " << describe(device) << "\n"
              << "  input    " << count_text(plan.n) << " elements of " << type_list << "; "
              << footprint_text(plan.n * widest, device.l2_bytes) << "\n"
              << "  values   " << input_description(options.input) << "\n"
              << "  block    " << options.measure.block << " threads (CUB picks its own)\n"
              << "  timing   " << timing_text(options.measure) << "\n";
    for (const auto& rows : tables)
        std::cout << "\n" << type_name(rows.front().type) << ", " << l2_text(options.measure.flush_l2) << "\n" << text_table(rows);
    std::cout << "\nms/call: per-call median; batch ms: per call with no event between calls;\n"
              << "x previous, x step01, x CUB: that row's per-call median / this row's (above 1: this row is faster)\n";
}

// One size, every selected type: text (default), CSV or JSON.
int run_table(const ComparePlan& plan, const Options& options, const DeviceInfo& device, int argc,
              const char* const* argv) {
    std::vector<std::vector<Measurement>> tables;
    std::vector<Measurement> all;
    for (ElementType type : plan.types) {
        tables.push_back(measure_steps(plan.steps, type, options.input, options.op, options.measure, device));
        all.insert(all.end(), tables.back().begin(), tables.back().end());
    }
    const Stamp stamp = make_stamp(device, options.input, options.measure, argc, argv);
    switch (options.format) {
        case OutputFormat::text: print_text(tables, plan, options, device); break;
        case OutputFormat::csv:
            std::cout << stamp_lines(stamp) << csv_header() << "\n";
            for (const Measurement& row : all) std::cout << csv_row(row) << "\n";
            break;
        case OutputFormat::json: std::cout << json_document(stamp, all) << "\n"; break;
    }
    return all_pass(all) ? exit_ok : exit_wrong_result;
}

// Every size 2^4 .. 2^32 that fits, for every selected type; CSV rows are written as each size
// finishes, so an interrupted sweep keeps what it measured.
int run_sweep(const ComparePlan& plan, const Options& options, const DeviceInfo& device, int argc,
              const char* const* argv) {
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    std::vector<SweepPlan> sweeps;
    std::size_t total = 0;
    for (ElementType type : plan.types) {
        const auto bytes_needed = [&](std::size_t n) { return device_bytes_needed(plan.steps, type, n, options.measure, device); };
        sweeps.push_back(plan_sweep(free_bytes, bytes_needed));
        total += sweeps.back().sizes.size();
        for (std::size_t n : sweeps.back().skipped)
            std::cerr << "sweep: skipping " << type_name(type) << " n=" << size_text(n) << ": needs "
                      << format_number("%.2f", bytes_needed(n) / 1073741824.0) << " GiB plus a 10% margin, "
                      << format_number("%.2f", free_bytes / 1073741824.0) << " GiB free\n";
    }
    if (total == 0)
        throw EnvironmentError("the sweep needs room for at least 2^" + std::to_string(sweep_first_log2) +
                               " elements; the GPU has too little free memory");

    Stamp stamp = make_stamp(device, options.input, options.measure, argc, argv);
    stamp_value(stamp, "timing") += "; sizes from 2^" + std::to_string(sweep_long_log2) + " on: " +
                                    std::to_string(sweep_long_iters) + " calls each (a call takes milliseconds there)";
    std::cout << stamp_lines(stamp) << csv_header() << "\n" << std::flush;
    bool pass = true;
    std::size_t done = 0;
    for (std::size_t t = 0; t < plan.types.size(); ++t) {
        for (std::size_t n : sweeps[t].sizes) {
            std::cerr << "[" << ++done << "/" << total << "] " << type_name(plan.types[t]) << " n=" << size_text(n)
                      << " ...\n";
            InputSpec input = options.input;
            input.n = n;
            MeasureSettings settings = options.measure;
            if (n >= (std::size_t{1} << sweep_long_log2)) settings.iters = std::min(settings.iters, sweep_long_iters);
            const std::vector<Measurement> rows = measure_steps(plan.steps, plan.types[t], input, options.op, settings, device);
            for (const Measurement& row : rows) std::cout << csv_row(row) << "\n";
            std::cout << std::flush;
            pass = pass && all_pass(rows);
        }
    }
    return pass ? exit_ok : exit_wrong_result;
}

int compare_main(int argc, const char* const* argv) {
    Options options = parse_options(argc, argv, Tool::compare);
    if (options.help) {
        std::cout << "compare: every step of the course and CUB on the same input, verified and timed alike\n"
                  << usage(argv[0], Tool::compare)
                  << "\nCSV and --sweep output starts with '#' lines naming the GPU, versions, date and command;\n"
                  << "REDUCTION_COMMIT and REDUCTION_NVIDIA_DRIVER in the environment add the commit and driver.\n";
        return static_cast<int>(exit_ok);
    }
    // Everything that is the user's mistake, --input included, is reported before the GPU is looked for.
    const ComparePlan plan = plan_compare(options);
    draw_seed(options.input);  // one seed for every type and size, so that the stamp can name it and a run can be replayed

    const DeviceInfo device = open_device(options.device);
    return options.sweep ? run_sweep(plan, options, device, argc, argv) : run_table(plan, options, device, argc, argv);
}

}  // namespace
}  // namespace reduction::bench

int main(int argc, char** argv) {
    return reduction::run_guarded([&] { return reduction::bench::compare_main(argc, argv); });
}
