// The cross-GPU combine alone: K partials, one float on each GPU, added three ways.
//   nccl_allreduce  one ncclAllReduce of one element: the total on every GPU (what step 14 does)
//   host_gather     cudaMemcpy of each partial to the host, added there, as cuda-samples'
//                   simpleMultiGPU does: the total on the host only
//   peer_to_gpu0    peer copies of the partials to GPU 0, added there by a one-thread kernel: the
//                   total on GPU 0 only
// Two times per method. host_us: what a program that waits for the total sees, on the host's
// clock (steady_clock around enqueue + synchronise; median and min of --iters). device_us: the GPU
// side alone (team.h: calls queued behind a gate on every GPU, the slowest GPU's event interval);
// none for host_gather, whose additions run on the host.
#include "bench_setup.h"

#include "team.h"

#include "cuda_check.h"
#include "device_buffer.h"
#include "exit_codes.h"
#include "timer.h"

#include <chrono>
#include <cmath>
#include <iostream>
#include <vector>

namespace {

using namespace bench_multi_gpu;
using reduction::DeviceBuffer;

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

int run(int argc, char** argv) {
    const Settings settings = parse_settings(argc, argv, false);
    if (settings.help) {
        std::cout << usage_text(argv[0], "the cross-GPU combine of one partial per GPU, three ways", false);
        return reduction::exit_ok;
    }
    const BenchTeam setup = open_team(settings);
    reduction::multi_gpu::Team& team = *setup.team;
    const int gpus = team.size();
    const auto& members = team.members();

    // GPU r's partial is r + 1: the total K (K + 1) / 2 is exact in float for any K here.
    std::vector<DeviceBuffer<float>> partials, totals;
    for (const auto& m : members) {
        CUDA_CHECK(cudaSetDevice(m.device));
        partials.emplace_back(1);
        totals.emplace_back(1);
        const float value = static_cast<float>(m.rank + 1);
        CUDA_CHECK(cudaMemcpy(partials.back().get(), &value, sizeof value, cudaMemcpyHostToDevice));
    }
    CUDA_CHECK(cudaSetDevice(members[0].device));
    DeviceBuffer<float> gathered(static_cast<std::size_t>(gpus)), total0(1);
    float* host = nullptr;
    CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host), sizeof(float) * gpus));
    const std::unique_ptr<float, decltype(&cudaFreeHost)> host_owner(host, &cudaFreeHost);
    const float expected = static_cast<float>(gpus) * (gpus + 1) / 2;
    float host_total = 0;

    const auto nccl = [&] {
        NCCL_CHECK(ncclGroupStart());
        for (std::size_t i = 0; i < members.size(); ++i)
            NCCL_CHECK(ncclAllReduce(partials[i].get(), totals[i].get(), 1, ncclFloat32, ncclSum, members[i].comm,
                                     members[i].stream));
        NCCL_CHECK(ncclGroupEnd());
    };
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

    // Each method once, checked, before it is timed.
    const auto read = [&](const DeviceBuffer<float>& buffer, int dev) {
        float value = 0;
        CUDA_CHECK(cudaSetDevice(dev));
        CUDA_CHECK(cudaMemcpy(&value, buffer.get(), sizeof value, cudaMemcpyDeviceToHost));
        return value;
    };
    waited(nccl)();
    bool nccl_ok = true;
    for (std::size_t i = 0; i < members.size(); ++i) nccl_ok = nccl_ok && read(totals[i], members[i].device) == expected;
    host_gather();
    const bool host_ok = host_total == expected;
    waited(peer_to_gpu0)();
    const bool peer_ok = read(total0, members[0].device) == expected;

    struct Row {
        const char* method;
        const char* result_on;
        reduction::TimingStats host;
        double device_median_us;
        double device_min_us;
        bool ok;
    };
    std::vector<Row> rows;
    {
        const reduction::Timing t = team.time(nccl, settings.warmup, settings.iters);
        rows.push_back({"nccl_allreduce", "every GPU", host_time_us(waited(nccl), settings.warmup, settings.iters),
                        t.per_call.median_ms * 1e3, t.per_call.min_ms * 1e3, nccl_ok});
    }
    rows.push_back({"host_gather", "host", host_time_us(host_gather, settings.warmup, settings.iters), NAN, NAN, host_ok});
    {
        const reduction::Timing t = team.time(peer_to_gpu0, settings.warmup, settings.iters);
        rows.push_back({"peer_to_gpu0", "GPU 0", host_time_us(waited(peer_to_gpu0), settings.warmup, settings.iters),
                        t.per_call.median_ms * 1e3, t.per_call.min_ms * 1e3, peer_ok});
    }

    const std::string timing =
        "host_us: median and min of " + std::to_string(settings.iters) +
        " calls, each enqueued and waited for, on the host's steady_clock; device_us: the same count queued behind a "
        "gate kernel on every GPU, the slowest GPU's event interval; " + std::to_string(settings.warmup) + " warm-up calls first";
    std::cout << reduction::stamp_lines(bench_stamp(setup.device, team, setup.peer, timing, argc, argv))
              << "method,gpus,result_on,host_median_us,host_min_us,device_median_us,device_min_us,status\n";
    bool all_ok = true;
    for (const Row& r : rows) {
        std::cout << r.method << "," << gpus << "," << r.result_on << "," << reduction::format_number("%.2f", r.host.median_ms)
                  << "," << reduction::format_number("%.2f", r.host.min_ms) << ","
                  << (std::isfinite(r.device_median_us) ? reduction::format_number("%.2f", r.device_median_us) : "") << ","
                  << (std::isfinite(r.device_min_us) ? reduction::format_number("%.2f", r.device_min_us) : "") << ","
                  << (r.ok ? "PASS" : "FAIL") << "\n";
        all_ok = all_ok && r.ok;
    }
    if (!all_ok) std::cerr << "combine: a method gave a wrong total (expected " << expected << ")\n";
    return all_ok ? reduction::exit_ok : reduction::exit_wrong_result;
}

}  // namespace

int main(int argc, char** argv) {
    return reduction::run_guarded([&] { return run(argc, argv); });
}
