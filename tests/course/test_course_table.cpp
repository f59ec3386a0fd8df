// compare's arithmetic without a GPU: ratios, the text table, the sweep's sizes, and the checks of
// the command line that must come before any GPU is looked for.
#include "../catch.h"
#include "../host/host_test_support.h"
#include "any_order_bound.h"
#include "course_steps.h"
#include "course_table.h"
#include "report.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using namespace reduction;
using namespace reduction::course;

namespace {

Measurement make_row(const std::string& step, double median_ms) {
    Measurement row;
    row.type = ElementType::int32;
    row.n = std::size_t{1} << 24;
    row.block = 256;
    row.step = step;
    row.change = "change of " + step;
    row.time.per_call = {median_ms, median_ms * 0.9, 100};
    row.time.batch_ms = median_ms * 0.8;
    row.gbps = 67.108864 / median_ms;
    row.percent_of_peak = 100.0 * row.gbps / 3352.3;
    row.peak_gbps = 3352.3;
    row.verdict.pass = true;
    return row;
}

// step01 4 ms, step02 2 ms, step07 0.5 ms, CUB 0.25 ms.
std::vector<Measurement> sample_table() {
    return {make_row("step01_interleaved", 4.0), make_row("step02_nondivergent", 2.0),
            make_row("step07_multi_level", 0.5), make_row("cub", 0.25)};
}

std::vector<TableRow> rate(const std::vector<Measurement>& rows) { return rate_table(rows); }

// The header line the top-level README shows in backquotes: "`type,op,n,...`".
std::string readme_csv_header() {
    const std::string path = std::string(REDUCTION_SOURCE_DIR) + "/README.md";
    std::ifstream file(path);
    if (!file) throw std::runtime_error("cannot read " + path);
    for (std::string line; std::getline(file, line);)
        if (line.rfind("`type,", 0) == 0) return line.substr(1, line.find('`', 1) - 1);
    return "<no header line in README.md>";
}

bool near(const std::optional<double>& value, double expected) {
    return value && std::fabs(*value - expected) < 1e-12;
}

Options compare_options(const std::vector<std::string>& args) {
    std::vector<const char*> argv{"compare"};
    for (const std::string& arg : args) argv.push_back(arg.c_str());
    return parse_options(static_cast<int>(argv.size()), argv.data(), Tool::compare);
}

}  // namespace

TEST_CASE("ratios compare each row's median time with the previous row, step01 and CUB", "[course]") {
    const std::vector<TableRow> rated = rate(sample_table());
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

TEST_CASE("ratio columns are blank when step01 or CUB was not measured", "[course]") {
    SECTION("no CUB") {
        std::vector<Measurement> rows = sample_table();
        rows.pop_back();
        for (const TableRow& rated : rate(rows)) CHECK_FALSE(rated.ratios.cub.has_value());
    }
    SECTION("no step01") {
        std::vector<Measurement> rows = sample_table();
        rows.erase(rows.begin());
        const std::vector<TableRow> rated = rate(rows);
        for (const TableRow& r : rated) CHECK_FALSE(r.ratios.step01.has_value());
        CHECK_FALSE(rated[0].ratios.previous.has_value());  // step02 is now the first row
        CHECK(near(rated[1].ratios.previous, 4.0));
    }
    SECTION("a zero time gives no ratio rather than infinity") {
        std::vector<Measurement> rows = sample_table();
        rows[0].time.per_call.median_ms = 0;
        const std::vector<TableRow> rated = rate(rows);
        CHECK_FALSE(rated[1].ratios.previous.has_value());
        CHECK_FALSE(rated[1].ratios.step01.has_value());
        CHECK_FALSE(rated[0].ratios.cub.has_value());
    }
    SECTION("blanks print as '-' in the readable table") {
        std::vector<Measurement> rows = sample_table();
        rows.pop_back();
        const std::string table = text_table(rate(rows));
        const std::string first_line = table.substr(table.find('\n') + 1, table.find('\n', table.find('\n') + 1) - table.find('\n') - 1);
        INFO(table);
        CHECK(test::contains(first_line, "step01_interleaved"));
        CHECK(test::contains(first_line, "  -  "));   // x previous and x CUB
        CHECK(test::contains(first_line, "1.00"));    // x step01
        CHECK(test::contains(first_line, "3.2000"));  // the batch figure: 0.8 * 4 ms
    }
}

TEST_CASE("cub_gpu_to_gpu is one of CUB's rows: no x previous, x CUB against cub", "[course]") {
    std::vector<Measurement> rows = sample_table();
    rows.push_back(make_row("cub_gpu_to_gpu", 0.5));
    const std::vector<TableRow> rated = rate(rows);
    CHECK_FALSE(rated[4].ratios.previous.has_value());
    CHECK(near(rated[4].ratios.step01, 8.0));
    CHECK(near(rated[4].ratios.cub, 0.5));  // cub's 0.25 ms / 0.5 ms
}

TEST_CASE("compare's CSV: the row's fields, then x_previous, x_step01 and x_cub, as the README shows", "[course]") {
    CHECK(csv_header(ratio_cells({})) == csv_header() + ",x_previous,x_step01,x_cub");
    CHECK(readme_csv_header() == csv_header(ratio_cells({})));
    const std::vector<TableRow> rated = rate(sample_table());
    const std::string first = csv_row(rated[0], ratio_cells(rated[0].ratios));
    const std::string ending = ",PASS,,1.0000,0.0625";  // no previous row; 4 ms / 4 ms; CUB's 0.25 ms / 4 ms
    INFO(first);
    CHECK(first.size() > ending.size());
    CHECK(first.compare(first.size() - ending.size(), ending.size(), ending) == 0);
}

TEST_CASE("the text table aligns its columns and shows per-call and batch times", "[course]") {
    const std::string table = text_table(rate(sample_table()));
    INFO(table);
    CHECK(test::contains(table, "ms/call"));
    CHECK(test::contains(table, "batch ms"));
    CHECK(test::contains(table, "PASS"));
    Measurement probe = make_row("read_probe", 0.2);
    probe.verified = false;  // a row that is only timed shows '-' as its check
    std::vector<Measurement> rows = sample_table();
    rows.push_back(probe);
    CHECK(test::contains(text_table(rate(rows)), "-\n"));
}

TEST_CASE("compare rejects every user mistake before looking for a GPU", "[course]") {
    const test::TempDir dir;
    SECTION("a missing --input file") {
        const auto options = compare_options({"--input", dir.file("missing.bin")});
        const std::string message = test::usage_error_message([&] { plan_compare(options); });
        CHECK(test::contains(message, "cannot open"));
    }
    SECTION("a --input file that is not a whole number of elements") {
        const auto path = dir.write_bytes("six.bin", std::vector<unsigned char>(6, 0));
        const auto options = compare_options({"--input", path, "--type", "float64"});
        CHECK(test::contains(test::usage_error_message([&] { plan_compare(options); }), "not a multiple of 8"));
    }
    SECTION("--input with --type all") {
        const auto path = dir.write_values("ok.bin", std::vector<std::int32_t>{1, 2, 3});
        const auto options = compare_options({"--input", path, "--type", "all"});
        CHECK(test::contains(test::usage_error_message([&] { plan_compare(options); }), "one type"));
    }
    SECTION("--sweep with --json, and an unknown step") {
        CHECK(test::contains(test::usage_error_message([&] { plan_compare(compare_options({"--sweep", "--json"})); }),
                             "--sweep writes CSV"));
        CHECK(test::contains(test::usage_error_message([&] { plan_compare(compare_options({"--steps", "01,99"})); }),
                             "'99'"));
    }
    SECTION("a good file gives n from its size; steps in course order, CUB last") {
        const auto path = dir.write_values("ok.bin", std::vector<float>(1000, 1.0f));
        const ComparePlan plan = plan_compare(compare_options({"--input", path, "--type", "float32", "--steps", "cub,03,01"}));
        CHECK(plan.input.n == 1000);
        REQUIRE(plan.steps.size() == 3);
        CHECK(std::string(plan.steps[0]->name).rfind("step01", 0) == 0);
        CHECK(std::string(plan.steps[2]->name) == "cub");
        REQUIRE(plan.types.size() == 1);
        CHECK(plan.types[0] == ElementType::float32);
    }
}

TEST_CASE("sweep sizes run from 2^4 to 2^32 and stop where memory runs out", "[course]") {
    const auto four_bytes_each = [](std::size_t n) { return 4 * n; };
    SECTION("a budget that holds everything") {
        const SweepPlan plan = plan_sweep(std::size_t{1} << 40, four_bytes_each);
        REQUIRE(plan.sizes.size() == 29);
        CHECK(plan.sizes.front() == std::size_t{1} << 4);
        CHECK(plan.sizes.back() == std::size_t{1} << 32);
        CHECK(plan.skipped.empty());
    }
    SECTION("a budget of 1 GiB keeps n while 4n plus 10% fits") {
        const SweepPlan plan = plan_sweep(std::size_t{1} << 30, four_bytes_each);
        REQUIRE(plan.sizes.size() == 24);  // 2^27 * 4 = 512 MiB fits; 2^28 * 4 = 1 GiB + 10% does not
        CHECK(plan.sizes.back() == std::size_t{1} << 27);
        REQUIRE(plan.skipped.size() == 5);
        CHECK(plan.skipped.front() == std::size_t{1} << 28);
        CHECK(plan.skipped.back() == std::size_t{1} << 32);
    }
    SECTION("an 80 GB device skips only what does not fit") {
        // 2^32 int32 is 16 GiB: it fits in 64 GiB free, with room for a step's scratch
        const SweepPlan plan = plan_sweep(std::size_t{64} << 30, [](std::size_t n) { return 4 * n + (n >> 6); });
        CHECK(plan.sizes.back() == std::size_t{1} << 32);
        const SweepPlan small = plan_sweep(std::size_t{16} << 30, [](std::size_t n) { return 4 * n + (n >> 6); });
        CHECK(small.sizes.back() == std::size_t{1} << 31);
        CHECK(small.skipped == std::vector<std::size_t>{std::size_t{1} << 32});
    }
    SECTION("the 10% margin is required") {
        CHECK(fits_with_margin(1000, 1100));
        CHECK_FALSE(fits_with_margin(1000, 1099));
        CHECK_FALSE(fits_with_margin(2000, 1000));
    }
    SECTION("once one size does not fit, no larger one is tried") {
        const auto odd = [](std::size_t n) { return n == (std::size_t{1} << 12) ? std::size_t{1} << 40 : n; };
        const SweepPlan plan = plan_sweep(std::size_t{1} << 40, odd);
        CHECK(plan.sizes.size() == 8);  // 2^4 .. 2^11
        CHECK(plan.skipped.size() == 21);
    }
    SECTION("too small for anything") {
        const SweepPlan plan = plan_sweep(50, four_bytes_each);  // 16 * 4 = 64 bytes do not fit in 50
        CHECK(plan.sizes.empty());
        CHECK(plan.skipped.size() == 29);
    }
}

TEST_CASE("size_text and l2_text", "[course]") {
    CHECK(size_text(4096) == "2^12");
    CHECK(size_text(1) == "2^0");
    CHECK(size_text(1000) == "1000");
    CHECK(l2_text(false) == "L2 warm");
    CHECK(l2_text(true) == "L2 flushed");
}

// CUB's float sums are checked against a bound that holds for every order of the additions.
TEST_CASE("the any-order bound for CUB's float sums", "[course]") {
    Reference r;
    r.n = std::size_t{1} << 20;
    r.sum = 100;
    r.abs_sum = 500000;
    r.positive_sum = 250050;
    r.negative_sum = -249950;
    const double relative = static_cast<double>(r.n - 1) * std::ldexp(1.0, -24);
    SECTION("(n-1) u sum|x|, plus the reference's own error") {
        CHECK(any_order_relative_bound<float>(r.n) == relative);
        CHECK(any_order_tolerance<float>(r) >= relative * 500000);
        CHECK(any_order_tolerance<float>(r) < relative * 500000 * (1 + 1e-12));
    }
    SECTION("inside passes, outside, NaN and infinity fail") {
        const auto inside = verify_any_order(static_cast<float>(100 + 0.99 * relative * 500000), r);
        REQUIRE(inside.has_value());
        CHECK(inside->pass);
        CHECK(test::contains(inside->note, "any-order bound"));
        CHECK_FALSE(verify_any_order(static_cast<float>(100 + 1.01 * relative * 500000), r)->pass);
        CHECK_FALSE(verify_any_order(std::numeric_limits<float>::quiet_NaN(), r)->pass);
        CHECK_FALSE(verify_any_order(std::numeric_limits<float>::infinity(), r)->pass);
    }
    SECTION("no verdict where the bound says nothing or does not apply") {
        Reference big = r;
        big.n = (std::size_t{1} << 24) + 1;  // (n-1) u = 1
        CHECK_FALSE(verify_any_order(100.0f, big).has_value());
        Reference integers = r;
        CHECK_FALSE(verify_any_order(std::int32_t{100}, integers).has_value());
        Reference infinite = r;
        infinite.first_non_finite = 7;
        CHECK_FALSE(verify_any_order(100.0f, infinite).has_value());
        Reference maximum = r;
        maximum.op = OpKind::max;
        CHECK_FALSE(verify_any_order(100.0f, maximum).has_value());
    }
    SECTION("double: the same bound with u = 2^-53") {
        Reference d = r;
        CHECK(verify_any_order(100.0 + 1e-6, d)->pass);
        CHECK_FALSE(verify_any_order(100.0 + 1e-3, d)->pass);
    }
}

// REDUCTION_EXPECT_GPU_TO_GPU (tests/CMakeLists.txt): the configure found the headers and built the row's library.
#if REDUCTION_EXPECT_GPU_TO_GPU
namespace {
// The steps' names in a plan, in its order.
std::vector<std::string> names(const ComparePlan& plan) {
    std::vector<std::string> out;
    for (const StepApi* step : plan.steps) out.push_back(step->name);
    return out;
}

bool any_note_with(const ComparePlan& plan, const std::string& part) {
    for (const std::string& note : plan.notes)
        if (test::contains(note, part)) return true;
    return false;
}
}  // namespace

TEST_CASE("cub_gpu_to_gpu: built with the headers, a row of float32 and float64 sums after cub", "[course]") {
    const StepApi* step = cub_gpu_to_gpu_step();
    REQUIRE(step != nullptr);
    CHECK(find_step("cub_gpu_to_gpu") == step);
    CHECK(cub_gpu_to_gpu_missing().empty());
    CHECK(test::contains(step->change, "determinism::gpu_to_gpu (CCCL 3."));
    CHECK(step->addition_depth(1000, 256) == 999);  // any order: gamma_{n-1}, as cub
    CHECK(step->int32.reduce == nullptr);
    CHECK(step->int32.scratch_bytes == nullptr);
    CHECK(step->float32.reduce != nullptr);
    CHECK(step->float64.reduce != nullptr);
    SECTION("named, in any order: the course's steps, cub, then it") {
        const ComparePlan plan =
            plan_compare(compare_options({"--steps", "cub_gpu_to_gpu,cub,14,13", "--type", "float32", "--sweep"}));
        const std::vector<std::string> expected = {find_step("13")->name, find_step("14")->name, "cub", "cub_gpu_to_gpu"};
        CHECK(names(plan) == expected);
        CHECK(plan.notes.empty());
    }
    SECTION("by default: in the float32 table, not in the int32 table, and a note says why") {
        const ComparePlan plan = plan_compare(compare_options({"--type", "all"}));
        CHECK(std::find(plan.steps.begin(), plan.steps.end(), step) != plan.steps.end());
        CHECK(plan.types.size() == 2);
        REQUIRE(plan.notes.size() == 1);
        CHECK(test::contains(plan.notes[0], "cub_gpu_to_gpu: not in the int32 table"));
    }
    SECTION("by default for int32 alone, or with --op max: left out without a word") {
        for (const ComparePlan& plan : {plan_compare(compare_options({"--type", "int32"})),
                                        plan_compare(compare_options({"--type", "float32", "--op", "max"}))}) {
            CHECK(std::find(plan.steps.begin(), plan.steps.end(), step) == plan.steps.end());
            CHECK(plan.notes.empty());
        }
    }
    SECTION("named alone with --type all: the int32 table would be empty, so int32 leaves the plan") {
        const ComparePlan plan = plan_compare(compare_options({"--steps", "cub_gpu_to_gpu", "--type", "all"}));
        CHECK(plan.types == std::vector<ElementType>{ElementType::float32});
        CHECK(any_note_with(plan, "not in the int32 table"));
    }
    SECTION("named for int32 alone or for an operator: refused before any GPU, saying why") {
        const std::string int32 = test::usage_error_message(
            [] { plan_compare(compare_options({"--steps", "cub_gpu_to_gpu", "--type", "int32"})); });
        CHECK(test::contains(int32, "has no int32 table"));
        CHECK(test::contains(int32, "same bits on every GPU"));
        const std::string max = test::usage_error_message(
            [] { plan_compare(compare_options({"--steps", "cub_gpu_to_gpu", "--type", "float32", "--op", "max"})); });
        CHECK(test::contains(max, "has no --op max"));
    }
}
#else
TEST_CASE("cub_gpu_to_gpu: built without the headers, skipped with the reason", "[course]") {
    CHECK(cub_gpu_to_gpu_step() == nullptr);
    CHECK(find_step("cub_gpu_to_gpu") == nullptr);
    CHECK(test::contains(cub_gpu_to_gpu_missing(), "tools/install_prerequisites.sh fetches them"));
    SECTION("named: one line that says what is missing and where it comes from") {
        const std::string message = test::usage_error_message(
            [] { plan_compare(compare_options({"--steps", "cub_gpu_to_gpu", "--type", "float32"})); });
        CHECK(test::contains(message, "not in this build"));
        CHECK(test::contains(message, "determinism::gpu_to_gpu not found at"));
    }
    SECTION("by default: a note under the float tables") {
        const ComparePlan plan = plan_compare(compare_options({"--type", "float32"}));
        REQUIRE(plan.notes.size() == 1);
        CHECK(test::contains(plan.notes[0], "cub_gpu_to_gpu: skipped: headers of a CCCL"));
        CHECK(plan_compare(compare_options({"--type", "int32"})).notes.empty());
    }
}
#endif
