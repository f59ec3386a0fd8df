#include "options.h"

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace reduction {
namespace {

const char* count_forms = "a positive integer (16777216), a power of two (2^24) or a binary suffix "
                          "K, M, G, T (16M = 16*2^20)";

// Parses an unsigned decimal integer that must fill the whole text.
std::optional<unsigned long long> parse_unsigned(const std::string& text) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    errno = 0;
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (errno == ERANGE || *end != '\0') return std::nullopt;
    return value;
}

int parse_int_in(const std::string& flag, const std::string& text, long long low, long long high,
                 const std::string& accepted) {
    const auto value = parse_unsigned(text);
    if (!value || static_cast<long long>(*value) < low || static_cast<long long>(*value) > high ||
        *value > static_cast<unsigned long long>(std::numeric_limits<int>::max()))
        throw UsageError(flag + ": '" + text + "' is not accepted; expected " + accepted);
    return static_cast<int>(*value);
}

std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> parts;
    std::stringstream stream(text);
    std::string part;
    while (std::getline(stream, part, ','))
        if (!part.empty()) parts.push_back(part);
    return parts;
}

}  // namespace

std::size_t parse_count(const std::string& flag, const std::string& text) {
    const auto reject = [&](const std::string& why) -> std::size_t {
        throw UsageError(flag + ": '" + text + "' " + why + "; accepted: " + count_forms);
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
        std::size_t multiplier = 1;
        std::string digits = text;
        switch (text.back()) {
            case 'K': multiplier = std::size_t{1} << 10; break;
            case 'M': multiplier = std::size_t{1} << 20; break;
            case 'G': multiplier = std::size_t{1} << 30; break;
            case 'T': multiplier = std::size_t{1} << 40; break;
            default: break;
        }
        if (multiplier != 1) digits.pop_back();
        const auto base = parse_unsigned(digits);
        if (!base) return reject("is not a count");
        if (*base > std::numeric_limits<std::size_t>::max() / multiplier) return reject("is too large");
        value = *base * multiplier;
    }
    if (value == 0) return reject("is zero, and a reduction needs at least one element");
    return value;
}

std::optional<OpKind> parse_op(const std::string& text) {
    if (text == Sum::name) return OpKind::sum;
    if (text == Max::name) return OpKind::max;
    if (text == Min::name) return OpKind::min;
    return std::nullopt;
}

Options parse_options(int argc, const char* const* argv, Tool tool) {
    Options options;
    bool n_given = false, pattern_given = false;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError(flag + " needs a value; see --help");
            return argv[++i];
        };
        if (flag == "--help" || flag == "-h") {
            options.help = true;
        } else if (flag == "--n") {
            options.n = parse_count(flag, value());
            n_given = true;
        } else if (flag == "--type") {
            const std::string text = value();
            options.type_given = true;
            if (tool == Tool::compare && text == "all") {
                options.both_types = true;
            } else if (const auto type = parse_type(text)) {
                options.type = *type;
            } else {
                throw UsageError("--type: '" + text + "' is not supported; accepted: " +
                                 accepted_types + (tool == Tool::compare ? ", all" : ""));
            }
        } else if (flag == "--block") {
            const std::string text = value();
            const auto block = parse_unsigned(text);
            if (!block || !is_valid_block(static_cast<long long>(*block)))
                throw UsageError("--block: '" + text + "' is not accepted; threads per block must be a power of two: " +
                                 accepted_blocks);
            options.block = static_cast<int>(*block);
        } else if (flag == "--iters") {
            options.iters = parse_int_in(flag, value(), 1, 1000000, "an integer from 1 to 1000000");
        } else if (flag == "--warmup") {
            options.warmup = parse_int_in(flag, value(), 0, 1000000, "an integer from 0 to 1000000");
        } else if (flag == "--seed") {
            const std::string text = value();
            const auto seed = parse_unsigned(text);
            if (!seed) throw UsageError("--seed: '" + text + "' is not accepted; expected an integer from 0 to 2^64-1");
            options.seed = *seed;
        } else if (flag == "--pattern") {
            const std::string text = value();
            const auto pattern = parse_pattern(text);
            if (!pattern)
                throw UsageError("--pattern: '" + text + "' is not known; accepted: " + accepted_patterns);
            options.pattern = *pattern;
            pattern_given = true;
        } else if (flag == "--input") {
            options.input_path = value();
            if (options.input_path.empty()) throw UsageError("--input needs a file name");
        } else if (flag == "--device") {
            options.device = parse_int_in(flag, value(), 0, 1023, "a device index from 0 (see nvidia-smi)");
        } else if (flag == "--csv") {
            options.format = OutputFormat::csv;
        } else if (flag == "--json") {
            options.format = OutputFormat::json;
        } else if (flag == "--op") {
            const std::string text = value();
            const auto op = parse_op(text);
            if (!op) throw UsageError("--op: '" + text + "' is not known; accepted: " + accepted_ops);
            options.op = *op;
        } else if (flag == "--flush-l2") {
            options.flush_l2 = true;
        } else if (tool == Tool::compare && flag == "--steps") {
            options.steps = split_commas(value());
            if (options.steps.empty()) throw UsageError("--steps needs a comma-separated list, e.g. 01,07,cub");
        } else if (tool == Tool::compare && flag == "--sweep") {
            options.sweep = true;
        } else {
            throw UsageError("unknown option '" + flag + "'; see --help for the accepted options");
        }
    }
    if (n_given && !options.input_path.empty())
        throw UsageError("--n and --input cannot be combined: the file's size gives n");
    if (!options.input_path.empty() && (pattern_given || options.seed))
        throw UsageError("--pattern and --seed describe generated input; they cannot be combined with --input");
    if (options.sweep && n_given) throw UsageError("--sweep measures its own sizes; drop --n");
    if (options.sweep && !options.input_path.empty()) throw UsageError("--sweep generates its inputs; drop --input");
    return options;
}

std::string usage(const char* program, Tool tool) {
    std::ostringstream out;
    out << "usage: " << program << " [options]\n\n"
        << "  --n COUNT        elements to sum (default 2^24); 16777216, 2^24 or 16M (K, M, G, T are powers of 2^10)\n"
        << "  --type TYPE      " << accepted_types << (tool == Tool::compare ? ", all" : "") << " (default int32)\n"
        << "  --block THREADS  threads per block: " << accepted_blocks << " (default 256)\n"
        << "  --iters N        timed repetitions, median and min reported (default 100)\n"
        << "  --warmup N       untimed repetitions first (default 5)\n"
        << "  --seed S         seed of the generated input (default: a fresh one, printed)\n"
        << "  --pattern P      " << accepted_patterns << " (default random: signed values)\n"
        << "  --input FILE     raw little-endian values of --type instead of generated ones\n"
        << "  --op OP          " << accepted_ops << ": the operator (default sum; max and min from step11 on)\n"
        << "  --device I       CUDA device index (default 0)\n"
        << "  --flush-l2       write a buffer twice the L2's size before every timed repetition (cold L2)\n"
        << "  --csv | --json   machine-readable output instead of the text block\n";
    if (tool == Tool::compare)
        out << "  --steps LIST     comma-separated subset, e.g. 01,05,07,cub (default: every step and cub)\n"
            << "  --sweep          every size 2^10 .. 2^30 that fits, CSV on stdout, progress on stderr\n";
    out << "  --help           this text\n\n"
        << "exit codes: 0 verified, 1 wrong result, 2 bad command line or input file,\n"
        << "            3 no usable GPU or not enough device memory, 4 a CUDA error while running\n";
    return out.str();
}

}  // namespace reduction
