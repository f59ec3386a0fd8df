// compare: every step of the course and CUB in one process, on the same device buffer, verified
// and timed alike, as one table per type (or CSV, JSON, or a CSV sweep over sizes).
//   ./build/bin/compare --type all
//   ./build/bin/compare --type all --csv > results/h100/headline.csv
//   ./build/bin/compare --sweep > results/h100/sweep.csv
#include "course_run.h"
#include "course_table.h"

#include "cuda_check.h"
#include "device_info.h"
#include "errors.h"
#include "exit_codes.h"
#include "input.h"
#include "main_guard.h"
#include "options.h"
#include "report.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

namespace reduction::bench {
namespace {

std::string command_line(int argc, const char* const* argv) {
    std::string text;
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool plain = !arg.empty() && arg.find_first_of(" \t'\"$\\") == std::string::npos;
        text += (i ? " " : "") + (plain ? arg : "'" + arg + "'");
    }
    return text;
}

std::string utc_now() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

std::string env_or(const char* name, const std::string& fallback) {
    const char* value = std::getenv(name);
    return value && *value ? value : fallback;
}

// Where, when and how: the lines above a CSV header, read back by bench/render_results.py.
Stamp make_stamp(const DeviceInfo& device, const Options& options, int argc, const char* const* argv) {
    char peak[32];
    std::snprintf(peak, sizeof peak, "%.1f", device.peak_gbps);
    Stamp stamp = {
        {"gpu", device.name},
        {"compute_capability", std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor)},
        {"sms", std::to_string(device.sm_count)},
        {"l2_mib", std::to_string(device.l2_bytes >> 20)},
        {"peak_gbps", peak},
        {"cuda_driver_api", cuda_version_text(device.driver_version)},
        {"cuda_runtime", cuda_version_text(device.runtime_version)},
    };
    // The driver's own version (e.g. 580.65.06) is not in the CUDA runtime API; the script that
    // collects results passes what nvidia-smi reports.
    if (const std::string driver = env_or("REDUCTION_NVIDIA_DRIVER", ""); !driver.empty())
        stamp.push_back({"nvidia_driver", driver});
    stamp.push_back({"date_utc", utc_now()});
    stamp.push_back({"commit", env_or("REDUCTION_COMMIT", "unknown")});
    stamp.push_back({"command", command_line(argc, argv)});
    stamp.push_back({"l2", options.flush_l2 ? "flushed" : "warm"});
    if (options.input_path.empty()) {
        stamp.push_back({"pattern", pattern_name(options.pattern)});
        stamp.push_back({"seed", std::to_string(*options.seed)});
    } else {
        stamp.push_back({"input", options.input_path});
    }
    stamp.push_back({"block", std::to_string(options.block)});
    stamp.push_back({"iters", std::to_string(options.iters) + " timed, " + std::to_string(options.warmup) + " warm-up"});
    return stamp;
}

bool all_pass(const std::vector<RatedRow>& rows) {
    for (const RatedRow& rated : rows)
        if (!rated.row.pass) return false;
    return true;
}

void print_text(const std::vector<TypeRun>& runs, const std::vector<ElementType>& types, const Options& options,
                const DeviceInfo& device) {
    std::string type_list;
    std::size_t widest = 0;
    for (ElementType type : types) {
        type_list += (type_list.empty() ? "" : ", ") + std::string(type_name(type));
        widest = std::max(widest, type_size(type));
    }
    const std::size_t n = runs.front().n;
    std::cout << "Course table: every step and CUB on the same device buffer, each verified\n"
              << "  device   " << describe(device) << "\n"
              << "  input    " << count_text(n) << " elements of " << type_list << "; "
              << footprint_text(n * widest, device.l2_bytes) << "\n"
              << "  values   " << runs.front().input_description << "\n"
              << "  block    " << options.block << " threads (CUB picks its own)\n"
              << "  timing   median of " << options.iters << " repetitions after " << options.warmup << " warm-up, "
              << l2_text(options.flush_l2) << "\n";
    for (const TypeRun& run : runs) {
        std::cout << "\n" << run.rows.front().type << ", " << l2_text(options.flush_l2) << "\n"
                  << text_table(rate_table(run.rows));
    }
    std::cout << "\nx previous, x step01, x CUB: that row's median time / this row's (above 1: this row is faster)\n";
}

// One size, every selected type: text (default), CSV or JSON.
int run_table(const std::vector<const StepApi*>& steps, const std::vector<ElementType>& types, const Options& options,
              const DeviceInfo& device, int argc, const char* const* argv) {
    std::vector<TypeRun> runs;
    std::vector<RatedRow> rated;
    for (ElementType type : types) {
        runs.push_back(measure_steps(steps, type, options, device));
        for (RatedRow& row : rate_table(runs.back().rows)) rated.push_back(std::move(row));
    }
    switch (options.format) {
        case OutputFormat::text: print_text(runs, types, options, device); break;
        case OutputFormat::csv:
            std::cout << stamp_lines(make_stamp(device, options, argc, argv)) << csv_header() << "\n";
            for (const RatedRow& row : rated) std::cout << csv_row(row) << "\n";
            break;
        case OutputFormat::json: std::cout << json_array(rated) << "\n"; break;
    }
    return all_pass(rated) ? exit_ok : exit_wrong_result;
}

// Every size 2^10 .. 2^30 that fits, for every selected type; CSV rows are written as each size
// finishes, so an interrupted sweep keeps what it measured.
int run_sweep(const std::vector<const StepApi*>& steps, const std::vector<ElementType>& types, const Options& options,
              const DeviceInfo& device, int argc, const char* const* argv) {
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    std::vector<SweepPlan> plans;
    std::size_t total = 0;
    for (ElementType type : types) {
        plans.push_back(plan_sweep(free_bytes, [&](std::size_t n) {
            return device_bytes_needed(steps, type, n, options, device);
        }));
        total += plans.back().sizes.size();
        for (std::size_t n : plans.back().skipped) {
            char text[256];
            std::snprintf(text, sizeof text, "sweep: skipping %s n=%s: needs %.2f GiB plus a 10%% margin, %.2f GiB free\n",
                          type_name(type), size_text(n).c_str(),
                          device_bytes_needed(steps, type, n, options, device) / 1073741824.0,
                          free_bytes / 1073741824.0);
            std::cerr << text;
        }
    }
    if (total == 0) throw EnvironmentError("the sweep needs room for at least 2^10 elements; the GPU has too little free memory");

    std::cout << stamp_lines(make_stamp(device, options, argc, argv)) << csv_header() << "\n" << std::flush;
    bool pass = true;
    std::size_t done = 0;
    for (std::size_t t = 0; t < types.size(); ++t) {
        for (std::size_t n : plans[t].sizes) {
            std::cerr << "[" << ++done << "/" << total << "] " << type_name(types[t]) << " n=" << size_text(n)
                      << " ...\n";
            Options at = options;
            at.n = n;
            const std::vector<RatedRow> rated = rate_table(measure_steps(steps, types[t], at, device).rows);
            for (const RatedRow& row : rated) std::cout << csv_row(row) << "\n";
            std::cout << std::flush;
            pass = pass && all_pass(rated);
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
    // Everything that is the user's mistake is reported before the GPU is looked for.
    const std::vector<const StepApi*> steps = selected_steps(options);
    const std::vector<ElementType> types = selected_types(options);
    if (!options.input_path.empty() && types.size() > 1)
        throw UsageError("--input holds values of one type; name it with --type int32, float32 or float64, not all");
    if (options.sweep && options.format == OutputFormat::json)
        throw UsageError("--sweep writes CSV; drop --json");
    // One seed for every type and size, so that the stamp can name it and a run can be replayed.
    if (options.input_path.empty() && !options.seed) options.seed = fresh_seed();

    const DeviceInfo device = open_device(options.device);
    return options.sweep ? run_sweep(steps, types, options, device, argc, argv)
                         : run_table(steps, types, options, device, argc, argv);
}

}  // namespace
}  // namespace reduction::bench

int main(int argc, char** argv) {
    return reduction::run_guarded([&] { return reduction::bench::compare_main(argc, argv); });
}
