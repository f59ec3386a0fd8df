// The course table's arithmetic and writers: rows are filled by hand, nothing here touches a GPU.
#include "../catch.h"
#include "course_table.h"

#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

using namespace reduction::bench;
using reduction::size_text;  // from common/text_format.h

namespace {

Row make_row(const std::string& step, double median_ms, const std::string& type = "int32") {
    Row row;
    row.type = type;
    row.n = std::size_t{1} << 24;
    row.block = 256;
    row.step = step;
    row.change = "change of " + step + ", with a comma";
    row.median_ms = median_ms;
    row.min_ms = median_ms * 0.9;
    row.gbps = 67.108864 / median_ms;
    row.percent_of_peak = 100.0 * row.gbps / 3352.3;
    row.peak_gbps = 3352.3;
    row.pass = true;
    return row;
}

// step01 4 ms, step02 2 ms, step07 0.5 ms, CUB 0.25 ms.
std::vector<Row> sample_table(const std::string& type = "int32") {
    return {make_row("step01_interleaved", 4.0, type), make_row("step02_nondivergent", 2.0, type),
            make_row("step07_multi_level", 0.5, type), make_row("cub", 0.25, type)};
}

bool near(const std::optional<double>& value, double expected) {
    return value && std::fabs(*value - expected) < 1e-12;
}

// Splits one CSV line into fields, honouring RFC 4180 quotes.
std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                fields.back() += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                fields.back() += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.emplace_back();
        } else {
            fields.back() += c;
        }
    }
    return fields;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::stringstream stream(text);
    std::string line;
    while (std::getline(stream, line)) lines.push_back(line);
    return lines;
}

std::size_t count_of(const std::string& text, const std::string& part) {
    std::size_t count = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++count;
    return count;
}

// Brackets and braces balance outside strings, strings close, and nothing JSON cannot spell
// (nan, inf, a trailing comma) appears: the basics of well-formed JSON without a parser.
bool json_balanced(const std::string& text) {
    std::string stack;
    bool in_string = false;
    char last = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == ' ' || c == '\n') continue;
        if (c == '"') in_string = true;
        else if (c == '[' || c == '{') stack += c;
        else if (c == ']' || c == '}') {
            if (stack.empty() || stack.back() != (c == ']' ? '[' : '{') || last == ',') return false;
            stack.pop_back();
        }
        last = c;
    }
    return stack.empty() && !in_string;
}

}  // namespace

TEST_CASE("ratios compare each row's median time with the previous row, step01 and CUB", "[bench]") {
    const std::vector<RatedRow> rated = rate_table(sample_table());
    REQUIRE(rated.size() == 4);

    SECTION("x previous: the row above's time over this one's; none for the first row and for CUB") {
        CHECK_FALSE(rated[0].ratios.previous.has_value());
        CHECK(near(rated[1].ratios.previous, 2.0));   // 4 ms -> 2 ms
        CHECK(near(rated[2].ratios.previous, 4.0));   // 2 ms -> 0.5 ms
        CHECK_FALSE(rated[3].ratios.previous.has_value());
    }
    SECTION("x step01: step01's time over this one's, 1 for step01 itself") {
        CHECK(near(rated[0].ratios.step01, 1.0));
        CHECK(near(rated[2].ratios.step01, 8.0));
        CHECK(near(rated[3].ratios.step01, 16.0));
    }
    SECTION("x CUB: CUB's time over this one's, below 1 when slower than CUB") {
        CHECK(near(rated[0].ratios.cub, 0.0625));
        CHECK(near(rated[2].ratios.cub, 0.5));
        CHECK(near(rated[3].ratios.cub, 1.0));
    }
}

TEST_CASE("ratio columns are blank when step01 or CUB was not measured", "[bench]") {
    SECTION("no CUB") {
        std::vector<Row> rows = sample_table();
        rows.pop_back();
        for (const RatedRow& rated : rate_table(rows)) CHECK_FALSE(rated.ratios.cub.has_value());
    }
    SECTION("no step01") {
        std::vector<Row> rows = sample_table();
        rows.erase(rows.begin());
        const std::vector<RatedRow> rated = rate_table(rows);
        for (const RatedRow& r : rated) CHECK_FALSE(r.ratios.step01.has_value());
        CHECK_FALSE(rated[0].ratios.previous.has_value());  // step02 is now the first row
        CHECK(near(rated[1].ratios.previous, 4.0));
    }
    SECTION("a zero time gives no ratio rather than infinity") {
        std::vector<Row> rows = sample_table();
        rows[0].median_ms = 0;
        const std::vector<RatedRow> rated = rate_table(rows);
        CHECK_FALSE(rated[1].ratios.previous.has_value());
        CHECK_FALSE(rated[1].ratios.step01.has_value());
        CHECK_FALSE(rated[0].ratios.cub.has_value());
    }
    SECTION("blanks print as '-' in the readable table") {
        std::vector<Row> rows = sample_table();
        rows.pop_back();
        const std::vector<std::string> cells = table_cells(rate_table(rows)[0]);
        REQUIRE(cells.size() == table_headers().size());
        CHECK(cells[5] == "-");  // x previous
        CHECK(cells[6] == "1.00");
        CHECK(cells[7] == "-");  // x CUB
    }
}

TEST_CASE("rate_tables rates each type on its own", "[bench]") {
    std::vector<Row> rows = sample_table("int32");
    for (const Row& row : sample_table("float32")) rows.push_back(row);
    rows[4].median_ms = 8.0;  // float32's step01
    const auto tables = rate_tables(rows);
    REQUIRE(tables.size() == 2);
    CHECK(tables[0].size() == 4);
    REQUIRE(tables[1].size() == 4);
    CHECK_FALSE(tables[1][0].ratios.previous.has_value());  // not compared with int32's CUB
    CHECK(near(tables[1][3].ratios.step01, 32.0));          // float32's step01, not int32's
}

TEST_CASE("CSV: the header and every row have the same fields", "[bench]") {
    const std::vector<std::string> header = csv_fields(csv_header());
    REQUIRE(header.size() == 15);
    CHECK(header.front() == "type");
    CHECK(header.back() == "status");

    std::vector<Row> rows = sample_table();
    rows[1].change = "has \"quotes\", and commas";
    rows[2].pass = false;
    rows[2].l2_flushed = true;
    const std::vector<RatedRow> rated = rate_table(rows);
    for (const RatedRow& r : rated) {
        const std::vector<std::string> fields = csv_fields(csv_row(r));
        REQUIRE(fields.size() == header.size());
        CHECK(fields[3] == r.row.step);
        CHECK(fields[4] == r.row.change);  // quoted on the way out, intact on the way back
    }
    const std::vector<std::string> first = csv_fields(csv_row(rated[0]));
    CHECK(first[10].empty());  // x_previous blank
    CHECK(first[11] == "1.0000");
    CHECK(first[12] == "0.0625");
    CHECK(first[13] == "warm");
    const std::vector<std::string> failed = csv_fields(csv_row(rated[2]));
    CHECK(failed[13] == "flushed");
    CHECK(failed[14] == "FAIL");
}

TEST_CASE("the Markdown table has a header, an alignment line and one line per row", "[bench]") {
    std::vector<Row> rows = sample_table();
    rows[1].change = "a | inside a cell";
    const std::string table = markdown_table(rate_table(rows));
    const std::vector<std::string> lines = lines_of(table);
    REQUIRE(lines.size() == 2 + rows.size());
    const std::size_t columns = table_headers().size();
    for (const std::string& line : lines) {
        CHECK(line.front() == '|');
        CHECK(line.back() == '|');
        CHECK(count_of(line, "|") - count_of(line, "\\|") == columns + 1);
    }
    CHECK(lines[0].find("x CUB") != std::string::npos);
    CHECK(count_of(lines[1], "---") == columns);
    CHECK(lines[2].find("step01_interleaved") != std::string::npos);
    CHECK(lines.back().find("| cub |") != std::string::npos);
}

TEST_CASE("the text table aligns its columns", "[bench]") {
    const std::vector<std::string> lines = lines_of(text_table(rate_table(sample_table())));
    REQUIRE(lines.size() == 5);
    // the numbers are right-aligned: every line's "check" column starts at the same place
    const std::size_t at = lines[0].find("check");
    REQUIRE(at != std::string::npos);
    for (std::size_t i = 1; i < lines.size(); ++i) CHECK(lines[i].substr(at, 4) == "PASS");
}

TEST_CASE("JSON: one array of flat records, null for blanks", "[bench]") {
    std::vector<Row> rows = sample_table();
    rows[1].change = "quote \" backslash \\ tab \t";
    rows[2].gbps = std::nan("");
    const std::string json = json_array(rate_table(rows));
    CHECK(json.front() == '[');
    CHECK(json.back() == ']');
    CHECK(json_balanced(json));
    CHECK(count_of(json, "{") == rows.size());
    CHECK(count_of(json, "\"x_previous\": null") == 2);  // step01 and CUB
    CHECK(count_of(json, "\"gbps\": null") == 1);        // NaN is not JSON
    CHECK(json.find("nan") == std::string::npos);
    CHECK(json.find("\\\"") != std::string::npos);
    CHECK(json.find("\\u0009") != std::string::npos);
    CHECK(json_array({}) == "[]");
}

TEST_CASE("sweep sizes run from 2^10 to 2^30 and stop where memory runs out", "[bench]") {
    const auto four_bytes_each = [](std::size_t n) { return 4 * n; };
    SECTION("a budget that holds everything") {
        const SweepPlan plan = plan_sweep(std::size_t{1} << 40, four_bytes_each);
        REQUIRE(plan.sizes.size() == 21);
        CHECK(plan.sizes.front() == std::size_t{1} << 10);
        CHECK(plan.sizes.back() == std::size_t{1} << 30);
        CHECK(plan.skipped.empty());
    }
    SECTION("a budget of 1 GiB keeps n while 4n plus 10% fits") {
        const SweepPlan plan = plan_sweep(std::size_t{1} << 30, four_bytes_each);
        REQUIRE(plan.sizes.size() == 18);  // 2^27 * 4 = 512 MiB fits; 2^28 * 4 = 1 GiB + 10% does not
        CHECK(plan.sizes.back() == std::size_t{1} << 27);
        REQUIRE(plan.skipped.size() == 3);
        CHECK(plan.skipped.front() == std::size_t{1} << 28);
    }
    SECTION("the 10% margin is required") {
        CHECK(fits_with_margin(1000, 1100));
        CHECK_FALSE(fits_with_margin(1000, 1099));
        CHECK_FALSE(fits_with_margin(2000, 1000));
    }
    SECTION("once one size does not fit, no larger one is tried") {
        const auto odd = [](std::size_t n) { return n == (std::size_t{1} << 12) ? std::size_t{1} << 40 : n; };
        const SweepPlan plan = plan_sweep(std::size_t{1} << 40, odd);
        CHECK(plan.sizes.size() == 2);
        CHECK(plan.skipped.size() == 19);
    }
    SECTION("too small for anything") {
        const SweepPlan plan = plan_sweep(100, four_bytes_each);
        CHECK(plan.sizes.empty());
        CHECK(plan.skipped.size() == 21);
    }
}

TEST_CASE("size_text, l2_text and stamp lines", "[bench]") {
    CHECK(size_text(4096) == "2^12");
    CHECK(size_text(1) == "2^0");
    CHECK(size_text(1000) == "1000");
    CHECK(l2_text(false) == "L2 warm");
    CHECK(l2_text(true) == "L2 flushed");
    const std::string stamp = stamp_lines({{"gpu", "NVIDIA H100"}, {"command", "compare\n--sweep"}});
    CHECK(stamp == "# gpu: NVIDIA H100\n# command: compare --sweep\n");
}
