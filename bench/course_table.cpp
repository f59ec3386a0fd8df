#include "course_table.h"

#include "report.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace reduction::bench {
namespace {

// other / mine, only when both are real times: a zero or missing time gives no ratio, not infinity.
std::optional<double> speedup(double other_ms, double mine_ms) {
    if (!(other_ms > 0) || !(mine_ms > 0) || !std::isfinite(other_ms) || !std::isfinite(mine_ms)) return std::nullopt;
    return other_ms / mine_ms;
}

std::string ratio_cell(const std::optional<double>& ratio) { return ratio ? format_number("%.2f", *ratio) : "-"; }

double median_of(const Measurement& row) { return row.time.per_call.median_ms; }
bool is_cub(const Measurement& row) { return row.step == "cub"; }
bool is_first_step(const Measurement& row) { return row.step.rfind("step01", 0) == 0; }  // "step01_interleaved"

}  // namespace

void rate_table(std::vector<Measurement>& rows) {
    const auto find = [&](bool (*which)(const Measurement&)) -> const Measurement* {
        const auto it = std::find_if(rows.begin(), rows.end(), which);
        return it == rows.end() ? nullptr : &*it;
    };
    const Measurement* first = find(&is_first_step);
    const Measurement* cub = find(&is_cub);
    std::vector<Ratios> ratios(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Measurement& row = rows[i];
        if (i > 0 && !is_cub(row) && row.verified) ratios[i].previous = speedup(median_of(rows[i - 1]), median_of(row));
        if (first) ratios[i].step01 = speedup(median_of(*first), median_of(row));
        if (cub) ratios[i].cub = speedup(median_of(*cub), median_of(row));
    }
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i].ratios = ratios[i];
}

std::string l2_text(bool flushed) { return std::string("L2 ") + l2_word(flushed); }

std::string text_table(const std::vector<Measurement>& rows) {
    // one column each: its heading, right-aligned or not, and its cell for a row
    struct Column {
        const char* heading;
        bool right;
        std::string (*cell)(const Measurement& row);
    };
    static const Column columns[] = {
        {"step", false, [](const Measurement& r) { return r.step; }},
        {"what changed", false, [](const Measurement& r) { return r.change; }},
        {"ms/call", true, [](const Measurement& r) { return format_number("%.4f", r.time.per_call.median_ms); }},
        {"batch ms", true,
         [](const Measurement& r) {
             return std::isfinite(r.time.batch_ms) ? format_number("%.4f", r.time.batch_ms) : std::string("-");
         }},
        {"GB/s", true, [](const Measurement& r) { return format_number("%.1f", r.gbps); }},
        {"% of peak", true, [](const Measurement& r) { return format_number("%.1f", r.percent_of_peak); }},
        {"x previous", true, [](const Measurement& r) { return ratio_cell(r.ratios.previous); }},
        {"x step01", true, [](const Measurement& r) { return ratio_cell(r.ratios.step01); }},
        {"x CUB", true, [](const Measurement& r) { return ratio_cell(r.ratios.cub); }},
        {"check", false, [](const Measurement& r) { return std::string(status_text(r)); }},
    };
    std::vector<std::vector<std::string>> lines(1);
    for (const Column& column : columns) lines[0].push_back(column.heading);
    for (const Measurement& row : rows) {
        lines.emplace_back();
        for (const Column& column : columns) lines.back().push_back(column.cell(row));
    }
    std::vector<std::size_t> width(std::size(columns), 0);
    for (const auto& cells : lines)
        for (std::size_t c = 0; c < cells.size(); ++c) width[c] = std::max(width[c], cells[c].size());
    std::string out;
    for (const auto& cells : lines) {
        std::string line;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::string pad(width[c] - cells[c].size(), ' ');
            if (c > 0) line += "  ";
            line += columns[c].right ? pad + cells[c] : cells[c] + pad;
        }
        line.erase(line.find_last_not_of(' ') + 1);
        out += line + "\n";
    }
    return out;
}

bool fits_with_margin(std::size_t bytes_needed, std::size_t budget_bytes) {
    return bytes_needed <= budget_bytes && bytes_needed / 10 <= budget_bytes - bytes_needed;
}

SweepPlan plan_sweep(std::size_t budget_bytes, const std::function<std::size_t(std::size_t n)>& bytes_needed,
                     int first_log2, int last_log2) {
    SweepPlan plan;
    for (int log2 = first_log2; log2 <= last_log2; ++log2) {
        const std::size_t n = std::size_t{1} << log2;
        // the bytes needed only grow with n: once one size does not fit, no larger one does
        if (plan.skipped.empty() && fits_with_margin(bytes_needed(n), budget_bytes))
            plan.sizes.push_back(n);
        else
            plan.skipped.push_back(n);
    }
    return plan;
}

}  // namespace reduction::bench
