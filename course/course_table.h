// compare's library: the plan, the steps measured on one device buffer, and the arithmetic on rows that needs no
// GPU (ratios, text table, sweep sizes). CSV and JSON: common/report.h.
#pragma once

#include "device_info.h"
#include "measure.h"
#include "options.h"
#include "report.h"
#include "step_api.h"
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace reduction::course {
// The command line's request, every user mistake rejected (UsageError) before any GPU is looked for. The steps:
// in course order, then CUB's rows and the probe, whatever order --steps named them in. A step without functions for
// a type (cub_gpu_to_gpu's int32) is left out of that type's table.
struct ComparePlan {
    std::vector<const StepApi*> steps;
    std::vector<ElementType> types;
    InputSpec input;  // --n, or an --input file with n its element count (counted_input); the sweep sets n per size
    std::vector<std::string> notes;  // a row left out of a table, and why: printed with the tables (compare.cpp)
};
ComparePlan plan_compare(const Options& options);

// Device bytes for `steps` on n elements of `type` (device_bytes_needed), for the sweep's sizes.
std::size_t bytes_needed(const std::vector<const StepApi*>& steps, ElementType type, std::size_t n,
                         const MeasureSettings& settings, const DeviceInfo& device);

struct Ratios {  // speed-ups: other's per-call median / this row's (>1: faster); unset where none
    std::optional<double> previous, step01, cub;
};

struct TableRow : Measurement {  // a row of the course table: a measurement and its speed-ups
    Ratios ratios{};
};

// Uploads the input once, measures every step on it and rates the rows; a failed check is reported on stderr
// and shows as a FAIL row without stopping the others.
std::vector<TableRow> measure_steps(const std::vector<const StepApi*>& steps, ElementType type, const InputSpec& input,
                                    OpKind op, const MeasureSettings& settings, const DeviceInfo& device);

// The ratios x previous (none for the first row and CUB), x step01 and x CUB: that row's per-call median over
// this row's; none where a row or a real time is missing.
std::vector<TableRow> rate_table(const std::vector<Measurement>& rows);

// The ratios as CSV and JSON cells after a row's fields: x_previous, x_step01, x_cub (blank or null: none).
ExtraCells ratio_cells(const Ratios& ratios);

std::string l2_text(bool flushed);  // "L2 warm" or "L2 flushed"

// Aligned columns, a line per row: step, change, per-call median, batch, GB/s, % of peak, ratios ("-": none), check.
std::string text_table(const std::vector<TableRow>& rows);

// The sweep's sizes 2^4 .. 2^32 (16 GiB of int32: where 64-bit indices matter): kept while bytes_needed(n) plus
// a 10% margin fits in budget_bytes, then skipped. From 2^28 on a call takes hundreds of µs or
// more: 20 calls (or fewer with --iters).
struct SweepPlan {
    std::vector<std::size_t> sizes, skipped;
};
inline constexpr int sweep_first_log2 = 4, sweep_last_log2 = 32, sweep_long_log2 = 28, sweep_long_iters = 20;
SweepPlan plan_sweep(std::size_t budget_bytes, const std::function<std::size_t(std::size_t n)>& bytes_needed);
bool fits_with_margin(std::size_t bytes_needed, std::size_t budget_bytes);
}  // namespace reduction::course
