// The three output forms of a measurement: the text block, CSV and JSON. Measurement and DeviceInfo
// are plain structs, so they are filled in by hand; nothing here touches a GPU.
#include "../catch.h"
#include "host_test_support.h"
#include "report.h"

#include <cctype>
#include <cstdlib>
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
    device.total_memory = std::size_t{80} << 30;
    device.peak_gbps = 3352.32;
    device.driver_version = 13000;
    device.runtime_version = 12040;
    return device;
}

Measurement passing_int32() {
    Measurement m;
    m.step = "step01_interleaved";
    m.change = "one thread per pair, interleaved addressing";
    m.type = ElementType::int32;
    m.n = std::size_t{1} << 24;
    m.block = 256;
    m.depth = 24;
    m.time = {0.125, 0.1, 100};
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
};

std::map<std::string, std::string> parse_json(const std::string& text) { return FlatJsonParser(text).parse(); }

}  // namespace

TEST_CASE("count_text names powers of two", "[report]") {
    CHECK(count_text(16777216) == "16777216 (2^24)");
    CHECK(count_text(1000003) == "1000003");
    CHECK(count_text(1) == "1 (2^0)");
    CHECK(count_text(2) == "2 (2^1)");
    CHECK(count_text(3) == "3");
    CHECK(count_text((std::size_t{1} << 24) + 1) == "16777217");
    CHECK(count_text((std::size_t{1} << 24) - 1) == "16777215");
    CHECK(count_text(std::size_t{1} << 40) == "1099511627776 (2^40)");
    CHECK(count_text(std::size_t{1} << 63) == "9223372036854775808 (2^63)");
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

TEST_CASE("CSV: the header has the 14 documented columns and every row as many fields", "[report]") {
    const std::vector<std::string> columns{"step",  "type",   "n",        "block", "time_median_ms",
                                           "time_min_ms", "gbps", "percent_of_peak", "l2", "result",
                                           "expected", "error", "tolerance", "status"};
    CHECK(split(csv_header(), ',') == columns);

    const auto pass = split(csv_row(passing_int32()), ',');
    REQUIRE(pass.size() == columns.size());
    CHECK(pass[0] == "step01_interleaved");
    CHECK(pass[1] == "int32");
    CHECK(pass[2] == "16777216");
    CHECK(pass[3] == "256");
    CHECK(std::strtod(pass[4].c_str(), nullptr) == 0.125);
    CHECK(std::strtod(pass[5].c_str(), nullptr) == 0.1);
    CHECK(pass[8] == "warm");
    CHECK(pass[9] == "-123456");
    CHECK(pass[10] == "-123456");
    CHECK(pass[13] == "PASS");

    const auto fail = split(csv_row(failing_float()), ',');
    REQUIRE(fail.size() == columns.size());
    CHECK(fail[1] == "float32");
    CHECK(fail[8] == "flushed");
    CHECK(fail[13] == "FAIL");
}

TEST_CASE("JSON: one well-formed record with every field", "[report]") {
    const auto fields = parse_json(json_record(passing_int32(), sample_device(), "pattern random, seed 42"));
    for (const char* key : {"step", "type", "n", "block", "time_median_ms", "time_min_ms", "gbps", "percent_of_peak",
                            "result", "expected", "error", "tolerance", "status"}) {
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
    CHECK(fields.at("device") == "\"NVIDIA H100 80GB HBM3");
    CHECK(fields.at("driver") == "\"13.0");
    CHECK(fields.at("runtime") == "\"12.4");
    CHECK(fields.at("input") == "\"pattern random, seed 42");
}

TEST_CASE("JSON: quotes, backslashes and control characters are escaped", "[report]") {
    // parse_json throws, failing the REQUIRE, if anything is left unescaped or escaped wrongly
    SECTION("a quote and a backslash in the device name") {
        DeviceInfo device = sample_device();
        device.name = "GPU \"quoted\" C:\\path";
        const std::string record = json_record(passing_int32(), device, "pattern random, seed 42");
        INFO(record);
        std::map<std::string, std::string> fields;
        REQUIRE_NOTHROW(fields = parse_json(record));
        CHECK(fields.at("device") == "\"" + device.name);
    }
    SECTION("a newline and a tab in the input description (a file name may hold them)") {
        const std::string input = "file 'odd\nname\t.bin'";
        const std::string record = json_record(passing_int32(), sample_device(), input);
        INFO(record);
        CHECK((contains(record, "odd\\u000aname\\u0009.bin") || contains(record, "odd\\nname\\t.bin")));
        std::map<std::string, std::string> fields;
        REQUIRE_NOTHROW(fields = parse_json(record));
        CHECK(fields.at("input") == "\"" + input);
    }
}

TEST_CASE("JSON: an infinite error is written as null, not inf", "[report]") {
    const std::string record = json_record(failing_float(), sample_device(), "pattern random, seed 1");
    INFO(record);
    const auto fields = parse_json(record);
    CHECK(fields.at("error") == "null");
    CHECK(fields.at("status") == "\"FAIL");
    CHECK(fields.at("result") == "\"nan");
    CHECK(contains(fields.at("note"), "never a valid sum"));
    CHECK(std::strtod(fields.at("tolerance").c_str(), nullptr) == 3.2e-5);

    Measurement nan_error = failing_float();
    nan_error.verdict.error = std::numeric_limits<double>::quiet_NaN();
    CHECK(parse_json(json_record(nan_error, sample_device(), "")).at("error") == "null");
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
    CHECK_FALSE(contains(pass, "note"));  // nothing to say when it passed

    const std::string fail = text_of(failing_float());
    INFO(fail);
    CHECK(contains(fail, "FAIL"));
    CHECK_FALSE(contains(fail, "PASS"));
    CHECK(contains(fail, "tolerance"));
    CHECK(contains(fail, "d = 24"));
    CHECK(contains(fail, "never a valid sum"));  // the note is shown
    CHECK(contains(fail, "flushed"));
}
