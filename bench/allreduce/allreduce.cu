// The all-reduce of a float vector on every GPU, 4 bytes to --max-bytes (1 GiB) per GPU, doubling, two ways: nccl (one
// ncclAllReduce per GPU, in a group) and naive (every vector copied to GPU 0 and added there, the sum copied back, all
// on GPU 0's stream: its link carries everything twice). Each checked (every element on every GPU), then timed.
#include "bench_setup.h"

namespace {

using namespace bench_multi_gpu;

// GPU `rank`'s element i: rank + 1 + (i mod 8). Small integers: every sum is exact in float.
__global__ void fill_kernel(float* values, std::size_t n, int rank) {
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
        values[i] = static_cast<float>(rank + 1 + static_cast<int>(i % 8));
}

// Counts the elements that differ from the sum over `gpus` GPUs of fill_kernel's values.
__global__ void count_wrong_kernel(const float* values, std::size_t n, int gpus, unsigned long long* wrong) {
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
        if (values[i] != static_cast<float>(gpus * (gpus + 1) / 2 + gpus * static_cast<int>(i % 8))) atomicAdd(wrong, 1ull);
}

// out[i] = sum over the K inputs' element i, in rank order.
__global__ void add_vectors_kernel(const float* const* inputs, int gpus, std::size_t n, float* out) {
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
        float sum = 0;
        for (int r = 0; r < gpus; ++r) sum += inputs[r][i];
        out[i] = sum;
    }
}

constexpr int threads = 256;
unsigned int blocks_for(std::size_t count) {
    return static_cast<unsigned int>(std::min<std::size_t>((count + threads - 1) / threads, 4096));
}

int run(const Bench& b, Team& team, const std::vector<Member>& members, int gpus) {
    const std::size_t max_count = b.settings.max_bytes / sizeof(float);
    std::vector<DeviceBuffer<float>> send, recv, staging;  // staging: on GPU 0, one per other GPU
    std::vector<DeviceBuffer<unsigned long long>> wrong;
    for (const auto& m : members) {
        CUDA_CHECK(cudaSetDevice(m.device));  // GPU 0 holds K vectors (one per GPU) plus the sum; the others two
        reduction::require_device_memory(std::size_t(m.rank == 0 ? gpus + 1 : 2) * max_count * sizeof(float) + (1 << 20),
                                         "allreduce on GPU " + std::to_string(m.rank) + " (--max-bytes)");
        send.emplace_back(max_count);
        recv.emplace_back(max_count);
        wrong.emplace_back(1);
        fill_kernel<<<blocks_for(max_count), threads, 0, m.stream>>>(send.back().get(), max_count, m.rank);
        CUDA_CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaSetDevice(members[0].device));
    std::vector<const float*> inputs{send[0].get()};
    for (int r = 1; r < gpus; ++r) inputs.push_back(staging.emplace_back(max_count).get());
    DeviceBuffer<const float*> device_inputs(static_cast<std::size_t>(gpus));
    CUDA_CHECK(cudaMemcpy(device_inputs.get(), inputs.data(), gpus * sizeof(float*), cudaMemcpyHostToDevice));
    team.synchronize();
    std::size_t count = 1;
    const auto nccl = [&] { nccl_sum(members, send, recv, count); };
    const auto naive = [&] {
        const auto& first = members[0];
        CUDA_CHECK(cudaSetDevice(first.device));
        for (int r = 1; r < gpus; ++r)
            CUDA_CHECK(cudaMemcpyPeerAsync(staging[r - 1].get(), first.device, send[r].get(), members[r].device,
                                           count * sizeof(float), first.stream));
        add_vectors_kernel<<<blocks_for(count), threads, 0, first.stream>>>(device_inputs.get(), gpus, count, recv[0].get());
        CUDA_CHECK_LAUNCH();
        for (int r = 1; r < gpus; ++r)
            CUDA_CHECK(cudaMemcpyPeerAsync(recv[r].get(), members[r].device, recv[0].get(), first.device,
                                           count * sizeof(float), first.stream));
    };
    // Runs `method` once into receive buffers filled with NaN bytes; true if every GPU has the sum.
    const auto check = [&](const std::function<void()>& method) {
        for (std::size_t i = 0; i < members.size(); ++i) {
            CUDA_CHECK(cudaSetDevice(members[i].device));
            CUDA_CHECK(cudaMemsetAsync(recv[i].get(), 0xFF, count * sizeof(float), members[i].stream));
        }
        team.synchronize();
        method();
        team.synchronize();
        bool ok = true;
        for (std::size_t i = 0; i < members.size(); ++i) {
            CUDA_CHECK(cudaSetDevice(members[i].device));
            CUDA_CHECK(cudaMemsetAsync(wrong[i].get(), 0, sizeof(unsigned long long), members[i].stream));
            count_wrong_kernel<<<blocks_for(count), threads, 0, members[i].stream>>>(recv[i].get(), count, gpus, wrong[i].get());
            CUDA_CHECK_LAUNCH();
            unsigned long long bad = 0;
            CUDA_CHECK(cudaMemcpyAsync(&bad, wrong[i].get(), sizeof bad, cudaMemcpyDeviceToHost, members[i].stream));
            CUDA_CHECK(cudaStreamSynchronize(members[i].stream));
            ok = ok && bad == 0;
        }
        return ok;
    };
    b.print_head(gpus, "per call: median and min of " + std::to_string(b.settings.iters) +
                     " calls queued behind a gate kernel on every GPU, the slowest GPU's event interval; " +
                     std::to_string(b.settings.warmup) + " warm-up calls first; algbw = bytes / median time, "
                     "busbw = algbw * 2(K-1)/K (nccl-tests doc/PERFORMANCE.md)",
                 "method,gpus,bytes,count,time_median_us,time_min_us,algbw_gbps,busbw_gbps,nvlink_gbps,status");
    const std::string link = std::isfinite(nvlink_gbps()) ? reduction::format_number("%.1f", nvlink_gbps()) : "";
    bool all_ok = true;
    using Method = std::pair<const char*, std::function<void()>>;
    for (count = 1; count <= max_count; count *= 2) {
        for (const auto& [method, work] : {Method{"nccl", nccl}, Method{"naive", naive}}) {
            const bool ok = check(work);
            all_ok = all_ok && ok;
            const reduction::Timing t = team.time(work, b.settings.warmup, b.settings.iters);
            const std::size_t bytes = count * sizeof(float);
            const double algbw = algbw_gbps(bytes, t.per_call.median_ms);
            std::cout << method << "," << gpus << "," << bytes << "," << count << "," << us_text(t.per_call.median_ms * 1e3)
                      << "," << us_text(t.per_call.min_ms * 1e3) << "," << reduction::format_number("%.3f", algbw) << ","
                      << reduction::format_number("%.3f", busbw_gbps(algbw, gpus)) << "," << link << ","
                      << (ok ? "PASS" : "FAIL") << std::endl;
        }
        if (count > max_count / 2) break;  // the next doubling would pass --max-bytes (and could wrap)
    }
    if (!all_ok) std::cerr << "allreduce: some method left a wrong sum on some GPU\n";
    return all_ok ? reduction::exit_ok : reduction::exit_wrong_result;
}

}  // namespace

int main(int argc, char** argv) {
    return bench_main(argc, argv, true, "all-reduce of a float vector on every GPU: NCCL against a naive gather to GPU 0", run);
}
