// compare's library: the plan, the steps run on one device buffer per type and size, and the arithmetic on
// measured rows that needs no GPU (the ratios, the text table, the sweep's sizes). CSV and JSON: common/report.h.
#pragma once

#include "device_info.h"
#include "measure.h"
#include "options.h"
#include "step_api.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace reduction::bench {

// What the command line asks compare to do, every user mistake already rejected (UsageError) before any
// GPU is looked for. The steps: in course order, then CUB and the probe, whatever order --steps named them in.
struct ComparePlan {
    std::vector<const StepApi*> steps;
    std::vector<ElementType> types;
    std::size_t n = 0;  // --n, or the --input file's element count (0 for --sweep)
};
ComparePlan plan_compare(const Options& options);

// Uploads the input once and measures every step on that buffer; the rows come back rated. A failed
// verification is reported on stderr and shows as a FAIL row; it does not stop the others.
std::vector<Measurement> measure_steps(const std::vector<const StepApi*>& steps, ElementType type, const InputSpec& input,
                                       OpKind op, const MeasureSettings& settings, const DeviceInfo& device);

// Fills the ratios of one table's rows: x previous (none for the first row and CUB), x step01 and x CUB,
// each other's per-call median over this row's; none where that row or a real time is missing.
void rate_table(std::vector<Measurement>& rows);

std::string l2_text(bool flushed);  // "L2 warm" or "L2 flushed"

// Aligned columns, a line per row: step, change, per-call median, batch, GB/s, % of peak, ratios ("-": none), check.
std::string text_table(const std::vector<Measurement>& rows);

// The sweep's sizes, 2^sweep_first_log2 .. 2^sweep_last_log2: kept while bytes_needed(n) plus a 10% margin fits in
// budget_bytes; from the first that does not, every larger one is skipped too.
struct SweepPlan {
    std::vector<std::size_t> sizes, skipped;
};
// From a launch-bound 16 elements to 2^32 (16 GiB of int32 or float32: where the 64-bit indices matter)
inline constexpr int sweep_first_log2 = 4;
inline constexpr int sweep_last_log2 = 32;
// From 2^28 on a call takes milliseconds: the sweep times 20 calls (or fewer with --iters), so 2^32 takes minutes.
inline constexpr int sweep_long_log2 = 28;
inline constexpr int sweep_long_iters = 20;
SweepPlan plan_sweep(std::size_t budget_bytes, const std::function<std::size_t(std::size_t n)>& bytes_needed);
bool fits_with_margin(std::size_t bytes_needed, std::size_t budget_bytes);

}  // namespace reduction::bench
