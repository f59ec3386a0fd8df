// How long one load waits, from L1 out to DRAM: a pointer chase.
//
// One thread follows a chain of pointers: each load's address is the value the previous load
// returned, so no two loads overlap and the time per hop is the latency of one load. The chain
// visits the nodes of a buffer (one node per `--stride` bytes, 128 by default: one L2 line per
// node, so no hop is helped by the line the previous hop brought in) in a random cyclic order, so
// no prefetcher can guess the next address. The buffer's size (the footprint) decides where the
// nodes live: in L1, in L2, or only in DRAM.
//
// Step 07's lesson uses the DRAM figure in Little's law: bytes in flight = bandwidth x latency.
// Large footprints also pay for address-translation misses, which a streaming kernel does not;
// the footprints just past the L2 size are the ones closest to what a streaming load waits.
//
// usage: dram_latency [--hops N] [--stride BYTES] [--max-footprint BYTES] > results/h100/dram_latency.csv
// Prints '# key: value' stamp lines, then footprint_bytes,hops,latency_ns,level.
// Exit: 0 measured, 2 bad option, 3 no usable GPU or too little memory.
#include "cuda_check.h"
#include "device_buffer.h"
#include "device_info.h"
#include "exit_codes.h"
#include "options.h"
#include "report.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using Word = std::uint64_t;  // a node's first word holds the device address of the next node

struct Settings {
    std::uint64_t hops = std::uint64_t{1} << 20;       // timed hops per footprint
    std::size_t stride = 128;                          // bytes from one node to the next
    std::size_t min_footprint = std::size_t{16} << 10; // 16 KiB: well inside any L1
    std::size_t max_footprint = std::size_t{1} << 30;  // 1 GiB: far past any L2
};

// Follows `hops` pointers from *cursor and leaves the last one in *cursor, so that the next launch
// goes on where this one stopped (the warm-up leaves the timed run on nodes it has not touched).
__global__ void pointer_chase_kernel(Word* cursor, std::uint64_t hops) {
    const Word* p = reinterpret_cast<const Word*>(*cursor);
#pragma unroll 8  // keeps the loop's own instructions out of the way of the loads
    for (std::uint64_t h = 0; h < hops; ++h) p = reinterpret_cast<const Word*>(*p);
    *cursor = reinterpret_cast<Word>(p);  // the result is used: the chain cannot be optimised away
}

bool is_power_of_two(std::size_t x) { return x != 0 && (x & (x - 1)) == 0; }

Settings parse_settings(int argc, char** argv) {
    Settings s;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--help" || flag == "-h") {
            std::cout << "usage: " << argv[0] << " [--hops N] [--stride BYTES] [--max-footprint BYTES]\n"
                      << "  --hops N               timed dependent loads per footprint (default 2^20)\n"
                      << "  --stride BYTES         bytes between nodes, a power of two >= 128 (default 128)\n"
                      << "  --max-footprint BYTES  largest buffer, a power of two from 16K (default 1G)\n"
                      << "Sizes accept 1048576, 2^20 or 1M. Prints CSV: footprint_bytes,hops,latency_ns,level\n";
            std::exit(reduction::exit_ok);
        }
        if (i + 1 >= argc) throw reduction::UsageError(flag + " needs a value; see --help");
        const std::string value = argv[++i];
        if (flag == "--hops") {
            s.hops = reduction::parse_count(flag, value);
            if (s.hops == 0) throw reduction::UsageError("--hops: must be at least 1");
        } else if (flag == "--stride") {
            s.stride = reduction::parse_count(flag, value);
            if (s.stride < 128 || !is_power_of_two(s.stride))
                throw reduction::UsageError("--stride: '" + value + "' is not accepted; a power of two of at least 128 bytes");
        } else if (flag == "--max-footprint") {
            s.max_footprint = reduction::parse_count(flag, value);
            if (s.max_footprint < s.min_footprint || !is_power_of_two(s.max_footprint))
                throw reduction::UsageError("--max-footprint: '" + value + "' is not accepted; a power of two of at least 16K");
        } else {
            throw reduction::UsageError("unknown option '" + flag + "'; accepted: --hops, --stride, --max-footprint, --help");
        }
    }
    if (s.stride > s.min_footprint) throw reduction::UsageError("--stride: at most 16K, the smallest footprint");
    return s;
}

// Where a footprint's nodes live. L1: at most the SM's shared-memory capacity, a lower bound of
// its unified L1 (the kernel asks for the smallest shared carveout, leaving the rest to L1).
const char* level_of(std::size_t footprint, std::size_t l1_bytes, std::size_t l2_bytes) {
    if (footprint <= l1_bytes) return "L1";
    if (footprint <= l2_bytes) return "L2";
    return "DRAM";
}

// Writes into host[0 .. footprint) one cycle through all its nodes in random order, as device
// addresses of `device_base`; returns the address of the first node.
Word build_chain(std::vector<Word>& host, std::size_t footprint, std::size_t stride, Word device_base, std::mt19937_64& rng) {
    const std::size_t nodes = footprint / stride;
    const std::size_t words_per_node = stride / sizeof(Word);
    std::vector<std::size_t> order(nodes);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::shuffle(order.begin() + 1, order.end(), rng);  // node 0 starts the cycle
    for (std::size_t k = 0; k < nodes; ++k) {
        const std::size_t from = order[k], to = order[(k + 1) % nodes];
        host[from * words_per_node] = device_base + to * stride;
    }
    return device_base;
}

int run(int argc, char** argv) {
    const Settings s = parse_settings(argc, argv);
    const reduction::DeviceInfo device = reduction::open_device(0);
    int l1_bytes = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&l1_bytes, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device.index));
    reduction::require_device_memory(s.max_footprint, "the pointer chase over " + std::to_string(s.max_footprint >> 20) + " MiB");
    CUDA_CHECK(cudaFuncSetAttribute(pointer_chase_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 0));

    reduction::DeviceBuffer<Word> buffer(s.max_footprint / sizeof(Word));
    reduction::DeviceBuffer<Word> cursor(1);
    std::vector<Word> host(s.max_footprint / sizeof(Word), 0);
    std::mt19937_64 rng(20070101);  // fixed: the same chains on every run
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));

    reduction::Stamp stamp = reduction::device_stamp(device, argc, argv);
    stamp.push_back({"l1_level_up_to_bytes", std::to_string(l1_bytes)});
    stamp.push_back({"stride_bytes", std::to_string(s.stride)});
    std::cout << reduction::stamp_lines(stamp) << "footprint_bytes,hops,latency_ns,level\n" << std::flush;

    const Word base = reinterpret_cast<Word>(buffer.get());
    for (std::size_t footprint = s.min_footprint; footprint <= s.max_footprint; footprint *= 2) {
        const Word first = build_chain(host, footprint, s.stride, base, rng);
        CUDA_CHECK(cudaMemcpy(buffer.get(), host.data(), footprint, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(cursor.get(), &first, sizeof first, cudaMemcpyHostToDevice));

        // Warm-up: every node once where the whole cycle fits in the caches, so that the timed
        // hops find it there; at least 2^20 hops otherwise (clocks up, translations cached).
        const std::uint64_t nodes = footprint / s.stride;
        const std::uint64_t warmup = std::min<std::uint64_t>(nodes, std::max<std::uint64_t>(s.hops, 1u << 20));
        pointer_chase_kernel<<<1, 1>>>(cursor.get(), warmup);
        CUDA_CHECK_LAUNCH();

        CUDA_CHECK(cudaEventRecord(start));
        pointer_chase_kernel<<<1, 1>>>(cursor.get(), s.hops);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));

        char line[128];
        std::snprintf(line, sizeof line, "%zu,%llu,%.2f,%s\n", footprint, static_cast<unsigned long long>(s.hops),
                      ms * 1e6 / static_cast<double>(s.hops), level_of(footprint, l1_bytes, device.l2_bytes));
        std::cout << line << std::flush;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return reduction::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return reduction::run_guarded([&] { return run(argc, argv); }); }
