// compare: every step and CUB on one device buffer, verified and timed alike: a table per type, CSV, JSON or a sweep
//   ./build/bin/compare --type all --csv > results/h100/headline.csv; ./build/bin/compare --sweep > results/h100/sweep.csv
#include "course_table.h"
#include "cuda_check.h"
#include "exit_codes.h"
#include "input.h"
#include "report.h"
#include <algorithm>
#include <iostream>

namespace reduction::course {
namespace {
void print_text(const std::vector<std::vector<TableRow>>& tables, const ComparePlan& plan, const Options& options,
                const DeviceInfo& device, const Stamp& stamp) {
    std::string type_list;
    std::size_t widest = 0;
    for (ElementType type : plan.types) {
        type_list += (type_list.empty() ? "" : ", ") + std::string(type_name(type));
        widest = std::max(widest, type_size(type));
    }
    std::cout << "Course table: every step and CUB on the same device buffer, each verified\n"
              << "  device   " << describe(device) << "\n"
              << "  input    " << count_text(plan.input.n) << " elements of " << type_list << "; "
              << footprint_text(plan.input.n * widest, device.l2_bytes) << "\n"
              << "  values   " << input_description(stamp) << "\n"
              << "  block    " << options.measure.block << " threads (CUB picks its own)\n"
              << "  timing   " << timing_text(options.measure) << "\n";
    for (const auto& rows : tables)
        std::cout << "\n" << type_name(rows.front().type) << ", " << l2_text(options.measure.flush_l2) << "\n" << text_table(rows);
    if (!plan.notes.empty()) std::cout << "\n";
    for (const std::string& note : plan.notes) std::cout << note << "\n";  // a row left out of a table, and why
    std::cout << "\nms/call: per-call median; batch ms: per call with no event between calls;\n"
              << "x previous, x step01, x CUB: that row's per-call median / this row's (above 1: this row is faster)\n";
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
    ComparePlan plan = plan_compare(options);
    draw_seed(plan.input);  // one seed for every type and size, so that the stamp can name it and a run can be replayed
    const DeviceInfo device = open_device(options.device);
    if (options.format != OutputFormat::text || options.sweep)  // the text table prints them under its tables
        for (const std::string& note : plan.notes) std::cerr << note << "\n";
    // --sweep: every size that fits, its CSV rows written as each finishes: an interrupted sweep keeps them.
    std::vector<std::vector<std::size_t>> sizes(plan.types.size(), {plan.input.n});  // for each type
    std::size_t free_bytes = 0, total_bytes = 0, total = 0, done = 0;
    if (options.sweep) CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    for (std::size_t t = 0; t < plan.types.size() && options.sweep; ++t) {  // 2^4 .. 2^32, those that fit
        const ElementType type = plan.types[t];
        const auto needed = [&](std::size_t n) { return bytes_needed(plan.steps, type, n, options.measure, device); };
        const SweepPlan sweep = plan_sweep(free_bytes, needed);
        sizes[t] = sweep.sizes;
        total += sweep.sizes.size();
        for (std::size_t n : sweep.skipped)
            std::cerr << "sweep: skipping " << type_name(type) << " n=" << size_text(n) << ": needs "
                      << format_number("%.2f", needed(n) / 1073741824.0) << " GiB plus a 10% margin, "
                      << format_number("%.2f", free_bytes / 1073741824.0) << " GiB free\n";
    }
    if (options.sweep && total == 0)
        throw EnvironmentError("the sweep needs room for at least 2^" + std::to_string(sweep_first_log2) +
                               " elements; the GPU has too little free memory");
    Stamp stamp = make_stamp(device, plan.input, options.measure, argc, argv);
    if (options.sweep) {
        stamp_value(stamp, "timing") += "; sizes from 2^" + std::to_string(sweep_long_log2) + " on: " +
                                        std::to_string(sweep_long_iters) + " calls each (a call takes hundreds of microseconds or more there)";
        std::cout << stamp_lines(stamp) << csv_header(ratio_cells({})) << "\n" << std::flush;
    }
    std::vector<std::vector<TableRow>> tables;
    std::vector<TableRow> all;
    for (std::size_t t = 0; t < plan.types.size(); ++t)
        for (std::size_t n : sizes[t]) {
            InputSpec input = plan.input;
            MeasureSettings settings = options.measure;
            if (options.sweep) {
                std::cerr << "[" << ++done << "/" << total << "] " << type_name(plan.types[t]) << " n=" << size_text(n)
                          << " ...\n";
                input.n = n;
                if (n >= (std::size_t{1} << sweep_long_log2)) settings.iters = std::min(settings.iters, sweep_long_iters);
            }
            tables.push_back(measure_steps(plan.steps, plan.types[t], input, options.op, settings, device));
            all.insert(all.end(), tables.back().begin(), tables.back().end());
            if (options.sweep) {
                for (const TableRow& row : tables.back()) std::cout << csv_row(row, ratio_cells(row.ratios)) << "\n";
                std::cout << std::flush;
            }
        }
    if (options.format == OutputFormat::text && !options.sweep) print_text(tables, plan, options, device, stamp);
    if (options.format == OutputFormat::csv && !options.sweep) {
        std::cout << stamp_lines(stamp) << csv_header(ratio_cells({})) << "\n";
        for (const TableRow& row : all) std::cout << csv_row(row, ratio_cells(row.ratios)) << "\n";
    }
    if (options.format == OutputFormat::json) {  // never with --sweep
        std::vector<std::string> records;
        for (const TableRow& row : all) records.push_back(json_record(row, ratio_cells(row.ratios)));
        std::cout << json_document(stamp, records) << "\n";
    }
    // a row that is only timed (status "-") neither passes nor fails the run
    const bool pass = std::all_of(all.begin(), all.end(), [](const Measurement& m) { return !m.verified || m.verdict.pass; });
    return pass ? exit_ok : exit_wrong_result;
}
}  // namespace
}  // namespace reduction::course

int main(int argc, char** argv) {
    return reduction::run_guarded([&] { return reduction::course::compare_main(argc, argv); });
}
