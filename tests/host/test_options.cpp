// The command line: every accepted form parses to the right value, and every malformed one is a
// UsageError whose message says what would have been accepted (nothing falls back silently).
#include "../catch.h"
#include "host_test_support.h"
#include "exit_codes.h"
#include "options.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using namespace reduction;
using reduction::test::contains;

namespace {

using Args = std::vector<std::string>;

// argv as main() receives it: the program name first.
Options parse(const Args& args, Tool tool = Tool::step) {
    std::vector<const char*> argv{"reduce"};
    for (const auto& arg : args) argv.push_back(arg.c_str());
    return parse_options(static_cast<int>(argv.size()), argv.data(), tool);
}

std::string joined(const Args& args) {
    std::string text;
    for (const auto& arg : args) text += (text.empty() ? "" : " ") + arg;
    return text;
}

// The arguments must be a UsageError whose message contains every fragment (the flag, the bad
// value, what is accepted).
void check_rejected(const Args& args, const std::vector<std::string>& fragments, Tool tool = Tool::step) {
    const std::string message = test::usage_error_message([&] { parse(args, tool); });
    INFO("arguments: " << joined(args) << "\nmessage:   " << message);
    for (const auto& fragment : fragments) CHECK(contains(message, fragment));
}

// parse_count must reject `text`, naming the flag, the text and the accepted forms.
void check_count_rejected(const std::string& text, const std::string& why) {
    const std::string message = test::usage_error_message([&] { parse_count("--n", text); });
    INFO("count: '" << text << "'\nmessage: " << message);
    CHECK(contains(message, "--n"));
    CHECK(contains(message, "'" + text + "'"));
    CHECK(contains(message, why));
    CHECK(contains(message, "2^24"));  // the accepted forms are listed
    CHECK(contains(message, "16M"));
}

// Every flag with a value it accepts ("" for switches): one table for usage() and the parser.
struct FlagExample {
    const char* flag;
    const char* value;
};
const std::vector<FlagExample> step_flags = {
    {"--n", "2^20"},      {"--type", "float32"}, {"--block", "128"}, {"--iters", "10"},
    {"--warmup", "1"},    {"--seed", "42"},      {"--pattern", "ones"}, {"--input", "values.bin"},
    {"--device", "0"},    {"--flush-l2", ""},    {"--csv", ""},      {"--json", ""},
    {"--op", "max"},      {"--help", ""},
};
const std::vector<FlagExample> compare_only_flags = {{"--steps", "01,07,cub"}, {"--sweep", ""}};

// The exit code a program gets for these arguments: run_guarded maps a UsageError to it.
int exit_code_of_usage(const Args& args) {
    return run_guarded([&]() -> int {
        parse(args);
        return 0;
    });
}

Args with_value(const FlagExample& example) {
    Args args{example.flag};
    if (*example.value) args.push_back(example.value);
    return args;
}

}  // namespace

TEST_CASE("defaults match the documented ones", "[options]") {
    const Options o = parse({});
    CHECK(o.input.n == (std::size_t{1} << 24));
    CHECK(o.type == ElementType::int32);
    CHECK(o.measure.block == 256);
    CHECK(o.measure.iters == 100);
    CHECK(o.measure.warmup == 5);
    CHECK_FALSE(o.input.seed.has_value());  // a fresh seed is drawn later
    CHECK(o.input.pattern == Pattern::random);
    CHECK(o.input.path.empty());
    CHECK(o.device == 0);
    CHECK(o.format == OutputFormat::text);
    CHECK_FALSE(o.measure.flush_l2);
    CHECK_FALSE(o.help);
    CHECK(o.steps.empty());
    CHECK_FALSE(o.sweep);
    CHECK_FALSE(o.both_types);
}

TEST_CASE("counts: decimal, power of two and binary suffixes", "[options]") {
    const struct {
        const char* text;
        std::size_t value;
    } cases[] = {
        {"16777216", std::size_t{1} << 24}, {"2^24", std::size_t{1} << 24}, {"16M", std::size_t{16} << 20},
        {"1G", std::size_t{1} << 30},       {"64K", std::size_t{64} << 10}, {"1T", std::size_t{1} << 40},
        {"2^0", 1},                         {"1", 1},                       {"1000003", 1000003},
        {"2^62", std::size_t{1} << 62},     {"007", 7},
    };
    for (const auto& c : cases) {
        INFO("count: " << c.text);
        CHECK(parse_count("--n", c.text) == c.value);
        CHECK(parse({"--n", c.text}).input.n == c.value);
    }
}

TEST_CASE("malformed counts are rejected with the accepted forms", "[options]") {
    SECTION("not a count") {
        for (const char* text : {"abc", "-5", "16m", "16k", "3^4", "2^", "^4", "2^-1", "K", "1.5M", "+5", " 5",
                                 "16 M", "16MB", "0x10", "1e6", "99999999999999999999999"})
            check_count_rejected(text, "not a count");
    }
    SECTION("zero") {
        for (const char* text : {"0", "0K", "000"}) check_count_rejected(text, "zero");
    }
    SECTION("too large") {
        // 2^64 and 16777216T (= 2^64) do not fit in 64 bits: no wrap-around to a small count
        for (const char* text : {"2^64", "2^1000", "16777216T", "18446744073709551615K"})
            check_count_rejected(text, "too large");
    }
    SECTION("empty") { check_count_rejected("", "empty"); }
    SECTION("through the command line") {
        for (const char* text : {"abc", "-5", "0", "16m", "2^64", "3^4", "99999999999999999999999"})
            check_rejected({"--n", text}, {"--n", std::string("'") + text + "'", "2^24", "16M"});
    }
}

TEST_CASE("a flag without its value is rejected", "[options]") {
    for (const auto& example : step_flags)
        if (*example.value) check_rejected({example.flag}, {example.flag, "needs a value"});
    check_rejected({"--steps"}, {"--steps", "needs a value"}, Tool::compare);
    // the value is missing only at the end; in the middle the next flag is taken as the value
    check_rejected({"--n", "--csv"}, {"--n", "'--csv'", "not a count"});
}

TEST_CASE("unknown options and stray words are rejected", "[options]") {
    for (const char* word : {"--bogus", "-n", "--N", "--n=16M", "16M", "--", "-"})
        check_rejected({word}, {std::string("unknown option '") + word + "'", "--help"});
}

TEST_CASE("block sizes: the powers of two from 32 to 1024 and nothing else", "[options]") {
    for (int block = 32; block <= 1024; block *= 2) {
        INFO("block " << block);
        CHECK(parse({"--block", std::to_string(block)}).measure.block == block);
    }
    for (const char* text : {"100", "16", "2048", "0", "1", "31", "33", "96", "1023", "-256", "abc", "256.0", "",
                             "18446744073709551616", "9223372036854775808"})
        check_rejected({"--block", text}, {"--block", std::string("'") + text + "'", accepted_blocks});
    // every other value up to 2048 as well: the check is is_valid_block, not a list of examples
    for (long long block = 0; block <= 2048; ++block)
        if (block < 32 || block > 1024 || (block & (block - 1)) != 0) {
            INFO("block " << block);
            CHECK_FALSE(is_valid_block(block));
        }
}

TEST_CASE("element types, and 'all' only for the comparison", "[options]") {
    const struct {
        const char* text;
        ElementType type;
    } types[] = {{"int32", ElementType::int32}, {"float32", ElementType::float32}, {"float64", ElementType::float64}};
    for (const auto& t : types) {
        INFO("type " << t.text);
        CHECK(parse({"--type", t.text}).type == t.type);
        CHECK(parse({"--type", t.text}, Tool::compare).type == t.type);
        CHECK_FALSE(parse({"--type", t.text}, Tool::compare).both_types);
    }
    for (const char* text : {"half", "float", "double", "int64", "Int32", "all"})
        check_rejected({"--type", text}, {"--type", std::string("'") + text + "'", accepted_types});
    // a step runs one type: its message must not offer 'all'
    CHECK_FALSE(contains(test::usage_error_message([] { parse({"--type", "all"}); }), "all;"));
    CHECK_FALSE(contains(test::usage_error_message([] { parse({"--type", "all"}); }), ", all"));

    CHECK(parse({"--type", "all"}, Tool::compare).both_types);
    check_rejected({"--type", "half"}, {"'half'", accepted_types, ", all"}, Tool::compare);
}

TEST_CASE("repetitions, warm-up and device index are bounded integers", "[options]") {
    CHECK(parse({"--iters", "1"}).measure.iters == 1);
    CHECK(parse({"--iters", "1000000"}).measure.iters == 1000000);
    CHECK(parse({"--warmup", "0"}).measure.warmup == 0);
    CHECK(parse({"--warmup", "1000000"}).measure.warmup == 1000000);
    CHECK(parse({"--device", "3"}).device == 3);
    CHECK(parse({"--device", "1023"}).device == 1023);

    for (const char* text : {"x", "0", "-1", "1.5", "1000001", "4294967297", "99999999999999999999", ""})
        check_rejected({"--iters", text}, {"--iters", std::string("'") + text + "'", "1 to 1000000"});
    for (const char* text : {"-1", "x", "1000001"})
        check_rejected({"--warmup", text}, {"--warmup", std::string("'") + text + "'", "0 to 1000000"});
    for (const char* text : {"x", "-1", "1024", "18446744073709551615"})
        check_rejected({"--device", text}, {"--device", std::string("'") + text + "'", "device index"});
}

TEST_CASE("seeds cover the whole 64-bit range", "[options]") {
    const Options zero = parse({"--seed", "0"});
    REQUIRE(zero.input.seed.has_value());  // 0 is a seed, not "unset"
    CHECK(*zero.input.seed == 0);
    CHECK(parse({"--seed", "18446744073709551615"}).input.seed == std::numeric_limits<std::uint64_t>::max());
    for (const char* text : {"abc", "-1", "18446744073709551616", "1e3", ""})
        check_rejected({"--seed", text}, {"--seed", std::string("'") + text + "'", "0 to 2^64-1"});
}

TEST_CASE("patterns: every name round-trips, and the list in messages is complete", "[options]") {
    for (Pattern p : all_patterns) {
        INFO("pattern " << pattern_name(p));
        CHECK(parse({"--pattern", pattern_name(p)}).input.pattern == p);
        CHECK(contains(accepted_patterns, pattern_name(p)));
    }
    for (const char* text : {"zeros", "Random", "Ones", ""})
        check_rejected({"--pattern", text}, {"--pattern", std::string("'") + text + "'", accepted_patterns});
}

TEST_CASE("output format, L2 flushing and help are switches", "[options]") {
    CHECK(parse({"--csv"}).format == OutputFormat::csv);
    CHECK(parse({"--json"}).format == OutputFormat::json);
    CHECK(parse({"--flush-l2"}).measure.flush_l2);
    CHECK(parse({"--help"}).help);
    CHECK(parse({"-h"}).help);
    // a switch takes no value: what follows is parsed as the next flag
    check_rejected({"--csv", "yes"}, {"unknown option 'yes'"});
}

TEST_CASE("--csv and --json are one choice of output format", "[options]") {
    // either order; the message names both (UsageError: one stderr line, exit code 2)
    check_rejected({"--csv", "--json"}, {"--csv", "--json", "cannot be combined"});
    check_rejected({"--json", "--n", "2^10", "--csv"}, {"--csv", "--json", "cannot be combined"});
    check_rejected({"--csv", "--json"}, {"--csv", "--json", "cannot be combined"}, Tool::compare);
    CHECK(exit_code_of_usage({"--csv", "--json"}) == 2);
}

TEST_CASE("an option given twice is refused, not replaced by its last value", "[options]") {
    check_rejected({"--n", "5", "--n", "6"}, {"--n", "given twice"});
    check_rejected({"--type", "int32", "--block", "64", "--type", "float32"}, {"--type", "given twice"});
    check_rejected({"--csv", "--csv"}, {"--csv", "given twice"});
    check_rejected({"--help", "-h"}, {"--help", "given twice"});  // an alias is the same option
    check_rejected({"--steps", "01", "--steps", "07"}, {"--steps", "given twice"}, Tool::compare);
    for (const FlagExample& example : step_flags) {
        Args twice = with_value(example);
        const Args again = with_value(example);
        twice.insert(twice.end(), again.begin(), again.end());
        check_rejected(twice, {example.flag, "given twice"});
    }
    CHECK(exit_code_of_usage({"--n", "5", "--n", "6"}) == 2);
}

TEST_CASE("--input excludes --n, --pattern and --seed", "[options]") {
    CHECK(parse({"--input", "values.bin"}).input.path == "values.bin");
    CHECK(parse({"--input", "values.bin", "--type", "float64"}).type == ElementType::float64);
    check_rejected({"--input", ""}, {"--input", "file name"});

    // the file's size gives n; in either order
    check_rejected({"--n", "16M", "--input", "values.bin"}, {"--n", "--input"});
    check_rejected({"--input", "values.bin", "--n", "16M"}, {"--n", "--input"});
    // the generator's settings describe values that would be ignored
    check_rejected({"--input", "values.bin", "--pattern", "ones"}, {"--pattern", "--input"});
    check_rejected({"--seed", "7", "--input", "values.bin"}, {"--seed", "--input"});
    check_rejected({"--seed", "0", "--input", "values.bin"}, {"--seed", "--input"});  // 0 is given, too
}

TEST_CASE("--steps and --sweep belong to the comparison only", "[options]") {
    SECTION("a step rejects them as unknown") {
        check_rejected({"--steps", "01,07"}, {"unknown option '--steps'"});
        check_rejected({"--sweep"}, {"unknown option '--sweep'"});
    }
    SECTION("the comparison splits --steps at commas") {
        CHECK(parse({"--steps", "01,07,cub"}, Tool::compare).steps == std::vector<std::string>{"01", "07", "cub"});
        CHECK(parse({"--steps", "05"}, Tool::compare).steps == std::vector<std::string>{"05"});
        // empty entries are dropped, not turned into a step called ""
        CHECK(parse({"--steps", ",01,,07,"}, Tool::compare).steps == std::vector<std::string>{"01", "07"});
        check_rejected({"--steps", ","}, {"--steps", "comma-separated"}, Tool::compare);
    }
    SECTION("--sweep chooses its own sizes and inputs") {
        CHECK(parse({"--sweep"}, Tool::compare).sweep);
        CHECK(parse({"--sweep", "--type", "all", "--csv"}, Tool::compare).sweep);
        check_rejected({"--sweep", "--n", "2^20"}, {"--sweep", "--n"}, Tool::compare);
        check_rejected({"--n", "2^20", "--sweep"}, {"--sweep", "--n"}, Tool::compare);
        check_rejected({"--sweep", "--input", "values.bin"}, {"--sweep", "--input"}, Tool::compare);
    }
}

TEST_CASE("--gpus and --from-one-gpu belong to the multi-GPU step, in the same table", "[options]") {
    SECTION("a step and the comparison reject them as unknown") {
        check_rejected({"--gpus", "2"}, {"unknown option '--gpus'"});
        check_rejected({"--from-one-gpu"}, {"unknown option '--from-one-gpu'"}, Tool::compare);
    }
    SECTION("the multi-GPU step parses them with the course's flags") {
        const Options o = parse({"--gpus", "4", "--from-one-gpu", "--type", "float32", "--n", "2^20"}, Tool::multi_gpu);
        CHECK(o.gpus == 4);
        CHECK(o.from_one_gpu);
        CHECK(o.type == ElementType::float32);
        CHECK(o.input.n == std::size_t{1} << 20);
        CHECK(parse({}, Tool::multi_gpu).gpus == 0);  // not given: every GPU, or one per MPI rank
    }
    SECTION("a GPU count that is no count is rejected with what is accepted") {
        for (const char* bad : {"0", "abc", "-1", "2.5", ""})
            check_rejected({"--gpus", bad}, {"--gpus", "a number of GPUs from 1"}, Tool::multi_gpu);
        check_rejected({"--gpus"}, {"--gpus needs a value"}, Tool::multi_gpu);
        check_rejected({"--gpus", "2", "--bogus"}, {"unknown option '--bogus'"}, Tool::multi_gpu);
    }
    SECTION("its --help is the table's, with the multi-GPU flags and mpirun") {
        const std::string text = usage("step15_multi_gpu", Tool::multi_gpu);
        CHECK(contains(text, "--gpus K"));
        CHECK(contains(text, "--from-one-gpu"));
        CHECK(contains(text, "mpirun -np K"));
        CHECK(contains(text, "--block THREADS"));
        CHECK_FALSE(contains(usage("step01_interleaved"), "--gpus"));
    }
}

TEST_CASE("every flag in usage() is accepted, and every accepted flag is in usage()", "[options]") {
    const std::string step_text = usage("step01_interleaved");
    const std::string compare_text = usage("compare", Tool::compare);
    CHECK(contains(step_text, "step01_interleaved"));
    CHECK(contains(compare_text, "compare"));
    for (const auto& example : step_flags) {
        INFO("flag " << example.flag);
        CHECK(contains(step_text, example.flag));
        CHECK(contains(compare_text, example.flag));
        CHECK_NOTHROW(parse(with_value(example)));
        CHECK_NOTHROW(parse(with_value(example), Tool::compare));
    }
    for (const auto& example : compare_only_flags) {
        INFO("flag " << example.flag);
        CHECK_FALSE(contains(step_text, example.flag));
        CHECK(contains(compare_text, example.flag));
        CHECK_NOTHROW(parse(with_value(example), Tool::compare));
    }
    CHECK(contains(step_text, accepted_blocks));
    CHECK(contains(step_text, accepted_patterns));
    CHECK(contains(compare_text, ", all"));
    CHECK_FALSE(contains(step_text, ", all"));
}

TEST_CASE("usage() shows each default as Options holds it, and what --type all runs", "[options]") {
    const std::string text = usage("compare", Tool::compare);
    INFO(text);
    const Options defaults;
    const std::vector<std::string> shown = {
        "--n COUNT        elements to reduce (default 2^24)",
        "(default " + std::to_string(defaults.measure.block) + ")",
        "(default " + std::to_string(defaults.measure.iters) + ")",
        "(default " + std::to_string(defaults.measure.warmup) + ")",
        std::string("(default ") + type_name(defaults.type) + ")",
        std::string("(default ") + pattern_name(defaults.input.pattern) + ")",
        std::string("(default ") + op_name(defaults.op) + ")",
    };
    for (const std::string& line : shown) CHECK(contains(text, line));
    CHECK(defaults.input.n == (std::size_t{1} << 24));
    // --type all measures int32 and float32, never float64: the help must not suggest otherwise
    CHECK(contains(text, "all runs int32 and float32 (not float64)"));
    CHECK_FALSE(contains(usage("step01_interleaved"), "all runs"));
}

TEST_CASE("a full command line sets every field", "[options]") {
    const Options o = parse({"--n", "1G", "--type", "float64", "--block", "1024", "--iters", "7", "--warmup", "0",
                             "--seed", "123", "--pattern", "alternating", "--device", "2", "--json", "--flush-l2"});
    CHECK(o.input.n == (std::size_t{1} << 30));
    CHECK(o.type == ElementType::float64);
    CHECK(o.measure.block == 1024);
    CHECK(o.measure.iters == 7);
    CHECK(o.measure.warmup == 0);
    CHECK(o.input.seed == std::uint64_t{123});
    CHECK(o.input.pattern == Pattern::alternating);
    CHECK(o.device == 2);
    CHECK(o.format == OutputFormat::json);
    CHECK(o.measure.flush_l2);
    CHECK_FALSE(o.help);
}

TEST_CASE("--op names the operator; anything else is rejected", "[options]") {
    CHECK(parse({}).op == OpKind::sum);
    CHECK(parse({"--op", "sum"}).op == OpKind::sum);
    CHECK(parse({"--op", "max"}).op == OpKind::max);
    CHECK(parse({"--op", "min"}, Tool::compare).op == OpKind::min);
    check_rejected({"--op", "prod"}, {"--op", "prod", "sum, max, min"});
    check_rejected({"--op", "MAX"}, {"--op", "MAX", "sum, max, min"});
    check_rejected({"--op"}, {"--op", "needs a value"});
}
