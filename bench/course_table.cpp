#include "course_table.h"

#include "text_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace reduction::bench {
namespace {

// other / mine, only when both are real times: a zero or missing time gives no ratio, not infinity.
std::optional<double> speedup(double other_ms, double mine_ms) {
    if (!(other_ms > 0) || !(mine_ms > 0) || !std::isfinite(other_ms) || !std::isfinite(mine_ms)) return std::nullopt;
    return other_ms / mine_ms;
}

std::string ratio_cell(const std::optional<double>& ratio) { return ratio ? format_number("%.2f", *ratio) : "-"; }

bool same_table(const Row& a, const Row& b) {
    return a.type == b.type && a.n == b.n && a.block == b.block && a.l2_flushed == b.l2_flushed;
}

const char* status(const Row& row) { return row.pass ? "PASS" : "FAIL"; }
const char* l2_word(const Row& row) { return row.l2_flushed ? "flushed" : "warm"; }

// A blank ratio is "no value": null, like NaN and infinity.
std::string json_number(const std::optional<double>& value, const char* fmt) {
    return value ? reduction::json_number(*value, fmt) : "null";
}

// A '|' inside a cell would end it.
std::string markdown_cell(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '|') out += '\\';
        out += c;
    }
    return out;
}

// Numbers right-aligned, words left-aligned; the same for text and Markdown.
const std::vector<bool>& right_aligned() {
    static const std::vector<bool> right = {false, false, true, true, true, true, true, true, false};
    return right;
}

}  // namespace

bool is_cub(const Row& row) { return row.step == cub_step_name; }
bool is_first_step(const Row& row) { return row.step.rfind(first_step_prefix, 0) == 0; }

std::vector<RatedRow> rate_table(const std::vector<Row>& rows) {
    const auto find = [&](bool (*which)(const Row&)) -> const Row* {
        const auto it = std::find_if(rows.begin(), rows.end(), which);
        return it == rows.end() ? nullptr : &*it;
    };
    const Row* first = find(&is_first_step);
    const Row* cub = find(&is_cub);
    std::vector<RatedRow> rated;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Row& row = rows[i];
        Ratios ratios;
        // CUB is not the next step of the course: "previous" would compare it with step07 by accident.
        if (i > 0 && !is_cub(row)) ratios.previous = speedup(rows[i - 1].median_ms, row.median_ms);
        if (first) ratios.step01 = speedup(first->median_ms, row.median_ms);
        if (cub) ratios.cub = speedup(cub->median_ms, row.median_ms);
        rated.push_back({row, ratios});
    }
    return rated;
}

std::vector<std::vector<RatedRow>> rate_tables(const std::vector<Row>& rows) {
    std::vector<std::vector<RatedRow>> tables;
    std::size_t begin = 0;
    for (std::size_t i = 1; i <= rows.size(); ++i) {
        if (i == rows.size() || !same_table(rows[begin], rows[i])) {
            tables.push_back(rate_table(std::vector<Row>(rows.begin() + begin, rows.begin() + i)));
            begin = i;
        }
    }
    return tables;
}

std::string l2_text(bool flushed) { return flushed ? "L2 flushed" : "L2 warm"; }


std::vector<std::string> table_headers() {
    return {"step", "what changed", "median ms", "GB/s", "% of peak", "x previous", "x step01", "x CUB", "check"};
}

std::vector<std::string> table_cells(const RatedRow& rated) {
    const Row& row = rated.row;
    return {row.step,
            row.change,
            format_number("%.4f", row.median_ms),
            format_number("%.1f", row.gbps),
            format_number("%.1f", row.percent_of_peak),
            ratio_cell(rated.ratios.previous),
            ratio_cell(rated.ratios.step01),
            ratio_cell(rated.ratios.cub),
            status(row)};
}

std::string text_table(const std::vector<RatedRow>& table) {
    std::vector<std::vector<std::string>> lines = {table_headers()};
    for (const RatedRow& rated : table) lines.push_back(table_cells(rated));
    std::vector<std::size_t> width(lines.front().size(), 0);
    for (const auto& cells : lines)
        for (std::size_t c = 0; c < cells.size(); ++c) width[c] = std::max(width[c], cells[c].size());
    std::string out;
    for (const auto& cells : lines) {
        std::string line;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::string pad(width[c] - cells[c].size(), ' ');
            if (c > 0) line += "  ";
            line += right_aligned()[c] ? pad + cells[c] : cells[c] + pad;
        }
        line.erase(line.find_last_not_of(' ') + 1);
        out += line + "\n";
    }
    return out;
}

std::string markdown_table(const std::vector<RatedRow>& table) {
    const auto line = [](const std::vector<std::string>& cells) {
        std::string text = "|";
        for (const std::string& cell : cells) text += " " + markdown_cell(cell) + " |";
        return text + "\n";
    };
    std::string out = line(table_headers());
    out += "|";
    for (bool right : right_aligned()) out += right ? " ---: |" : " :--- |";
    out += "\n";
    for (const RatedRow& rated : table) out += line(table_cells(rated));
    return out;
}

std::string csv_header() {
    return "type,n,block,step,change,time_median_ms,time_min_ms,gbps,percent_of_peak,peak_gbps,x_previous,x_step01,"
           "x_cub,l2,status";
}

std::string csv_row(const RatedRow& rated) {
    const Row& row = rated.row;
    const auto ratio = [](const std::optional<double>& value) { return value ? format_number("%.4f", *value) : ""; };
    return csv_field(row.type) + "," + std::to_string(row.n) + "," + std::to_string(row.block) + "," +
           csv_field(row.step) + "," + csv_field(row.change) + "," + format_number("%.6f", row.median_ms) + "," +
           format_number("%.6f", row.min_ms) + "," + format_number("%.2f", row.gbps) + "," + format_number("%.2f", row.percent_of_peak) +
           "," + format_number("%.1f", row.peak_gbps) + "," + ratio(rated.ratios.previous) + "," + ratio(rated.ratios.step01) +
           "," + ratio(rated.ratios.cub) + "," + l2_word(row) + "," + status(row);
}

std::string json_record(const RatedRow& rated) {
    const Row& row = rated.row;
    return "{\"type\": " + json_string(row.type) + ", \"n\": " + std::to_string(row.n) +
           ", \"block\": " + std::to_string(row.block) + ", \"step\": " + json_string(row.step) +
           ", \"change\": " + json_string(row.change) +
           ", \"time_median_ms\": " + json_number(row.median_ms, "%.6f") +
           ", \"time_min_ms\": " + json_number(row.min_ms, "%.6f") + ", \"gbps\": " + json_number(row.gbps, "%.2f") +
           ", \"percent_of_peak\": " + json_number(row.percent_of_peak, "%.2f") +
           ", \"peak_gbps\": " + json_number(row.peak_gbps, "%.1f") +
           ", \"x_previous\": " + json_number(rated.ratios.previous, "%.4f") +
           ", \"x_step01\": " + json_number(rated.ratios.step01, "%.4f") +
           ", \"x_cub\": " + json_number(rated.ratios.cub, "%.4f") + ", \"l2\": " + json_string(l2_word(row)) +
           ", \"status\": " + json_string(status(row)) + "}";
}

std::string json_array(const std::vector<RatedRow>& rows) {
    std::string out = "[";
    for (std::size_t i = 0; i < rows.size(); ++i) out += (i == 0 ? "\n  " : ",\n  ") + json_record(rows[i]);
    return out + (rows.empty() ? "]" : "\n]");
}

std::string stamp_lines(const Stamp& stamp) {
    std::string out;
    for (const auto& [key, value] : stamp) {
        std::string flat = value;
        std::replace(flat.begin(), flat.end(), '\n', ' ');
        std::replace(flat.begin(), flat.end(), '\r', ' ');
        out += "# " + key + ": " + flat + "\n";
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
