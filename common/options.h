// The command line of every step and the comparison: one table of flags, one parser; UsageError names what is accepted.
#pragma once
#include "settings.h"
#include <string>
#include <vector>

namespace reduction {
enum class OutputFormat { text, csv, json };
// The comparison accepts a few more flags (--steps, --sweep), a multi-GPU step its own (--gpus, --from-one-gpu).
enum class Tool { step, compare, multi_gpu };

struct Options {
    ElementType type = ElementType::int32;
    bool type_given = false;  // --type on the command line (the sweep measures two types otherwise)
    OpKind op = OpKind::sum;  // --op: the reduction's operator (max and min from step11 on)
    InputSpec input;          // --n, --pattern, --seed, --input
    MeasureSettings measure;  // --block, --warmup, --iters, --flush-l2
    int device = 0;
    OutputFormat format = OutputFormat::text;
    bool help = false;
    std::vector<std::string> steps;  // compare only (to the end); empty: all
    bool sweep = false;
    bool both_types = false;    // --type all
    int gpus = 0;               // multi-GPU only: --gpus K; 0: not given (every visible GPU, or one per MPI rank)
    bool from_one_gpu = false;  // multi-GPU only: the input starts on GPU 0, sending it out is timed
};

Options parse_options(int argc, const char* const* argv, Tool tool = Tool::step);
std::string usage(const char* program, Tool tool = Tool::step);
// "16777216", "2^24", "16M" (binary suffixes K, M, G, T: 16M = 16 * 2^20). Throws UsageError.
std::size_t parse_count(const std::string& flag, const std::string& text);
inline bool is_valid_block(long long block) { return block >= 32 && block <= 1024 && (block & (block - 1)) == 0; }
inline constexpr const char* accepted_blocks = "32, 64, 128, 256, 512 or 1024";
inline constexpr const char* accepted_ops = "sum, max, min";
}  // namespace reduction
