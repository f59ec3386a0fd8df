// Every way to read the input, beside steps 12, 13, CUB and the combines (bench/README.md). Exit: 2 bad option, 3 no GPU.
#include "step12_small_n/reduce.cuh"
#include "step13_bulk_copies/reduce.cuh"
#include "bench/ablation/lab.h"
#include "block_sizes.h"
#include "course_steps.h"
#include "read_probe.cuh"
#include "device_buffer.h"
#include "device_info.h"
#include "input.h"
#include "report.h"
#include "timer.h"
#include <cooperative_groups.h>
#include <cub/device/device_reduce.cuh>
#include <cstdio>
#include <functional>

namespace {
constexpr unsigned int B = 256;  // every kernel here: the course's default block
using reduction::probe::sentinel;

template <unsigned int L>  // the course's read-probe loop (course/read_probe.cuh) at this file's block
__device__ __forceinline__ unsigned int mix_run(const uint4* body, std::size_t i, std::size_t end, std::size_t step) {
    return reduction::probe::mix_run<L, B>(body, i, end, step);
}

// Grid-stride over the 16-byte vectors, L loads per thread per iteration: block b reads tiles b, b + G,
// b + 2G, ... of L x B vectors. With L = 4 this is CUB's pattern (a tile of 256 threads x 16 items of 4 bytes,
// loaded 4 at a time; GRID_MAPPING_STRIP_MINE in agent_reduce.cuh), CUB's grid being 5 x the resident blocks.
template <unsigned int L>
__global__ void __launch_bounds__(B) loop_kernel(const uint4* body, std::size_t vectors, unsigned int* out) {
    const std::size_t tile = std::size_t{L} * B;
    const unsigned int mixed = mix_run<L>(body, blockIdx.x * tile + threadIdx.x, vectors, gridDim.x * tile);
    if (mixed == sentinel) *out = mixed;
}

// Each block one contiguous run of whole tiles of 4 x B vectors, the first blocks one tile more.
__global__ void __launch_bounds__(B) run_kernel(const uint4* body, std::size_t vectors, unsigned int* out) {
    const std::size_t tile = 4 * B, tiles = (vectors + tile - 1) / tile;
    const std::size_t share = tiles / gridDim.x, bigger = tiles % gridDim.x, b = blockIdx.x;
    const std::size_t first = b * share + (b < bigger ? b : bigger), count = share + (b < bigger ? 1 : 0);
    const std::size_t end = (first + count) * tile < vectors ? (first + count) * tile : vectors;
    const unsigned int mixed = mix_run<4>(body, first * tile + threadIdx.x, end, tile);
    if (mixed == sentinel) *out = mixed;
}

// Step 12 with a last block that does not wait for the others' partials. With SecondTree it still reads the slots
// once and runs its second tree: step 12 without the wait alone. Both sums are wrong.
template <class T, bool SecondTree>
__global__ void __launch_bounds__(B) no_wait_kernel(const T* in, std::size_t n, T* out, step12::Slot* slots) {
    __shared__ T warp_results[32];
    const T sum = step12::block_reduce<reduction::Sum, B>(step12::thread_reduce<reduction::Sum, B>(in, n), warp_results);
    if (blockIdx.x != gridDim.x - 1) {
        if (threadIdx.x == 0) step12::post_partial(slots + blockIdx.x, sum);  // never emptied: its own slots
        return;
    }
    T total = sum;
    if constexpr (SecondTree) {
        total = 0;
        for (unsigned int first = threadIdx.x; first < gridDim.x; first += step12::partial_loads * B)
            step12::add_round<reduction::Sum, B>(total, slots, first, sum);
        __syncwarp();
        total = step12::block_reduce<reduction::Sum, B>(total, warp_results);
    }
    if (threadIdx.x == 0) *out = total;
}

// Integer sums only: the count (bits 48..63) and the 32-bit partials, zero-extended (bits 0..47), in one 64-bit
// word. The block whose atomic brings the count to the grid holds the total: no wait, no second tree.
__global__ void __launch_bounds__(B) one_atomic_kernel(const std::int32_t* in, std::size_t n, std::int32_t* out,
                                                       unsigned long long* word) {
    __shared__ std::int32_t warp_results[32];
    const std::int32_t sum = step12::block_reduce<reduction::Sum, B>(step12::thread_reduce<reduction::Sum, B>(in, n), warp_results);
    if (threadIdx.x != 0) return;
    const unsigned long long mine = (1ull << 48) | static_cast<std::uint32_t>(sum);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> ref(*word);
    const unsigned long long before = ref.fetch_add(mine, cuda::std::memory_order_relaxed);
    if ((before >> 48) == gridDim.x - 1) {  // every other block has added: empty the word for the next call
        *out = static_cast<std::int32_t>(static_cast<std::uint32_t>(before + mine));
        ref.store(0, cuda::std::memory_order_relaxed);
    }
}

// Step 12 with clusters of C blocks: rank 0 adds the C partials from its shared memory and posts one slot;
// rank 0 of the last cluster waits for the slots, as step 12's last block does. One cluster: no slots.
template <class T, unsigned int C>
__global__ void __launch_bounds__(B) cluster_kernel(const T* in, std::size_t n, T* out, step12::Slot* slots) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900  // clusters: sm_90 and later
    __shared__ T warp_results[32];
    __shared__ T partials[C];
    __shared__ T own_shared;
    cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
    const T sum = step12::block_reduce<reduction::Sum, B>(step12::thread_reduce<reduction::Sum, B>(in, n), warp_results);
    const unsigned int rank = cluster.block_rank();
    if (threadIdx.x == 0) cluster.map_shared_rank(partials, 0)[rank] = sum;
    cluster.sync();
    if (rank != 0) return;
    const unsigned int clusters = gridDim.x / C, me = blockIdx.x / C;
    if (threadIdx.x == 0) {
        T own = T(0);
        for (unsigned int r = 0; r < C; ++r) own += partials[r];
        if (clusters == 1) *out = own;
        else if (me != clusters - 1) step12::post_partial(slots + me, own);
        own_shared = own;
    }
    if (clusters == 1 || me != clusters - 1) return;
    __syncthreads();
    T value = T(0);
    for (unsigned int c = threadIdx.x; c < clusters; c += B) {
        T v = own_shared;
        if (c != me) {
            step12::Slot seen;
            do seen = step12::SlotRef(slots[c]).load(cuda::std::memory_order_relaxed); while (!(seen & step12::full));
            step12::SlotRef(slots[c]).store(0, cuda::std::memory_order_relaxed);
            const unsigned int bits = static_cast<unsigned int>(seen);
            memcpy(&v, &bits, sizeof(T));
        }
        value += v;
    }
    value = step12::block_reduce<reduction::Sum, B>(value, warp_results);
    if (threadIdx.x == 0) *out = value;
#endif
}

template <class T, unsigned int C>
void launch_clusters(const T* in, std::size_t n, T* out, step12::Slot* slots, cudaStream_t stream) {
    auto kernel = cluster_kernel<T, C>;
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim = {C, 1, 1};
    static unsigned int most = 0;  // clusters that fit at once, asked once per process
    if (most == 0) {
        if (C > 8) CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
        const cudaLaunchConfig_t config = lab::launch_config(C * 1024, B, nullptr, attribute);
        int clusters = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
        most = static_cast<unsigned int>(clusters);
    }
    const auto clusters = static_cast<unsigned int>(std::min<std::size_t>(most, reduction::ceil_div(n, C * step12::tile_elements(B))));
    const cudaLaunchConfig_t config = lab::launch_config(clusters * C, B, stream, attribute);
    CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, in, n, out, slots));
}

struct Row {
    std::string pattern;
    std::function<void(cudaStream_t)> run;
    bool sums;  // a reduction whose result is checked
};

// Per-call medians and minima in µs, the calls of each chunk queued behind the gate.
std::vector<double> time_calls(const Row& row, int calls, cudaStream_t stream, reduction::Gate& gate) {
    constexpr int chunk = 100;
    static std::vector<cudaEvent_t> events(2 * chunk);
    if (events[0] == nullptr) std::generate(events.begin(), events.end(), lab::new_event);
    std::vector<double> us;
    for (int w = 0; w < 3; ++w) row.run(stream);
    for (int done = 0; done < calls; done += chunk) {
        const int count = std::min(chunk, calls - done);
        gate.close();
        gate.hold(stream);
        for (int i = 0; i < count; ++i) {
            CUDA_CHECK(cudaEventRecord(events[2 * i], stream));
            row.run(stream);
            CUDA_CHECK(cudaEventRecord(events[2 * i + 1], stream));
        }
        gate.open();
        CUDA_CHECK(cudaStreamSynchronize(stream));
        gate.check_not_timed_out("queueing the calls of read_patterns");
        for (int i = 0; i < count; ++i) {
            float ms = 0;
            CUDA_CHECK(cudaEventElapsedTime(&ms, events[2 * i], events[2 * i + 1]));
            us.push_back(ms * 1000.0);
        }
    }
    std::sort(us.begin(), us.end());
    return {us[us.size() / 2], us.front()};
}

template <class T>
std::vector<Row> rows_for(const T* in, std::size_t n, T* out, step12::Slot* slots, void* temp, std::size_t temp_bytes) {
    const auto* body = reinterpret_cast<const uint4*>(in);
    const std::size_t bytes = n * sizeof(T), vectors = bytes / 16;
    auto* word = reinterpret_cast<unsigned int*>(out);
    static const unsigned int r4 = reduction::resident_blocks(loop_kernel<4>, B);
    static const unsigned int r8 = reduction::resident_blocks(loop_kernel<8>, B), rr = reduction::resident_blocks(run_kernel, B);
    auto grid = [bytes](unsigned int most, std::size_t per_block) {
        return static_cast<unsigned int>(std::max<std::size_t>(1, std::min<std::size_t>(most, (bytes + per_block - 1) / per_block)));
    };
    constexpr std::size_t tile_bytes = 4 * B * 16;
    const reduction::StepApi& bulk = reduction::read_probe_bulk_step();
    std::vector<Row> rows = {
        {"loop", [=](cudaStream_t s) { loop_kernel<4><<<grid(r4, tile_bytes), B, 0, s>>>(body, vectors, word); }, false},
        {"loop8", [=](cudaStream_t s) { loop_kernel<8><<<grid(r8, 2 * tile_bytes), B, 0, s>>>(body, vectors, word); }, false},
        {"loop_x2", [=](cudaStream_t s) { loop_kernel<4><<<grid(2 * r4, tile_bytes), B, 0, s>>>(body, vectors, word); }, false},
        {"strip_x5", [=](cudaStream_t s) { loop_kernel<4><<<grid(5 * r4, tile_bytes), B, 0, s>>>(body, vectors, word); }, false},
        {"run", [=](cudaStream_t s) { run_kernel<<<grid(rr, tile_bytes), B, 0, s>>>(body, vectors, word); }, false},
        {"run_x5", [=](cudaStream_t s) { run_kernel<<<grid(5 * rr, tile_bytes), B, 0, s>>>(body, vectors, word); }, false},
        {"bulk", [=, &bulk](cudaStream_t s) { reduction::typed<T>(bulk).reduce(in, n, out, nullptr, B, s); }, false},
        {"step12", [=](cudaStream_t s) { step12::reduce(in, n, out, reinterpret_cast<T*>(slots), B, s); }, true},
        {"step13", [=](cudaStream_t s) { step13::reduce(in, n, out, reinterpret_cast<T*>(slots), B, s); }, true},
        {"cub", [=](cudaStream_t s) { std::size_t t = temp_bytes; CUDA_CHECK(cub::DeviceReduce::Sum(temp, t, in, out, n, s)); }, true},
        {"step12_no_wait", [=](cudaStream_t s) { no_wait_kernel<T, false><<<step12::grid_for(n, B), B, 0, s>>>(in, n, out, slots + (1 << 16)); }, false},
        {"step12_read_no_wait", [=](cudaStream_t s) { no_wait_kernel<T, true><<<step12::grid_for(n, B), B, 0, s>>>(in, n, out, slots + (1 << 16)); }, false},
        {"step12_cluster8", [=](cudaStream_t s) { launch_clusters<T, 8>(in, n, out, slots, s); }, true},
        {"step12_cluster16", [=](cudaStream_t s) { launch_clusters<T, 16>(in, n, out, slots, s); }, true},
    };
    if constexpr (std::is_same_v<T, std::int32_t>) {
        auto* word = reinterpret_cast<unsigned long long*>(slots + (1 << 15));  // zero on entry and on return
        rows.push_back({"step12_one_atomic", [=](cudaStream_t s) { one_atomic_kernel<<<step12::grid_for(n, B), B, 0, s>>>(in, n, out, word); }, true});
    }
    if (!step13::bulk_copies_available())  // neither bulk copies nor clusters below sm_90
        rows.erase(std::remove_if(rows.begin(), rows.end(), [](const Row& row) {
            return row.pattern == "bulk" || row.pattern.find("cluster") != std::string::npos; }), rows.end());
    return rows;
}

template <class T>
std::string verified(const Row& row, const T* out, std::size_t n, cudaStream_t stream) {  // "-" for a probe
    if (!row.sums) return "-";
    row.run(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    T got{};
    CUDA_CHECK(cudaMemcpy(&got, out, sizeof(T), cudaMemcpyDeviceToHost));
    if constexpr (std::is_integral_v<T>) return static_cast<std::uint32_t>(got) == static_cast<std::uint32_t>(n) ? "PASS" : "FAIL";
    else return n > (std::size_t{1} << 24) ? "-" : got == static_cast<T>(n) ? "PASS" : "FAIL";
}

template <class T>
int measure_type(const char* type, int max_log2, void* buffer, cudaStream_t stream, reduction::Gate& gate) {
    const std::size_t largest = std::size_t{1} << max_log2;
    T* in = static_cast<T*>(buffer);
    reduction::fill_input(in, 0, largest, reduction::Pattern::ones, 0, nullptr);  // every element 1
    reduction::DeviceBuffer<T> out(1);
    reduction::DeviceBuffer<step12::Slot> slots(std::size_t{1} << 17);
    CUDA_CHECK(cudaMemset(slots.get(), 0, slots.bytes()));
    std::size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in, out.get(), largest));
    reduction::DeviceBuffer<unsigned char> temp(temp_bytes);
    CUDA_CHECK(cudaDeviceSynchronize());
    int failures = 0;
    for (int log2 = 4; log2 <= max_log2; ++log2) {
        const std::size_t n = std::size_t{1} << log2;
        const int calls = log2 <= 24 ? 400 : log2 <= 28 ? 60 : 15;
        for (const Row& row : rows_for(in, n, out.get(), slots.get(), temp.get(), temp_bytes)) {
            const std::vector<double> us = time_calls(row, calls, stream, gate);
            const std::string check = verified(row, out.get(), n, stream);
            failures += check == "FAIL";
            std::printf("%s,%zu,%s,%.3f,%.3f,%s\n", type, n, row.pattern.c_str(), us[0], us[1], check.c_str());
        }
        std::fflush(stdout);
    }
    return failures;
}
}  // namespace

int main(int argc, char** argv) {
    return reduction::run_guarded([&]() -> int {
        int max_log2 = 32;
        lab::parse_flags(argc, argv, "[--max-log2 K]   (K: 4..32, default 32)\n"
                         "Prints CSV: type,n,pattern,time_median_us,time_min_us,verified\n", "--max-log2",
                         [&](const std::string&, const std::string& value) {
            if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos || std::stoi(value) < 4 || std::stoi(value) > 32)
                throw reduction::UsageError("--max-log2: '" + value + "' is not accepted; an integer from 4 to 32");
            max_log2 = std::stoi(value);
        });
        const reduction::DeviceInfo device = reduction::open_device(0);
        reduction::require_device_memory((std::size_t{4} << max_log2) + (std::size_t{8} << 20),
                                         "the read patterns over 2^" + std::to_string(max_log2) + " elements");
        reduction::DeviceBuffer<unsigned char> buffer(std::size_t{4} << max_log2);
        cudaStream_t stream = nullptr;
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        reduction::Gate gate;
        std::cout << reduction::stamp_lines(reduction::device_stamp(device, argc, argv))
                  << "type,n,pattern,time_median_us,time_min_us,verified\n" << std::flush;
        int failures = measure_type<std::int32_t>("int32", max_log2, buffer.get(), stream, gate);
        failures += measure_type<float>("float32", max_log2, buffer.get(), stream, gate);
        return failures == 0 ? reduction::exit_ok : reduction::exit_wrong_result;
    });
}
