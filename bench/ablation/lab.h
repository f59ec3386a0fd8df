// What the lab programs of bench/ablation and bench/variants share: flags, event timing, launches, chains.
#pragma once

#include "cuda_check.h"
#include "exit_codes.h"
#include "options.h"
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace lab {
// argv as FLAG VALUE pairs: --help prints "usage: PROGRAM " + help and exits 0; a flag not in `accepted`
// ("--a, --b") or without a value is a UsageError; on_flag(flag, value) reads the others.
template <class OnFlag>
void parse_flags(int argc, char** argv, const std::string& help, const std::string& accepted, const OnFlag& on_flag) {
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--help" || flag == "-h") {
            std::cout << "usage: " << argv[0] << " " << help;
            std::exit(reduction::exit_ok);
        }
        if ((", " + accepted + ", ").find(", " + flag + ", ") == std::string::npos)
            throw reduction::UsageError("unknown option '" + flag + "'; accepted: " + accepted + ", --help");
        if (i + 1 >= argc) throw reduction::UsageError(flag + " needs a value; see --help");
        on_flag(flag, std::string(argv[++i]));
    }
}

// The flags of a probe that sums one input of one float type: --n, --calls, --type float32|float64, --seed.
// `defaults` holds n and calls when not given; `what` is the rest of its --help.
struct FloatProbe {
    std::size_t n = 0, calls = 0;
    std::uint64_t seed = 1;
    bool float64 = false;
};
inline FloatProbe parse_float_probe(int argc, char** argv, FloatProbe defaults, const std::string& what) {
    FloatProbe probe = defaults;
    parse_flags(argc, argv, "[--n COUNT] [--calls COUNT] [--type float32|float64] [--seed SEED]\n" + what,
                "--n, --calls, --type, --seed", [&](const std::string& flag, const std::string& value) {
        if (flag == "--type" && value != "float32" && value != "float64")
            throw reduction::UsageError("--type must be float32 or float64, not '" + value + "'");
        if (flag == "--type") probe.float64 = value == "float64";
        else if (flag == "--seed") probe.seed = reduction::parse_count(flag, value);
        else (flag == "--n" ? probe.n : probe.calls) = reduction::parse_count(flag, value);
    });  // parse_count refuses 0
    return probe;
}

// The end of a probe's --help: one size as its size flags accept it ("1048576, 2^20 or 1M") and the
// columns of the CSV it prints, the same text it writes as the CSV's header.
inline std::string sizes_and_csv_help(const std::string& size_spellings, const std::string& columns) {
    return "Sizes accept " + size_spellings + ". Prints CSV:\n  " + columns + "\n";
}

inline cudaEvent_t new_event() {
    cudaEvent_t event = nullptr;
    CUDA_CHECK(cudaEventCreate(&event));
    return event;
}

// The milliseconds between two events on the default stream around what launch() queues there.
template <class Launch>
float time_ms(const Launch& launch) {
    static const cudaEvent_t start = new_event(), stop = new_event();
    CUDA_CHECK(cudaEventRecord(start));
    launch();
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
}

inline cudaLaunchConfig_t launch_config(unsigned int grid, unsigned int block, cudaStream_t stream,
                                        cudaLaunchAttribute& attribute) {  // for cudaLaunchKernelEx; `attribute` outlives it
    return {dim3(grid), dim3(block), 0, stream, &attribute, 1};
}

inline int device_attribute(cudaDeviceAttr attribute) {  // of the current device
    int device = 0, value = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
    return value;
}

using Word = std::uint64_t;  // a chain node's first word holds the device address of the next node

// Uploads to chain[0 .. footprint) a random cycle through its nodes, one per `stride` bytes; *cursor: node 0.
inline void upload_chain(Word* chain, Word* cursor, std::size_t footprint, std::size_t stride, std::mt19937_64& rng) {
    std::vector<Word> host(footprint / sizeof(Word), 0);
    const std::size_t nodes = footprint / stride;
    std::vector<std::size_t> order(nodes);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::shuffle(order.begin() + 1, order.end(), rng);
    const Word first = reinterpret_cast<Word>(chain);
    for (std::size_t k = 0; k < nodes; ++k)
        host[order[k] * (stride / sizeof(Word))] = first + order[(k + 1) % nodes] * stride;
    CUDA_CHECK(cudaMemcpy(chain, host.data(), footprint, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(cursor, &first, sizeof first, cudaMemcpyHostToDevice));
}
}  // namespace lab
