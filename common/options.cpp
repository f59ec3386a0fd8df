#include "options.h"
#include "exit_codes.h"
#include "input.h"  // size_text, for the default of --n
#include <functional>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <set>
#include <sstream>

namespace reduction {
namespace {
std::optional<unsigned long long> parse_unsigned(const std::string& text) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    errno = 0;
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (errno == ERANGE || *end != '\0') return std::nullopt;
    return value;
}

// An integer from low to high; `accepted` says so in the message ("an integer from low to high" if empty).
int parse_int_in(const std::string& flag, const std::string& text, long long low, long long high,
                 const std::string& accepted = "") {
    const auto value = parse_unsigned(text);
    if (!value || static_cast<long long>(*value) < low || static_cast<long long>(*value) > high ||
        *value > static_cast<unsigned long long>(std::numeric_limits<int>::max()))
        throw UsageError(flag + ": '" + text + "' is not accepted; expected " +
                         (accepted.empty() ? "an integer from " + std::to_string(low) + " to " + std::to_string(high)
                                           : accepted));
    return static_cast<int>(*value);
}

// The value of `values` whose name is `text`, or a UsageError "--flag: 'text' <why>; accepted: <accepted>".
template <class Value, std::size_t N>
Value parse_name(const std::string& flag, const std::string& text, const Value (&values)[N], const char* (*name)(Value),
                 const char* why, const std::string& accepted) {
    for (Value value : values)
        if (text == name(value)) return value;
    throw UsageError(flag + ": '" + text + "' " + why + "; accepted: " + accepted);
}

constexpr ElementType all_types[] = {ElementType::int32, ElementType::float32, ElementType::float64};
constexpr OpKind all_ops[] = {OpKind::sum, OpKind::max, OpKind::min};
// One command-line flag: what usage() prints for it and what the parser does with it.
struct Flag {
    const char* name;         // "--n"
    const char* placeholder;  // the value's name in usage ("COUNT"), or nullptr for a switch
    std::string help;         // what it does and accepts; text after a '\n' is a note on the next line
    std::string shown_default;  // from a default Options, so that each default is written once; "": none
    // Sets the option from the value ("" for a switch); `flag` is the name, for messages.
    std::function<void(Options& o, const std::string& flag, const std::string& value)> apply;
    const char* alias = nullptr;  // another accepted spelling ("-h")
};

std::string types_accepted(Tool tool) { return accepted_types + std::string(tool == Tool::compare ? ", all" : ""); }
// The flags `tool` accepts, in usage() order; actions take (Options& o, const std::string& flag, const std::string& v).
std::vector<Flag> flag_table(Tool tool) {
    using std::to_string;
    const Options d;
    const auto set = [](auto action) { return [action](Options& o, auto&, auto&) { action(o); }; };
    std::vector<Flag> flags = {
        {"--n", "COUNT", "elements to reduce\n16777216, 2^24 or 16M: K, M, G, T are powers of 2^10", size_text(d.input.n),
         [](Options& o, auto& flag, auto& v) { o.input.n = parse_count(flag, v); }},
        {"--type", "TYPE",
         types_accepted(tool) + (tool == Tool::compare ? "\nall runs int32 and float32 (not float64)" : ""),
         type_name(d.type), [tool](Options& o, auto& flag, auto& v) {
             o.type_given = true;
             if (tool == Tool::compare && v == "all") o.both_types = true;
             else o.type = parse_name(flag, v, all_types, &type_name, "is not supported", types_accepted(tool));
         }},
        {"--block", "THREADS", std::string("threads per block: ") + accepted_blocks, to_string(d.measure.block),
         [](Options& o, auto&, auto& v) {
             const auto block = parse_unsigned(v);
             if (!block || !is_valid_block(static_cast<long long>(*block)))
                 throw UsageError("--block: '" + v + "' is not accepted; threads per block must be a power of two: " +
                                  accepted_blocks);
             o.measure.block = static_cast<int>(*block);
         }},
        {"--iters", "N", "timed repetitions, median and min reported", to_string(d.measure.iters),
         [](Options& o, auto& flag, auto& v) { o.measure.iters = parse_int_in(flag, v, 1, 1000000); }},
        {"--warmup", "N", "untimed repetitions first", to_string(d.measure.warmup),
         [](Options& o, auto& flag, auto& v) { o.measure.warmup = parse_int_in(flag, v, 0, 1000000); }},
        {"--seed", "S", "seed of the generated input", "a fresh one, printed",
         [](Options& o, auto&, auto& v) {
             o.input.seed = parse_unsigned(v);
             if (!o.input.seed)
                 throw UsageError("--seed: '" + v + "' is not accepted; expected an integer from 0 to 2^64-1");
         }},
        {"--pattern", "P", std::string(accepted_patterns) + "\nrandom: signed values", pattern_name(d.input.pattern),
         [](Options& o, auto& flag, auto& v) {
             o.input.pattern = parse_name(flag, v, all_patterns, &pattern_name, "is not known", accepted_patterns);
         }},
        {"--input", "FILE", "raw little-endian values of --type instead of generated ones", "",
         [](Options& o, auto&, auto& v) {
             if (v.empty()) throw UsageError("--input needs a file name");
             o.input.path = v;
         }},
        {"--op", "OP", std::string(accepted_ops) + ": the operator\nmax and min from step11 on", op_name(d.op),
         [](Options& o, auto& flag, auto& v) { o.op = parse_name(flag, v, all_ops, &op_name, "is not known", accepted_ops); }},
        {"--device", "I", "CUDA device index", to_string(d.device), [](Options& o, auto& flag, auto& v) {
             o.device = parse_int_in(flag, v, 0, 1023, "a device index from 0 (see nvidia-smi)");
         }},
        {"--flush-l2", nullptr, "write a buffer twice the L2's size before every timed repetition (cold L2)", "",
         set([](Options& o) { o.measure.flush_l2 = true; })},
        {"--csv", nullptr, "CSV instead of the text block", "", set([](Options& o) { o.format = OutputFormat::csv; })},
        {"--json", nullptr, "JSON instead of the text block", "", set([](Options& o) { o.format = OutputFormat::json; })},
    };
    if (tool == Tool::compare) {
        flags.push_back({"--steps", "LIST", "comma-separated subset, e.g. 01,05,07,cub", "every step and cub",
                         [](Options& o, auto&, auto& v) {
                             std::stringstream stream(v);
                             o.steps.clear();
                             for (std::string part; std::getline(stream, part, ',');)
                                 if (!part.empty()) o.steps.push_back(part);
                             if (o.steps.empty())
                                 throw UsageError("--steps needs a comma-separated list, e.g. 01,07,cub");
                         }});
        flags.push_back({"--sweep", nullptr,
                         "every size 2^4 .. 2^32 that fits, CSV on stdout, progress on stderr\n"
                         "in int32 and float32 unless --type names one",
                         "", set([](Options& o) { o.sweep = true; })});
    }
    if (tool == Tool::multi_gpu) {
        flags.push_back({"--gpus", "K",
                         "one process drives GPUs 0 .. K-1; not under mpirun\n"
                         "one process per GPU instead: mpirun -np K [-x NCCL_NVLS_ENABLE] <program> [options]",
                         "every GPU it sees", [](Options& o, auto& flag, auto& v) {
                             o.gpus = parse_int_in(flag, v, 1, 1024, "a number of GPUs from 1 to those present");
                         }});
        flags.push_back({"--from-one-gpu", nullptr, "the input starts on GPU 0; sending the shards out is timed too", "",
                         set([](Options& o) { o.from_one_gpu = true; })});
    }
    flags.push_back({"--help", nullptr, "this text", "", set([](Options& o) { o.help = true; }), "-h"});
    return flags;
}

}  // namespace

std::size_t parse_count(const std::string& flag, const std::string& text) {
    const auto reject = [&](const std::string& why) -> std::size_t {
        throw UsageError(flag + ": '" + text + "' " + why + "; accepted: a positive integer (16777216), a power of two "
                         "(2^24) or a binary suffix K, M, G, T (16M = 16*2^20)");
    };
    if (text.empty()) return reject("is empty");
    std::size_t value = 0;
    if (const auto caret = text.find('^'); caret != std::string::npos) {
        const auto base = parse_unsigned(text.substr(0, caret));
        const auto exponent = parse_unsigned(text.substr(caret + 1));
        if (!base || *base != 2 || !exponent) return reject("is not a count");
        if (*exponent >= 63) return reject("is too large");
        value = std::size_t{1} << *exponent;
    } else {
        const std::size_t suffix = std::string("KMGT").find(text.back());  // powers of 2^10
        const std::size_t multiplier = suffix == std::string::npos ? 1 : std::size_t{1} << (10 * (suffix + 1));
        const auto base = parse_unsigned(multiplier == 1 ? text : text.substr(0, text.size() - 1));
        if (!base) return reject("is not a count");
        if (*base > std::numeric_limits<std::size_t>::max() / multiplier) return reject("is too large");
        value = *base * multiplier;
    }
    return value == 0 ? reject("is zero, and a reduction needs at least one element") : value;
}

Options parse_options(int argc, const char* const* argv, Tool tool) {
    const std::vector<Flag> flags = flag_table(tool);
    Options options;
    std::set<std::string> given;
    for (int i = 1; i < argc; ++i) {
        const std::string word = argv[i];
        const auto flag = std::find_if(flags.begin(), flags.end(), [&](const Flag& f) {
            return word == f.name || (f.alias && word == f.alias);
        });
        if (flag == flags.end()) throw UsageError("unknown option '" + word + "'; see --help for the accepted options");
        if (flag->placeholder && i + 1 >= argc) throw UsageError(word + " needs a value; see --help");
        if (given.count(flag->name))  // a second value would silently replace the first
            throw UsageError(std::string(flag->name) + " is given twice; give each option once");
        flag->apply(options, flag->name, flag->placeholder ? argv[++i] : "");
        given.insert(flag->name);
    }
    const auto has = [&](const char* flag) { return given.count(flag) > 0; };  // the rules between flags
    if (has("--csv") && has("--json")) throw UsageError("--csv and --json cannot be combined: choose one output format");
    if (has("--n") && has("--input")) throw UsageError("--n and --input cannot be combined: the file's size gives n");
    if (has("--input") && (has("--pattern") || has("--seed")))
        throw UsageError("--pattern and --seed describe generated input; they cannot be combined with --input");
    if (options.sweep && has("--n")) throw UsageError("--sweep measures its own sizes; drop --n");
    if (options.sweep && has("--input")) throw UsageError("--sweep generates its inputs; drop --input");
    return options;
}

std::string usage(const char* program, Tool tool) {
    constexpr std::size_t help_column = 17;  // "--block THREADS" and two spaces
    std::string out = std::string("usage: ") + program + " [options]\n\n";
    for (const Flag& flag : flag_table(tool)) {
        std::string left = std::string(flag.name) + (flag.placeholder ? std::string(" ") + flag.placeholder : "");
        left.resize(std::max(help_column, left.size() + 2), ' ');
        const std::size_t line_end = flag.help.find('\n');
        out += "  " + left + flag.help.substr(0, line_end);
        if (!flag.shown_default.empty()) out += " (default " + flag.shown_default + ")";
        out += "\n";
        if (line_end != std::string::npos)  // the note, under the help text
            out += std::string(2 + help_column, ' ') + flag.help.substr(line_end + 1) + "\n";
    }
    return out + "\nexit codes: 0 verified, 1 wrong result, 2 bad command line or input file,\n"
                 "            3 no usable GPU or not enough device memory, 4 a CUDA error while running\n";
}
}  // namespace reduction
