// The course table: every step and CUB on one input, with speed-ups against the previous step,
// step01 and CUB. Plain data and pure functions (no CUDA), so that the arithmetic and every
// writer are tested on the host; compare.cpp only fills Rows from measurements.
#pragma once

#include "text_format.h"  // size_text, used with the tables

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace reduction::bench {

// One measured step (or CUB) on one input.
struct Row {
    std::string type;           // "int32", "float32", "float64"
    std::size_t n = 0;
    int block = 0;
    std::string step;           // "step01_interleaved", ..., "cub"
    std::string change;         // the one idea the step adds
    double median_ms = 0;
    double min_ms = 0;
    double gbps = 0;
    double percent_of_peak = 0;
    double peak_gbps = 0;
    bool l2_flushed = false;
    bool pass = false;
};

// Speed-ups as time ratios (other's median / this row's): above 1 means this row is faster.
// Unset where there is nothing to compare with (first row, CUB's "previous", step01 or CUB not
// measured, a zero time).
struct Ratios {
    std::optional<double> previous;
    std::optional<double> step01;
    std::optional<double> cub;
};

struct RatedRow {
    Row row;
    Ratios ratios;
};

inline constexpr const char* cub_step_name = "cub";
inline constexpr const char* first_step_prefix = "step01";  // "step01_interleaved"

bool is_cub(const Row& row);
bool is_first_step(const Row& row);

// Rows of one table (one type and size, in course order, CUB last) with their ratios.
std::vector<RatedRow> rate_table(const std::vector<Row>& rows);

// Consecutive rows of the same type, size, block and L2 mode form one table; each is rated on its own.
std::vector<std::vector<RatedRow>> rate_tables(const std::vector<Row>& rows);

// "L2 warm" or "L2 flushed": the words every table carries.
std::string l2_text(bool flushed);

// The cells of the readable table (text and Markdown share them): headers, then one line per row.
std::vector<std::string> table_headers();
std::vector<std::string> table_cells(const RatedRow& rated);
std::string text_table(const std::vector<RatedRow>& table);      // aligned columns, one line per row
std::string markdown_table(const std::vector<RatedRow>& table);  // GitHub-flavoured

// Machine-readable forms: the same fields in CSV (RFC 4180 quoting) and JSON (null for blanks).
std::string csv_header();
std::string csv_row(const RatedRow& rated);
std::string json_record(const RatedRow& rated);
std::string json_array(const std::vector<RatedRow>& rows);

// Provenance written above the CSV header, one "# key: value" line each, so that a results file
// says where, when and how it was measured. Newlines inside a value are replaced by spaces.
using Stamp = std::vector<std::pair<std::string, std::string>>;
std::string stamp_lines(const Stamp& stamp);

// The sweep's sizes, 2^first_log2 .. 2^last_log2. A size is kept while bytes_needed(n) plus a 10%
// margin fits in budget_bytes; from the first that does not, every larger one is skipped too.
struct SweepPlan {
    std::vector<std::size_t> sizes;
    std::vector<std::size_t> skipped;
};
inline constexpr int sweep_first_log2 = 10;
inline constexpr int sweep_last_log2 = 30;
SweepPlan plan_sweep(std::size_t budget_bytes, const std::function<std::size_t(std::size_t n)>& bytes_needed,
                     int first_log2 = sweep_first_log2, int last_log2 = sweep_last_log2);
bool fits_with_margin(std::size_t bytes_needed, std::size_t budget_bytes);

}  // namespace reduction::bench
