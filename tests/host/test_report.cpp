// The three output forms of a measurement: the text block, CSV and JSON. Measurement and DeviceInfo
// are plain structs, so they are filled in by hand; nothing here touches a GPU.
#include "../catch.h"
#include "host_test_support.h"
#include "report.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace reduction;
using reduction::test::contains;

namespace {

DeviceInfo sample_device() {
    DeviceInfo device;
    device.name = "NVIDIA H100 80GB HBM3";
    device.cc_major = 9;
    device.cc_minor = 0;
    device.sm_count = 132;
    device.l2_bytes = std::size_t{50} << 20;
    device.peak_gbps = 3352.32;
    device.driver_version = 13000;
    device.runtime_version = 12040;
    return device;
}

Measurement passing_int32() {
    Measurement m = row_for<std::int32_t>(OpKind::sum, "step01_interleaved", "one thread per pair, interleaved addressing",
                                          std::size_t{1} << 24, 256, 24);
    m.time.per_call = {0.125, 0.1, 100};
    m.time.batch_ms = 0.12;
    m.time.idle = {0.14, 0.13, 100};
    m.batch_gbps = 559.24;
    m.peak_gbps = 3352.32;
    m.gbps = 536.87;
    m.percent_of_peak = 16.0;
    m.verdict.pass = true;
    m.verdict.result = "-123456";
    m.verdict.expected = "-123456";
    return m;
}

// The GPU returned NaN: the error is infinite, which JSON cannot spell.
Measurement failing_float() {
    Measurement m = passing_int32();
    m.type = ElementType::float32;
    m.l2_flushed = true;
    m.time.batch_ms = NAN;  // none with a flush
    m.batch_gbps = NAN;
    m.verdict.pass = false;
    m.verdict.result = "nan";
    m.verdict.expected = "12.5";
    m.verdict.error = std::numeric_limits<double>::infinity();
    m.verdict.tolerance = 3.2e-5;
    m.verdict.note = "the GPU returned nan, which is never a valid sum of finite inputs";
    return m;
}

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::stringstream stream(text);
    std::string part;
    while (std::getline(stream, part, separator)) parts.push_back(part);
    if (!text.empty() && text.back() == separator) parts.emplace_back();  // getline drops a last empty field
    return parts;
}

// A strict parser for the shape json_record writes: one flat object whose values are strings,
// numbers or null. Returns key -> value (strings unescaped, marked by a leading '"'; numbers and
// null as written). Anything else, a duplicate key included, throws: a malformed record fails.
class FlatJsonParser {
public:
    explicit FlatJsonParser(const std::string& text) : text_(text) {}

    std::map<std::string, std::string> parse() {
        std::map<std::string, std::string> fields;
        expect('{');
        skip_space();
        if (peek() == '}') {
            ++at_;
            return finish(fields);
        }
        while (true) {
            const std::string key = string_value();
            expect(':');
            skip_space();
            const std::string value = peek() == '"' ? '"' + string_value() : scalar_value();
            if (!fields.emplace(key, value).second) fail("duplicate key '" + key + "'");
            keys_.push_back(key);
            skip_space();
            if (peek() == ',') {
                ++at_;
                skip_space();
                continue;
            }
            expect('}');
            return finish(fields);
        }
    }

    const std::vector<std::string>& keys() const { return keys_; }  // in the order written

private:
    [[noreturn]] void fail(const std::string& why) const {
        throw std::runtime_error("invalid JSON: " + why + " at offset " + std::to_string(at_) + " of " + text_);
    }
    char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
    void skip_space() {
        while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
    }
    void expect(char c) {
        skip_space();
        if (peek() != c) fail(std::string("expected '") + c + "'");
        ++at_;
    }
    std::map<std::string, std::string> finish(std::map<std::string, std::string>& fields) {
        skip_space();
        if (at_ != text_.size()) fail("text after the object");
        return fields;
    }
    std::string string_value() {
        expect('"');
        std::string out;
        while (true) {
            if (at_ >= text_.size()) fail("unterminated string");
            const char c = text_[at_++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) fail("unescaped control character");
            if (c != '\\') {
                out += c;
                continue;
            }
            const char escaped = peek();
            ++at_;
            switch (escaped) {
                case '"': case '\\': case '/': out += escaped; break;
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'u': out += unicode_escape(); break;
                default: fail("unknown escape");
            }
        }
    }
    char unicode_escape() {  // only the ASCII range, all a record can need
        const std::string hex = text_.substr(at_, 4);
        if (hex.size() != 4 || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
            fail("bad \\u escape");
        at_ += 4;
        const long code = std::strtol(hex.c_str(), nullptr, 16);
        if (code >= 0x80) fail("non-ASCII \\u escape");
        return static_cast<char>(code);
    }
    std::string scalar_value() {
        const std::size_t start = at_;
        while (at_ < text_.size() && text_[at_] != ',' && text_[at_] != '}' &&
               !std::isspace(static_cast<unsigned char>(text_[at_])))
            ++at_;
        const std::string token = text_.substr(start, at_ - start);
        static const std::regex number("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");
        if (token != "null" && !std::regex_match(token, number)) fail("'" + token + "' is not a JSON number or null");
        return token;
    }

    const std::string& text_;
    std::size_t at_ = 0;
    std::vector<std::string> keys_;
};

std::map<std::string, std::string> parse_json(const std::string& text) { return FlatJsonParser(text).parse(); }

std::vector<std::string> json_keys(const std::string& text) {
    FlatJsonParser parser(text);
    parser.parse();
    return parser.keys();
}

// The documented schema: the rows "| `name` | CSV, JSON | ..." of common/README.md's field table.
struct DocumentedField {
    std::string name;
    bool csv;
};
std::vector<DocumentedField> documented_fields() {
    const std::string path = std::string(REDUCTION_TEST_DATA_DIR) + "/../../common/README.md";
    std::ifstream file(path);
    if (!file) throw std::runtime_error("cannot read " + path);
    std::vector<DocumentedField> fields;
    static const std::regex row("\\| `([a-z0-9_]+)` \\| (CSV, JSON|JSON) \\|.*");
    std::smatch match;
    for (std::string line; std::getline(file, line);)
        if (std::regex_match(line, match, row)) fields.push_back({match[1], match[2] == "CSV, JSON"});
    return fields;
}

}  // namespace

TEST_CASE("the input is described from the stamp: generated values or a file", "[report]") {
    const DeviceInfo device;
    const char* argv[] = {"step01_interleaved"};
    InputSpec generated;
    generated.pattern = Pattern::alternating;
    generated.seed = 42;
    CHECK(input_description(make_stamp(device, generated, MeasureSettings{}, 1, argv)) == "pattern alternating, seed 42");
    InputSpec file;
    file.path = "values.bin";
    CHECK(input_description(make_stamp(device, file, MeasureSettings{}, 1, argv)) == "file 'values.bin'");
}

TEST_CASE("a row knows its element type and the input's bytes from T", "[report]") {
    const Measurement doubles = row_for<double>(OpKind::max, "step11_any_operator", "", 1000, 128, 0);
    CHECK(doubles.type == ElementType::float64);
    CHECK(doubles.op == "max");
    CHECK(doubles.bytes == 8000);
    Measurement ints = row_for<std::int32_t>(OpKind::sum, "step01_interleaved", "", 1000, 128, 0);
    CHECK(ints.bytes == 4000);
    ints.time.per_call.median_ms = 0.001;  // 4000 bytes in a microsecond: 4 GB/s
    add_bandwidth(ints, 8.0);
    CHECK(ints.gbps == Approx(4.0));
    CHECK(ints.percent_of_peak == Approx(50.0));
}

TEST_CASE("count_text names powers of two", "[report]") {
    test::check_each<std::size_t>(count_text, {{16777216, "16777216 (2^24)"}, {1000003, "1000003"}, {1, "1 (2^0)"},
                                               {2, "2 (2^1)"}, {3, "3"}, {(std::size_t{1} << 24) + 1, "16777217"},
                                               {(std::size_t{1} << 24) - 1, "16777215"},
                                               {std::size_t{1} << 40, "1099511627776 (2^40)"},
                                               {std::size_t{1} << 63, "9223372036854775808 (2^63)"}});
}

TEST_CASE("footprint_text says whether the input fits in L2", "[report]") {
    const std::size_t l2 = std::size_t{50} << 20;
    CHECK(footprint_text(std::size_t{64} << 20, l2) == "64.0 MiB, larger than the 50 MiB L2");
    const std::string fits = footprint_text(std::size_t{32} << 20, l2);
    CHECK(fits.rfind("32.0 MiB, fits in the 50 MiB L2", 0) == 0);
    CHECK(contains(footprint_text(l2, l2), "fits in the 50 MiB L2"));  // exactly the L2's size still fits
    CHECK(contains(footprint_text(l2 + 1, l2), "larger than the 50 MiB L2"));
    CHECK(footprint_text(std::size_t{3} << 19, l2).rfind("1.5 MiB", 0) == 0);
}

TEST_CASE("CSV: the header has the 16 documented columns and every row as many fields", "[report]") {
    const std::vector<std::string> columns{"type", "op", "n", "block", "step", "change", "time_median_ms",
                                           "time_min_ms", "gbps", "percent_of_peak", "batch_ms", "batch_gbps",
                                           "idle_ms", "peak_gbps", "l2", "status"};
    CHECK(split(csv_header(), ',') == columns);

    Measurement row = passing_int32();
    row.change = "plain words";  // a comma would be quoted and split() here is naive
    const auto pass = split(csv_row(row), ',');
    REQUIRE(pass.size() == columns.size());
    CHECK(pass[0] == "int32");
    CHECK(pass[1] == "sum");
    CHECK(pass[2] == "16777216");
    CHECK(pass[3] == "256");
    CHECK(pass[4] == "step01_interleaved");
    CHECK(std::strtod(pass[6].c_str(), nullptr) == 0.125);
    CHECK(std::strtod(pass[7].c_str(), nullptr) == 0.1);
    CHECK(std::strtod(pass[10].c_str(), nullptr) == 0.12);
    CHECK(std::strtod(pass[11].c_str(), nullptr) == 559.24);
    CHECK(std::strtod(pass[12].c_str(), nullptr) == 0.14);
    CHECK(pass[14] == "warm");
    CHECK(pass[15] == "PASS");

    Measurement fail_row = failing_float();
    fail_row.change = "plain words";
    const auto fail = split(csv_row(fail_row), ',');
    REQUIRE(fail.size() == columns.size());
    CHECK(fail[0] == "float32");
    CHECK(fail[10].empty());  // no batch with a flushed L2
    CHECK(fail[11].empty());
    CHECK(fail[14] == "flushed");
    CHECK(fail[15] == "FAIL");

    Measurement unchecked = passing_int32();
    unchecked.verified = false;
    CHECK(status_text(unchecked) == std::string("-"));
}

TEST_CASE("a tool's extra cells come last: a blank CSV cell or JSON null where there is no value", "[report]") {
    const ExtraCells extra = {{"x_one", 2.5, "%.4f"}, {"x_none", NAN, "%.4f"}};
    CHECK(csv_header(extra) == csv_header() + ",x_one,x_none");
    CHECK(csv_row(passing_int32(), extra) == csv_row(passing_int32()) + ",2.5000,");
    const auto fields = parse_json(json_record(passing_int32(), extra));
    CHECK(fields.at("x_one") == "2.5000");
    CHECK(fields.at("x_none") == "null");
    CHECK(json_keys(json_record(passing_int32(), extra)).back() == "x_none");
}

TEST_CASE("CSV: a change with a comma is quoted as one field", "[report]") {
    const std::string row = csv_row(passing_int32());
    CHECK(contains(row, "\"one thread per pair, interleaved addressing\""));
}

TEST_CASE("stamp lines: one '# key: value' line each, newlines flattened", "[report]") {
    const std::string lines = stamp_lines({{"gpu", "H100"}, {"command", "compare\n--csv"}});
    CHECK(lines == "# gpu: H100\n# command: compare --csv\n");
    InputSpec input;
    input.seed = 7;
    const char* argv[] = {"compare", "--csv"};
    const Stamp stamp = make_stamp(sample_device(), input, MeasureSettings{}, 2, argv);
    std::map<std::string, std::string> keys(stamp.begin(), stamp.end());
    for (const char* key : {"gpu", "compute_capability", "sms", "l2_mib", "peak_gbps", "cuda_driver_api", "cuda_runtime",
                            "date_utc", "commit", "command", "l2", "timing", "seed"}) {
        INFO("key " << key);
        CHECK(keys.count(key) == 1);
    }
    CHECK(keys.at("seed") == "7");
    CHECK(keys.at("command") == "compare --csv");
    CHECK(contains(keys.at("timing"), "gate kernel"));
}

TEST_CASE("stamp_value: a key's value, to change or extend; a missing key is added", "[report]") {
    Stamp stamp = {{"gpu", "H100"}, {"timing", "per call"}};
    stamp_value(stamp, "timing") += "; sizes";
    stamp_value(stamp, "gpus") = "2";
    CHECK(stamp_lines(stamp) == "# gpu: H100\n# timing: per call; sizes\n# gpus: 2\n");
}

TEST_CASE("JSON: one well-formed record with every field", "[report]") {
    const auto fields = parse_json(json_record(passing_int32()));
    for (const char* key : {"type", "op", "n", "block", "step", "change", "time_median_ms", "time_min_ms", "gbps",
                            "percent_of_peak", "batch_ms", "batch_gbps", "idle_ms", "peak_gbps", "l2", "status",
                            "result", "expected", "error", "tolerance"}) {
        INFO("key " << key);
        CHECK(fields.count(key) == 1);
    }
    // strings are strings and numbers are numbers (a leading '"' marks a string in the parsed map)
    CHECK(fields.at("step") == "\"step01_interleaved");
    CHECK(fields.at("type") == "\"int32");
    CHECK(fields.at("n") == "16777216");
    CHECK(fields.at("block") == "256");
    CHECK(std::strtod(fields.at("time_median_ms").c_str(), nullptr) == 0.125);
    CHECK(fields.at("result") == "\"-123456");
    CHECK(fields.at("status") == "\"PASS");
    CHECK(std::strtod(fields.at("idle_ms").c_str(), nullptr) == 0.14);
}

TEST_CASE("JSON: quotes, backslashes and control characters are escaped", "[report]") {
    // parse_json throws, failing the REQUIRE, if anything is left unescaped or escaped wrongly
    SECTION("a quote and a backslash in the change") {
        Measurement m = passing_int32();
        m.change = "GPU \"quoted\" C:\\path";
        const std::string record = json_record(m);
        INFO(record);
        std::map<std::string, std::string> fields;
        REQUIRE_NOTHROW(fields = parse_json(record));
        CHECK(fields.at("change") == "\"" + m.change);
    }
    SECTION("a newline and a tab in the note (a file name may hold them)") {
        Measurement m = passing_int32();
        m.verdict.note = "file 'odd\nname\t.bin'";
        const std::string record = json_record(m);
        INFO(record);
        CHECK((contains(record, "odd\\u000aname\\u0009.bin") || contains(record, "odd\\nname\\t.bin")));
        std::map<std::string, std::string> fields;
        REQUIRE_NOTHROW(fields = parse_json(record));
        CHECK(fields.at("note") == "\"" + m.verdict.note);
    }
}

TEST_CASE("JSON: an infinite error is written as null, not inf", "[report]") {
    const std::string record = json_record(failing_float());
    INFO(record);
    const auto fields = parse_json(record);
    CHECK(fields.at("error") == "null");
    CHECK(fields.at("batch_ms") == "null");
    CHECK(fields.at("status") == "\"FAIL");
    CHECK(fields.at("result") == "\"nan");
    CHECK(contains(fields.at("note"), "never a valid sum"));
    CHECK(std::strtod(fields.at("tolerance").c_str(), nullptr) == 3.2e-5);

    Measurement nan_error = failing_float();
    nan_error.verdict.error = std::numeric_limits<double>::quiet_NaN();
    CHECK(parse_json(json_record(nan_error)).at("error") == "null");
}

TEST_CASE("the text block shows the verdict, the bandwidth and the share of the peak", "[report]") {
    const auto text_of = [](const Measurement& m) {
        std::ostringstream out;
        print_text(out, m, sample_device(), "pattern random, seed 42");
        return out.str();
    };
    const std::string pass = text_of(passing_int32());
    INFO(pass);
    CHECK(contains(pass, "step01_interleaved"));
    CHECK(contains(pass, "16777216 (2^24) int32"));
    CHECK(contains(pass, "pattern random, seed 42"));
    CHECK(contains(pass, "larger than the 50 MiB L2"));  // 64 MiB of int32
    CHECK(contains(pass, "exact comparison"));
    CHECK(contains(pass, "PASS"));
    CHECK_FALSE(contains(pass, "FAIL"));
    CHECK(contains(pass, "GB/s"));
    CHECK(contains(pass, "% of the"));
    CHECK(contains(pass, "536.9 GB/s"));
    CHECK(contains(pass, "3352 GB/s peak"));
    CHECK(contains(pass, "0.1250 ms median"));
    CHECK(contains(pass, "0.1200 ms per call"));  // the batch figure
    CHECK(contains(pass, "0.1400 ms median per call when the GPU waits"));
    CHECK_FALSE(contains(pass, "note"));  // nothing to say when it passed

    const std::string fail = text_of(failing_float());
    INFO(fail);
    CHECK(contains(fail, "FAIL"));
    CHECK_FALSE(contains(fail, "PASS"));
    CHECK(contains(fail, "tolerance"));
    CHECK(contains(fail, "d = 24"));
    CHECK(contains(fail, "never a valid sum"));  // the note is shown
    CHECK(contains(fail, "flushed"));
    CHECK(contains(fail, "batch      none"));
}

TEST_CASE("CSV header and JSON keys are the fields documented in common/README.md, in order", "[report]") {
    const std::vector<DocumentedField> documented = documented_fields();
    REQUIRE(documented.size() >= 16);
    std::string csv_columns;
    std::vector<std::string> all_keys;
    for (const DocumentedField& field : documented) {
        if (field.csv) csv_columns += (csv_columns.empty() ? "" : ",") + field.name;
        all_keys.push_back(field.name);
    }
    CHECK(csv_header() == csv_columns);
    CHECK(json_keys(json_record(passing_int32())) == all_keys);
    CHECK(json_keys(json_record(failing_float())) == all_keys);
}

TEST_CASE("max and min are compared exactly, and the text block says so", "[report]") {
    for (const char* op : {"max", "min"}) {
        Measurement m = failing_float();
        m.op = op;
        m.verdict.pass = true;
        m.verdict.note.clear();
        m.verdict.error = 0;
        m.verdict.tolerance = 0;
        std::ostringstream out;
        print_text(out, m, sample_device(), "pattern random, seed 42");
        INFO(out.str());
        CHECK(contains(out.str(), "exact comparison"));
        CHECK_FALSE(contains(out.str(), "tolerance"));
        CHECK_FALSE(contains(out.str(), "gamma_d"));
    }
}
