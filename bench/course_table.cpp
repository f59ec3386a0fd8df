#include "course_table.h"

#include "report.h"

#include <algorithm>
#include <cmath>

namespace reduction::bench {
namespace {

// other's per-call median / mine, only when both are real times: a zero or missing time gives no ratio.
std::optional<double> speedup(const Measurement* other, const Measurement& mine) {
    const double theirs = other ? other->time.per_call.median_ms : NAN, ours = mine.time.per_call.median_ms;
    if (!(theirs > 0) || !(ours > 0) || !std::isfinite(theirs) || !std::isfinite(ours)) return std::nullopt;
    return theirs / ours;
}

std::string ratio_cell(const std::optional<double>& ratio) { return ratio ? format_number("%.2f", *ratio) : "-"; }

}  // namespace

void rate_table(std::vector<Measurement>& rows) {
    const Measurement* first = nullptr;
    const Measurement* cub = nullptr;
    for (const Measurement& row : rows) {
        if (!first && row.step.rfind("step01", 0) == 0) first = &row;  // "step01_interleaved"
        if (!cub && row.step == "cub") cub = &row;
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const bool next_step = i > 0 && rows[i].step != "cub" && rows[i].verified;  // CUB is no step of the course
        rows[i].ratios = {speedup(next_step ? &rows[i - 1] : nullptr, rows[i]), speedup(first, rows[i]),
                          speedup(cub, rows[i])};
    }
}

std::string l2_text(bool flushed) { return std::string("L2 ") + l2_word(flushed); }

std::string text_table(const std::vector<Measurement>& rows) {
    std::vector<std::vector<std::string>> lines = {{"step", "what changed", "ms/call", "batch ms", "GB/s", "% of peak",
                                                    "x previous", "x step01", "x CUB", "check"}};
    for (const Measurement& r : rows)
        lines.push_back({r.step, r.change, format_number("%.4f", r.time.per_call.median_ms),
                         std::isfinite(r.time.batch_ms) ? format_number("%.4f", r.time.batch_ms) : "-",
                         format_number("%.1f", r.gbps), format_number("%.1f", r.percent_of_peak),
                         ratio_cell(r.ratios.previous), ratio_cell(r.ratios.step01), ratio_cell(r.ratios.cub),
                         status_text(r)});
    std::vector<std::size_t> width(lines[0].size(), 0);
    for (const auto& cells : lines)
        for (std::size_t c = 0; c < cells.size(); ++c) width[c] = std::max(width[c], cells[c].size());
    std::string out;
    for (const auto& cells : lines) {
        std::string line;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::string pad(width[c] - cells[c].size(), ' ');
            const bool left = c < 2 || c + 1 == cells.size();  // step, change and check; the numbers right-aligned
            line += (c > 0 ? "  " : "") + (left ? cells[c] + pad : pad + cells[c]);
        }
        line.erase(line.find_last_not_of(' ') + 1);
        out += line + "\n";
    }
    return out;
}

bool fits_with_margin(std::size_t bytes_needed, std::size_t budget_bytes) {
    return bytes_needed <= budget_bytes && bytes_needed / 10 <= budget_bytes - bytes_needed;
}

SweepPlan plan_sweep(std::size_t budget_bytes, const std::function<std::size_t(std::size_t n)>& bytes_needed) {
    SweepPlan plan;
    for (int log2 = sweep_first_log2; log2 <= sweep_last_log2; ++log2) {
        const std::size_t n = std::size_t{1} << log2;
        // the bytes needed only grow with n: once one size does not fit, no larger one does
        (plan.skipped.empty() && fits_with_margin(bytes_needed(n), budget_bytes) ? plan.sizes : plan.skipped).push_back(n);
    }
    return plan;
}

}  // namespace reduction::bench
