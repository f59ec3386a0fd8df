// The cross-GPU combine alone: K partials, one float per GPU, added by one ncclAllReduce (the total on every GPU, as
// step 15 does), on the host (as cuda-samples' simpleMultiGPU does) and by a kernel on GPU 0 after peer copies.
// host_us: what a program waiting for the total sees; device_us: the GPU side alone (none for host_gather).
#include "bench_setup.h"
#include <chrono>

namespace {

using namespace bench_multi_gpu;

__global__ void add_partials_kernel(const float* partials, int count, float* total) {
    float sum = 0;
    for (int i = 0; i < count; ++i) sum += partials[i];  // in rank order: the same result every call
    *total = sum;
}

// Median and min of `iters` calls of `call` (enqueue + wait), on the host's clock, in microseconds.
reduction::TimingStats host_time_us(const std::function<void()>& call, int warmup, int iters) {
    for (int i = 0; i < warmup; ++i) call();
    std::vector<double> samples;
    for (int i = 0; i < iters; ++i) {
        const auto start = std::chrono::steady_clock::now();
        call();
        samples.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    }
    return reduction::summarize(samples);
}

int run(const Bench& b, Team& team, const std::vector<Member>& members, int gpus) {
    const int warmup = b.settings.warmup, iters = b.settings.iters;
    std::vector<DeviceBuffer<float>> partials, totals;
    for (const auto& m : members) {
        CUDA_CHECK(cudaSetDevice(m.device));
        const float value = static_cast<float>(m.rank + 1);  // the total K (K + 1) / 2 is exact in float for any K
        CUDA_CHECK(cudaMemcpy(partials.emplace_back(1).get(), &value, sizeof value, cudaMemcpyHostToDevice));
        totals.emplace_back(1);
    }
    CUDA_CHECK(cudaSetDevice(members[0].device));
    DeviceBuffer<float> gathered(static_cast<std::size_t>(gpus)), total0(1);
    float* host = nullptr;
    CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host), sizeof(float) * gpus));
    const std::unique_ptr<float, decltype(&cudaFreeHost)> host_owner(host, &cudaFreeHost);
    const float expected = static_cast<float>(gpus) * (gpus + 1) / 2;
    float host_total = 0;
    const auto nccl = [&] { nccl_sum(members, partials, totals, 1); };
    const auto host_gather = [&] {
        for (std::size_t i = 0; i < members.size(); ++i) {
            CUDA_CHECK(cudaSetDevice(members[i].device));
            CUDA_CHECK(cudaMemcpyAsync(host + i, partials[i].get(), sizeof(float), cudaMemcpyDeviceToHost, members[i].stream));
        }
        team.synchronize();
        host_total = 0;
        for (int i = 0; i < gpus; ++i) host_total += host[i];
    };
    const auto peer_to_gpu0 = [&] {
        const auto& first = members[0];
        CUDA_CHECK(cudaSetDevice(first.device));
        for (std::size_t i = 0; i < members.size(); ++i)
            CUDA_CHECK(cudaMemcpyPeerAsync(gathered.get() + i, first.device, partials[i].get(), members[i].device,
                                           sizeof(float), first.stream));
        add_partials_kernel<<<1, 1, 0, first.stream>>>(gathered.get(), gpus, total0.get());
        CUDA_CHECK_LAUNCH();
    };
    const auto waited = [&](const std::function<void()>& enqueue) {
        return [&, enqueue] {
            enqueue();
            team.synchronize();
        };
    };
    const auto read = [&](const DeviceBuffer<float>& buffer, int dev) {
        float value = 0;
        CUDA_CHECK(cudaSetDevice(dev));
        CUDA_CHECK(cudaMemcpy(&value, buffer.get(), sizeof value, cudaMemcpyDeviceToHost));
        return value;
    };
    // Each method once, checked, before it is timed.
    waited(nccl)();
    bool nccl_ok = true;
    for (std::size_t i = 0; i < members.size(); ++i) nccl_ok = nccl_ok && read(totals[i], members[i].device) == expected;
    host_gather();
    const bool host_ok = host_total == expected;
    waited(peer_to_gpu0)();
    const bool peer_ok = read(total0, members[0].device) == expected;
    std::vector<std::string> rows;
    bool all_ok = true;
    const auto row = [&](const char* method, const char* result_on, const std::function<void()>& on_device,
                         const std::function<void()>& on_host, bool ok) {
        const reduction::TimingStats device =
            on_device ? team.time(on_device, warmup, iters).per_call : reduction::TimingStats{NAN, NAN, 0};
        const reduction::TimingStats host_us = host_time_us(on_host, warmup, iters);
        rows.push_back(std::string(method) + "," + std::to_string(gpus) + "," + result_on + "," + us_text(host_us.median_ms) +
                       "," + us_text(host_us.min_ms) + "," + us_text(device.median_ms * 1e3) + "," +
                       us_text(device.min_ms * 1e3) + "," + (ok ? "PASS" : "FAIL"));
        all_ok = all_ok && ok;
    };
    row("nccl_allreduce", "every GPU", nccl, waited(nccl), nccl_ok);
    row("host_gather", "host", nullptr, host_gather, host_ok);
    row("peer_to_gpu0", "GPU 0", peer_to_gpu0, waited(peer_to_gpu0), peer_ok);
    b.print_head(gpus, "host_us: median and min of " + std::to_string(iters) +
                     " calls, each enqueued and waited for, on the host's steady_clock; device_us: the same count queued "
                     "behind a gate kernel on every GPU, the slowest GPU's event interval; " +
                     std::to_string(warmup) + " warm-up calls first",
                 "method,gpus,result_on,host_median_us,host_min_us,device_median_us,device_min_us,status");
    for (const std::string& r : rows) std::cout << r << "\n";
    if (!all_ok) std::cerr << "combine: a method gave a wrong total (expected " << expected << ")\n";
    return all_ok ? reduction::exit_ok : reduction::exit_wrong_result;
}

}  // namespace

int main(int argc, char** argv) {
    return bench_main(argc, argv, false, "the cross-GPU combine of one partial per GPU, three ways", run);
}
