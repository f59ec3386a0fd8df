// How long one load waits while the rest of the GPU streams: a pointer chase under load.
//
// dram_latency measures an idle GPU: one load at a time, nothing else in the memory system. A
// streaming kernel's loads wait longer, in the queues that its own other loads fill. Little's law
// (bytes in flight = bandwidth x latency) needs that loaded latency, so this program measures it.
//
// One launch per configuration. Block 0 is the probe: its thread 0 follows a random chain of
// pointers through a buffer larger than the L2 (each address is the value the previous load
// returned, so the time per hop is the latency of one load). Every other block streams: a
// grid-stride loop over a second buffer, `loads` independent 4-byte loads per thread per iteration,
// exactly the loop of step 07 with loads_per_iteration = loads. The probe times its hops
// only while every streaming block has started and none has finished; the stream's bandwidth is
// its bytes over the launch's time. The configurations sweep the loads per iteration and the
// resident blocks per SM, so the bytes the streamers may keep in flight run from a fraction of a
// megabyte to many; a row with loads = 0 is the probe alone (the idle latency, as dram_latency).
//
// bytes_in_flight is the most the streamers can have outstanding: streaming threads x loads x 4
// bytes. A thread that is adding or looping has fewer, so the bytes really in flight are fewer.
//
// usage: loaded_latency [--passes N] [--stream-bytes BYTES] > results/h100/loaded_latency.csv
// Prints '# key: value' stamp lines, then
//   loads,blocks_per_sm,streaming_threads,bytes_in_flight,gbps,latency_ns,hops,status
// Exit: 0 measured, 1 a configuration could not be measured under load (its status says why),
// 2 bad option, 3 no usable GPU or too little memory, 4 a CUDA error.
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
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using Word = std::uint64_t;            // a chain node's first word holds the device address of the next node
constexpr int block_threads = 256;     // the course's headline block size
constexpr std::size_t chase_stride = 128;                      // one L2 line per node: no hop rides on another's line
constexpr std::size_t chase_footprint = std::size_t{256} << 20;  // 256 MiB: five times the H100's L2
constexpr std::uint64_t hops_per_poll = 64;                    // chain hops between two looks at the streamers
constexpr std::uint64_t max_hops = std::uint64_t{1} << 16;     // the probe's bound, and all it does when alone

// What one launch leaves behind, read by the host.
struct Window {
    unsigned long long bytes;     // bytes the streamers read
    unsigned long long hops;      // hops the probe timed
    unsigned long long start_ns;  // the probe's timer at the first and the last timed hop
    unsigned long long end_ns;
    unsigned int started;         // streaming blocks that have begun
    unsigned int finished;        // streaming blocks that are done
    unsigned int loaded;          // 1: every streaming block had started when the probe's timing began
};

struct Settings {
    unsigned int passes = 8;                               // times each streamer walks the stream buffer
    std::size_t stream_bytes = std::size_t{1} << 30;       // 1 GiB: far past any L2
};

// The GPU's nanosecond clock, the same on every SM (PTX %globaltimer).
__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

template <unsigned int Loads>
__device__ void stream(const unsigned int* in, std::size_t n, unsigned int passes, Window* w, unsigned int* sink) {
    if (threadIdx.x == 0) atomicAdd(&w->started, 1u);
    const std::size_t tile = static_cast<std::size_t>(Loads) * blockDim.x;
    const std::size_t grid_stride = static_cast<std::size_t>(gridDim.x - 1) * tile;  // block 0 is the probe
    unsigned int sum = 0;  // unsigned: wrapping is defined
    unsigned long long loads = 0;
    for (unsigned int pass = 0; pass < passes; ++pass) {
        for (std::size_t i = static_cast<std::size_t>(blockIdx.x - 1) * tile + threadIdx.x; i + (Loads - 1) * blockDim.x < n;
             i += grid_stride) {
#pragma unroll
            for (unsigned int k = 0; k < Loads; ++k) sum += in[i + k * blockDim.x];  // independent loads, as in step 07
            loads += Loads;
        }
    }
    if (sum == 0x7fffffffu) *sink = sum;  // the sum is used: the loads cannot be optimised away
    atomicAdd(&w->bytes, loads * sizeof(unsigned int));
    __syncthreads();  // the block is done when its last thread is
    if (threadIdx.x == 0) atomicAdd(&w->finished, 1u);
}

// Thread 0 of block 0: waits until every streaming block runs, then follows the chain until one of
// them finishes (or max_hops). The look at `finished` is loaded before a run of hops and tested
// after it, so it never sits in the chain's path.
__device__ void probe(Word* cursor, unsigned int streaming_blocks, Window* w) {
    const volatile unsigned int* started = &w->started;
    const volatile unsigned int* finished = &w->finished;
    Word p = *cursor;
    while (*started < streaming_blocks && *finished == 0) {
    }
    w->loaded = *started == streaming_blocks && *finished == 0;
    const unsigned long long start = global_ns();
    std::uint64_t hops = 0;
    while (hops < max_hops) {
        const unsigned int done = *finished;
        for (std::uint64_t h = 0; h < hops_per_poll; ++h) p = __ldcg(reinterpret_cast<const Word*>(p));  // L2 and below
        hops += hops_per_poll;
        if (done != 0) break;
    }
    if (p == 0) hops = 0;  // waits for the last hop's value: the clock is read after it arrived
    w->end_ns = global_ns();
    w->start_ns = start;
    w->hops = hops;
    *cursor = p;  // the chain's end is used, and the next launch goes on from there
}

template <unsigned int Loads>
__global__ void __launch_bounds__(block_threads) loaded_latency_kernel(const unsigned int* in, std::size_t n, unsigned int passes,
                                                                       Word* cursor, Window* w, unsigned int* sink) {
    if (blockIdx.x == 0) {
        if (threadIdx.x == 0) probe(cursor, gridDim.x - 1, w);
        return;  // the probe block's other threads do nothing, and no barrier waits for them
    }
    stream<Loads>(in, n, passes, w, sink);
}

using Kernel = void (*)(const unsigned int*, std::size_t, unsigned int, Word*, Window*, unsigned int*);

Kernel kernel_for(unsigned int loads) {
    switch (loads) {
    case 1: return loaded_latency_kernel<1>;
    case 2: return loaded_latency_kernel<2>;
    case 4: return loaded_latency_kernel<4>;
    case 8: return loaded_latency_kernel<8>;
    default: return loaded_latency_kernel<16>;
    }
}

Settings parse_settings(int argc, char** argv) {
    Settings s;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--help" || flag == "-h") {
            std::cout << "usage: " << argv[0] << " [--passes N] [--stream-bytes BYTES]\n"
                      << "  --passes N            times each streaming configuration reads the stream buffer (1-64, default 8)\n"
                      << "  --stream-bytes BYTES  the stream buffer, a multiple of 4 from 64M (default 1G)\n"
                      << "Sizes accept 1073741824, 2^30 or 1G. Prints CSV:\n"
                      << "  loads,blocks_per_sm,streaming_threads,bytes_in_flight,gbps,latency_ns,hops,status\n";
            std::exit(reduction::exit_ok);
        }
        if (flag != "--passes" && flag != "--stream-bytes")
            throw reduction::UsageError("unknown option '" + flag + "'; accepted: --passes, --stream-bytes, --help");
        if (i + 1 >= argc) throw reduction::UsageError(flag + " needs a value; see --help");
        const std::string value = argv[++i];
        if (flag == "--passes") {
            const std::size_t passes = value == "0" ? 0 : reduction::parse_count(flag, value);
            if (passes < 1 || passes > 64) throw reduction::UsageError("--passes: '" + value + "' is not accepted; 1 to 64");
            s.passes = static_cast<unsigned int>(passes);
        } else {  // --stream-bytes
            s.stream_bytes = reduction::parse_count(flag, value);
            if (s.stream_bytes < (std::size_t{64} << 20) || s.stream_bytes % sizeof(int) != 0)
                throw reduction::UsageError("--stream-bytes: '" + value + "' is not accepted; a multiple of 4 of at least 64M");
        }
    }
    return s;
}

// One cycle through every node of host[0 .. chase_footprint) in random order, as device addresses
// from `device_base`; the cycle starts at node 0.
void build_chain(std::vector<Word>& host, Word device_base) {
    const std::size_t nodes = chase_footprint / chase_stride;
    const std::size_t words_per_node = chase_stride / sizeof(Word);
    std::vector<std::size_t> order(nodes);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::mt19937_64 rng(20070101);  // fixed: the same chain on every run
    std::shuffle(order.begin() + 1, order.end(), rng);
    for (std::size_t k = 0; k < nodes; ++k)
        host[order[k] * words_per_node] = device_base + order[(k + 1) % nodes] * chase_stride;
}

struct Row {
    unsigned int loads;
    int blocks_per_sm;
};

int run(int argc, char** argv) {
    const Settings s = parse_settings(argc, argv);
    const reduction::DeviceInfo device = reduction::open_device(0);
    reduction::require_device_memory(s.stream_bytes + chase_footprint + (std::size_t{1} << 20),
                                     "the stream and chase buffers");

    // The most blocks of 256 threads one SM holds for the kernel that uses the most (16 loads).
    int resident = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, loaded_latency_kernel<16>, block_threads, 0));
    if (resident < 1) throw reduction::EnvironmentError("the kernel does not fit on one SM of this GPU");

    const std::size_t n = s.stream_bytes / sizeof(unsigned int);
    reduction::DeviceBuffer<unsigned int> stream_buffer(n);
    reduction::DeviceBuffer<Word> chase(chase_footprint / sizeof(Word));
    reduction::DeviceBuffer<Word> cursor(1);
    reduction::DeviceBuffer<Window> window(1);
    reduction::DeviceBuffer<unsigned int> sink(1);
    CUDA_CHECK(cudaMemset(stream_buffer.get(), 0, s.stream_bytes));
    {
        std::vector<Word> host(chase_footprint / sizeof(Word), 0);
        build_chain(host, reinterpret_cast<Word>(chase.get()));
        CUDA_CHECK(cudaMemcpy(chase.get(), host.data(), chase_footprint, cudaMemcpyHostToDevice));
        const Word first = reinterpret_cast<Word>(chase.get());
        CUDA_CHECK(cudaMemcpy(cursor.get(), &first, sizeof first, cudaMemcpyHostToDevice));
    }
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));

    std::vector<Row> rows = {{0, 0}};  // the probe alone, on an idle GPU
    std::vector<int> per_sm;
    for (int b = 1; b < resident; b *= 2) per_sm.push_back(b);
    per_sm.push_back(resident);  // always the full GPU, as step 07 runs it
    for (unsigned int loads : {1u, 2u, 4u, 8u, 16u})
        for (int b : per_sm) rows.push_back({loads, b});

    reduction::Stamp stamp = reduction::device_stamp(device, argc, argv);
    stamp.push_back({"block", std::to_string(block_threads)});
    stamp.push_back({"resident_blocks_per_sm", std::to_string(resident)});
    stamp.push_back({"stream_bytes", std::to_string(s.stream_bytes) + " read " + std::to_string(s.passes) + " times"});
    stamp.push_back({"chase", std::to_string(chase_footprint >> 20) + " MiB, one node per " + std::to_string(chase_stride) +
                                  " bytes, random order, one thread"});
    stamp.push_back({"bytes_in_flight", "streaming threads x loads x 4 bytes: the most the streamers can have outstanding"});
    std::cout << reduction::stamp_lines(stamp)
              << "loads,blocks_per_sm,streaming_threads,bytes_in_flight,gbps,latency_ns,hops,status\n" << std::flush;

    bool all_loaded = true;
    for (std::size_t r = 0; r <= rows.size(); ++r) {
        const bool warmup = r == 0;  // the first configuration twice: clocks up, translations cached
        const Row row = rows[warmup ? rows.size() - 1 : r - 1];
        const unsigned int grid = row.loads == 0 ? 1u : static_cast<unsigned int>(row.blocks_per_sm * device.sm_count);
        CUDA_CHECK(cudaMemset(window.get(), 0, sizeof(Window)));
        CUDA_CHECK(cudaEventRecord(start));
        kernel_for(row.loads)<<<grid, block_threads>>>(stream_buffer.get(), n, row.loads == 0 ? 0u : s.passes, cursor.get(),
                                                       window.get(), sink.get());
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        if (warmup) continue;
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        Window w{};
        CUDA_CHECK(cudaMemcpy(&w, window.get(), sizeof w, cudaMemcpyDeviceToHost));

        const unsigned long long streaming_threads = static_cast<unsigned long long>(grid - 1) * block_threads;
        const char* status = "ok";
        if (row.loads != 0 && !w.loaded) status = "streamers not all resident";
        else if (w.hops == 0 || w.end_ns <= w.start_ns) status = "no hops timed";
        if (std::string(status) != "ok") all_loaded = false;
        const double latency = w.hops ? static_cast<double>(w.end_ns - w.start_ns) / static_cast<double>(w.hops) : 0.0;
        const double gbps = row.loads == 0 ? 0.0 : static_cast<double>(w.bytes) / (ms * 1e6);

        char line[256];
        std::snprintf(line, sizeof line, "%u,%d,%llu,%llu,%.1f,%.1f,%llu,%s\n", row.loads, row.blocks_per_sm, streaming_threads,
                      streaming_threads * row.loads * sizeof(int), gbps, latency, w.hops, status);
        std::cout << line << std::flush;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return all_loaded ? reduction::exit_ok : reduction::exit_wrong_result;
}

}  // namespace

int main(int argc, char** argv) { return reduction::run_guarded([&] { return run(argc, argv); }); }
