// One load's wait from L1 out to DRAM: one thread's pointer chase (bench/README.md). Exit: 0, 2 bad option, 3 no GPU.
#include "lab.h"
#include "device_buffer.h"
#include "device_info.h"
#include "options.h"
#include "report.h"
#include <cstdio>

namespace {
using lab::Word;
constexpr std::size_t min_footprint = std::size_t{16} << 10;  // 16 KiB: well inside any L1
// the CSV header, in --help too
constexpr const char* csv_columns = "footprint_bytes,hops,latency_ns,level";

// Follows `hops` pointers from *cursor and leaves the last one there: the next launch goes on from it.
__global__ void pointer_chase_kernel(Word* cursor, std::uint64_t hops) {
    const Word* p = reinterpret_cast<const Word*>(*cursor);
#pragma unroll 8  // keeps the loop's own instructions out of the way of the loads
    for (std::uint64_t h = 0; h < hops; ++h) p = reinterpret_cast<const Word*>(*p);
    *cursor = reinterpret_cast<Word>(p);  // the result is used: the chain cannot be optimised away
}

int run(int argc, char** argv) {
    std::uint64_t hops = std::uint64_t{1} << 20;       // timed hops per footprint
    std::size_t stride = 128;                          // bytes from one node to the next
    std::size_t max_footprint = std::size_t{1} << 30;  // 1 GiB: far past any L2
    lab::parse_flags(argc, argv,
                     "[--hops N] [--stride BYTES] [--max-footprint BYTES]\n"
                     "  --hops N               timed dependent loads per footprint (default 2^20)\n"
                     "  --stride BYTES         bytes between nodes, a power of two >= 128 (default 128)\n"
                     "  --max-footprint BYTES  largest buffer, a power of two from 16K (default 1G)\n" +
                         lab::sizes_and_csv_help("1048576, 2^20 or 1M", csv_columns),
                     "--hops, --stride, --max-footprint", [&](const std::string& flag, const std::string& value) {
        const std::size_t count = reduction::parse_count(flag, value);
        if (flag == "--hops" && count == 0) throw reduction::UsageError("--hops: must be at least 1");
        if (flag == "--stride" && (count < 128 || (count & (count - 1)) != 0))
            throw reduction::UsageError("--stride: '" + value + "' is not accepted; a power of two of at least 128 bytes");
        if (flag == "--max-footprint" && (count < min_footprint || (count & (count - 1)) != 0))
            throw reduction::UsageError("--max-footprint: '" + value + "' is not accepted; a power of two of at least 16K");
        (flag == "--hops" ? hops : flag == "--stride" ? stride : max_footprint) = count;
    });
    if (stride > min_footprint) throw reduction::UsageError("--stride: at most 16K, the smallest footprint");
    const reduction::DeviceInfo device = reduction::open_device(0);
    // the SM's shared memory: a lower bound of its unified L1 (the kernel leaves L1 the most)
    const int l1_bytes = lab::device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
    reduction::require_device_memory(max_footprint, "the pointer chase over " + std::to_string(max_footprint >> 20) + " MiB");
    CUDA_CHECK(cudaFuncSetAttribute(pointer_chase_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
    reduction::DeviceBuffer<Word> buffer(max_footprint / sizeof(Word));
    reduction::DeviceBuffer<Word> cursor(1);
    std::mt19937_64 rng(20070101);  // fixed: the same chains on every run
    reduction::Stamp stamp = reduction::device_stamp(device, argc, argv);
    stamp.insert(stamp.end(), {{"l1_level_up_to_bytes", std::to_string(l1_bytes)}, {"stride_bytes", std::to_string(stride)}});
    std::cout << reduction::stamp_lines(stamp) << csv_columns << "\n" << std::flush;
    for (std::size_t footprint = min_footprint; footprint <= max_footprint; footprint *= 2) {
        lab::upload_chain(buffer.get(), cursor.get(), footprint, stride, rng);
        // Warm-up: every node once where the cycle fits in the caches, else at least 2^20 hops (clocks up, TLB warm).
        const std::uint64_t warmup = std::min<std::uint64_t>(footprint / stride, std::max<std::uint64_t>(hops, 1u << 20));
        pointer_chase_kernel<<<1, 1>>>(cursor.get(), warmup);
        CUDA_CHECK_LAUNCH();
        const float ms = lab::time_ms([&] { pointer_chase_kernel<<<1, 1>>>(cursor.get(), hops); });
        const char* level = footprint <= static_cast<std::size_t>(l1_bytes) ? "L1" : footprint <= device.l2_bytes ? "L2" : "DRAM";
        std::printf("%zu,%llu,%.2f,%s\n", footprint, static_cast<unsigned long long>(hops),
                    ms * 1e6 / static_cast<double>(hops), level);
        std::fflush(stdout);
    }
    return reduction::exit_ok;
}
}  // namespace

int main(int argc, char** argv) { return reduction::run_guarded([&] { return run(argc, argv); }); }
