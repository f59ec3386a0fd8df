// One load's wait while the GPU streams (bench/README.md). Exit: 1 a row not under load, 2 bad option, 3 no GPU, 4 CUDA.
#include "lab.h"
#include "device_buffer.h"
#include "device_info.h"
#include "launch_math.h"
#include "options.h"
#include "report.h"
#include <cstdio>

namespace {
using lab::Word;
constexpr int block_threads = 256;                               // the course's headline block size
constexpr std::size_t chase_stride = 128;                        // one L2 line per node: no hop rides on another's line
constexpr std::size_t chase_footprint = std::size_t{256} << 20;  // 256 MiB: five times the H100's L2
constexpr std::uint64_t hops_per_poll = 64;                      // chain hops between two looks at the streamers
constexpr std::uint64_t max_hops = std::uint64_t{1} << 16;       // the probe's bound, and all it does when alone
// the CSV header, in --help too
constexpr const char* csv_columns = "loads,blocks_per_sm,streaming_threads,bytes_in_flight,gbps,latency_ns,hops,status";

struct Window {  // what one launch leaves behind, read by the host
    unsigned long long bytes;             // bytes the streamers read
    unsigned long long hops;              // hops the probe timed
    unsigned long long start_ns, end_ns;  // the probe's timer at the first and the last timed hop
    unsigned int started, finished;       // streaming blocks that have begun, that are done
    unsigned int loaded;                  // 1: every streaming block had started when the probe's timing began
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

// Thread 0 of block 0: once every streamer runs, follows the chain until one finishes (or max_hops);
// `finished` is loaded before a run of hops and tested after it, never in the chain's path.
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
    if (blockIdx.x != 0) stream<Loads>(in, n, passes, w, sink);
    else if (threadIdx.x == 0) probe(cursor, gridDim.x - 1, w);  // the probe block's other threads do nothing
}

using Kernel = void (*)(const unsigned int*, std::size_t, unsigned int, Word*, Window*, unsigned int*);
constexpr Kernel kernels[] = {loaded_latency_kernel<1>, loaded_latency_kernel<2>, loaded_latency_kernel<4>,
                              loaded_latency_kernel<8>, loaded_latency_kernel<16>};  // by log2(loads); the probe alone runs <16>

int run(int argc, char** argv) {
    unsigned int passes = 8;                          // times each streamer walks the stream buffer
    std::size_t stream_bytes = std::size_t{1} << 30;  // 1 GiB: far past any L2
    lab::parse_flags(argc, argv,
                     "[--passes N] [--stream-bytes BYTES]\n"
                     "  --passes N            times each streaming configuration reads the stream buffer (1-64, default 8)\n"
                     "  --stream-bytes BYTES  the stream buffer, a multiple of 4 from 64M (default 1G)\n" +
                         lab::sizes_and_csv_help("1073741824, 2^30 or 1G", csv_columns),
                     "--passes, --stream-bytes", [&](const std::string& flag, const std::string& value) {
        const std::size_t count = flag == "--passes" && value == "0" ? 0 : reduction::parse_count(flag, value);
        if (flag == "--passes" && (count < 1 || count > 64))
            throw reduction::UsageError("--passes: '" + value + "' is not accepted; 1 to 64");
        if (flag == "--stream-bytes" && (count < (std::size_t{64} << 20) || count % sizeof(int) != 0))
            throw reduction::UsageError("--stream-bytes: '" + value + "' is not accepted; a multiple of 4 of at least 64M");
        if (flag == "--passes") passes = static_cast<unsigned int>(count);
        else stream_bytes = count;
    });
    const reduction::DeviceInfo device = reduction::open_device(0);
    reduction::require_device_memory(stream_bytes + chase_footprint + (std::size_t{1} << 20), "the stream and chase buffers");
    int resident = 0;  // blocks per SM of the kernel that uses the most (16 loads)
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, loaded_latency_kernel<16>, block_threads, 0));
    if (resident < 1) throw reduction::EnvironmentError("the kernel does not fit on one SM of this GPU");
    const std::size_t n = stream_bytes / sizeof(unsigned int);
    reduction::DeviceBuffer<unsigned int> stream_buffer(n);
    reduction::DeviceBuffer<Word> chase(chase_footprint / sizeof(Word));
    reduction::DeviceBuffer<Word> cursor(1);
    reduction::DeviceBuffer<Window> window(1);
    reduction::DeviceBuffer<unsigned int> sink(1);
    CUDA_CHECK(cudaMemset(stream_buffer.get(), 0, stream_bytes));
    std::mt19937_64 rng(20070101);  // fixed: the same chain on every run
    lab::upload_chain(chase.get(), cursor.get(), chase_footprint, chase_stride, rng);
    std::vector<std::pair<unsigned int, int>> rows = {{0, 0}};  // (loads, blocks per SM); first the probe alone, on an idle GPU
    for (unsigned int loads : {1u, 2u, 4u, 8u, 16u})
        for (int b = 1; b <= resident; b = b == resident ? 2 * b : std::min(2 * b, resident))  // 1, 2, 4 ... and the full GPU
            rows.push_back({loads, b});
    reduction::Stamp stamp = reduction::device_stamp(device, argc, argv);
    stamp.insert(stamp.end(), {{"block", std::to_string(block_threads)}, {"resident_blocks_per_sm", std::to_string(resident)},
                               {"stream_bytes", std::to_string(stream_bytes) + " read " + std::to_string(passes) + " times"},
                               {"chase", std::to_string(chase_footprint >> 20) + " MiB, one node per " +
                                             std::to_string(chase_stride) + " bytes, random order, one thread"},
                               {"bytes_in_flight", "streaming threads x loads x 4 bytes: the most the streamers can have "
                                                   "outstanding"}});
    std::cout << reduction::stamp_lines(stamp) << csv_columns << "\n" << std::flush;
    bool all_loaded = true;
    rows.insert(rows.begin(), rows.back());  // first untimed, the last configuration: clocks up, translations cached
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const unsigned int loads = rows[r].first;
        const int blocks_per_sm = rows[r].second;
        const unsigned int grid = loads == 0 ? 1u : static_cast<unsigned int>(blocks_per_sm * device.sm_count);
        CUDA_CHECK(cudaMemset(window.get(), 0, sizeof(Window)));
        const float ms = lab::time_ms([&] {
            kernels[loads == 0 ? 4 : reduction::log2_exact(loads)]<<<grid, block_threads>>>(
                stream_buffer.get(), n, loads == 0 ? 0u : passes, cursor.get(), window.get(), sink.get());
        });
        if (r == 0) continue;
        Window w{};
        CUDA_CHECK(cudaMemcpy(&w, window.get(), sizeof w, cudaMemcpyDeviceToHost));
        const unsigned long long streaming_threads = static_cast<unsigned long long>(grid - 1) * block_threads;
        const std::string status = loads != 0 && !w.loaded ? "streamers not all resident"
                                   : w.hops == 0 || w.end_ns <= w.start_ns ? "no hops timed" : "ok";
        all_loaded = all_loaded && status == "ok";
        const double latency = w.hops ? static_cast<double>(w.end_ns - w.start_ns) / static_cast<double>(w.hops) : 0.0;
        const double gbps = loads == 0 ? 0.0 : static_cast<double>(w.bytes) / (ms * 1e6);
        std::printf("%u,%d,%llu,%llu,%.1f,%.1f,%llu,%s\n", loads, blocks_per_sm, streaming_threads,
                    streaming_threads * loads * sizeof(int), gbps, latency, w.hops, status.c_str());
        std::fflush(stdout);
    }
    return all_loaded ? reduction::exit_ok : reduction::exit_wrong_result;
}
}  // namespace

int main(int argc, char** argv) { return reduction::run_guarded([&] { return run(argc, argv); }); }
