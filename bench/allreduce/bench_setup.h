// What the multi-GPU benchmarks share: main(), command line, peer access, CSV stamp, an NCCL sum, and nccl-tests'
// bandwidths (doc/PERFORMANCE.md): algbw = bytes (one GPU's) / time; busbw = algbw * 2 (K - 1) / K, what a link carries.
#pragma once

#include "options.h"
#include "report.h"
#include "team.h"
#include <cmath>
#include <cstdlib>
#include <iostream>

namespace bench_multi_gpu {

using reduction::DeviceBuffer;
using reduction::multi_gpu::Member;
using reduction::multi_gpu::Team;

struct Settings {
    int gpus = 0, iters = 20, warmup = 5;  // gpus 0: every visible GPU
    std::size_t max_bytes = std::size_t{1} << 30;
    bool help = false;
};

// --gpus K, --iters N, --warmup N, and (with_sizes) --max-bytes 2^30. CSV always.
inline Settings parse_settings(int argc, char** argv, bool with_sizes) {
    Settings s;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw reduction::UsageError(flag + " needs a value; see --help");
            return argv[++i];
        };
        const auto number = [&](int low, int high) {
            const std::string text = value();
            const bool digits = !text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos;
            const int v = digits ? std::atoi(text.c_str()) : -1;
            if (v < low || v > high)
                throw reduction::UsageError(flag + ": '" + text + "' is not accepted; expected an integer from " +
                                            std::to_string(low) + " to " + std::to_string(high));
            return v;
        };
        if (flag == "--help" || flag == "-h") s.help = true;
        else if (flag == "--gpus") s.gpus = number(1, 1024);
        else if (flag == "--iters") s.iters = number(1, 100000);
        else if (flag == "--warmup") s.warmup = number(0, 100000);
        else if (with_sizes && flag == "--max-bytes") {
            s.max_bytes = reduction::parse_count(flag, value());
            if (s.max_bytes < 4) throw reduction::UsageError("--max-bytes: at least 4 (one float)");
        } else throw reduction::UsageError("unknown option '" + flag + "'; see --help");
    }
    return s;
}

inline double algbw_gbps(std::size_t bytes, double ms) { return reduction::bandwidth_gbps(bytes, ms); }
inline double busbw_gbps(double algbw, int gpus) { return algbw * 2.0 * (gpus - 1) / gpus; }
// The link limit bench/multigpu.sh read from `nvidia-smi nvlink -s` (GB/s per direction, one GPU's links), or NaN.
inline double nvlink_gbps() {
    const char* text = std::getenv("REDUCTION_NVLINK_GBPS");
    return text && *text ? std::atof(text) : NAN;
}
// A time in microseconds, or nothing for NaN (a time not taken).
inline std::string us_text(double us) { return std::isfinite(us) ? reduction::format_number("%.2f", us) : ""; }

// One float sum of `count` elements per GPU, send[i] into recv[i] on members[i]: K ncclAllReduce in a group.
inline void nccl_sum(const std::vector<Member>& members, const std::vector<DeviceBuffer<float>>& send,
                     std::vector<DeviceBuffer<float>>& recv, std::size_t count) {
    NCCL_CHECK(ncclGroupStart());
    for (std::size_t i = 0; i < members.size(); ++i)
        NCCL_CHECK(ncclAllReduce(send[i].get(), recv[i].get(), count, ncclFloat32, ncclSum, members[i].comm,
                                 members[i].stream));
    NCCL_CHECK(ncclGroupEnd());
}

// A run's command line, GPU 0's description, and whether every pair of GPUs reads each other's memory directly.
struct Bench {
    int argc;
    char** argv;
    Settings settings;
    reduction::DeviceInfo device{};
    bool peer = true;

    void print_head(int gpus, const std::string& timing, const char* columns) const {
        reduction::Stamp stamp = reduction::device_stamp(device, argc, argv);
        const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
        stamp.insert(stamp.end(), {{"gpus", std::to_string(gpus)}, {"nccl", reduction::multi_gpu::nccl_version()},
                                   {"nccl_nvls_enable", nvls ? nvls : "unset"},
                                   {"peer_access", peer ? "every pair" : "not every pair (copies go through the host)"}});
        if (const char* topo = std::getenv("REDUCTION_TOPOLOGY"); topo && *topo) stamp.push_back({"topology", topo});
        const double link = nvlink_gbps();
        stamp.push_back({"nvlink_gbps", std::isfinite(link) ? reduction::format_number("%.1f", link) : "unknown"});
        stamp.push_back({"timing", timing});
        std::cout << reduction::stamp_lines(stamp) << columns << "\n";
    }
};

// A benchmark's main(): --help, or `run` on --gpus K (default: all) driven by this process, peer access where possible.
inline int bench_main(int argc, char** argv, bool with_sizes, const char* what,
                      const std::function<int(const Bench&, Team&, const std::vector<Member>&, int gpus)>& run) {
    return reduction::run_guarded([&] {
        Bench b{argc, argv, parse_settings(argc, argv, with_sizes)};
        if (b.settings.help) {
            std::cout << what << "\nusage: " << argv[0] << " [--gpus K] [--iters N] [--warmup N]"
                      << (with_sizes ? " [--max-bytes B]" : "")
                      << "\n  --gpus K       GPUs 0 .. K-1 of this machine (default: all)\n"
                         "  --iters N      timed repetitions (default 20)\n"
                         "  --warmup N     untimed repetitions first (default 5)\n"
                      << (with_sizes ? "  --max-bytes B  largest vector per GPU, e.g. 2^30 (default 1 GiB)\n" : "")
                      << "CSV on stdout, with the stamp lines of results/*.csv above it.\n";
            return static_cast<int>(reduction::exit_ok);
        }
        const auto team = Team::local(b.settings.gpus);
        b.device = reduction::open_device(0);
        for (const Member& from : team->members())
            for (const Member& to : team->members()) {
                if (from.device == to.device) continue;
                int can = 0;
                CUDA_CHECK(cudaDeviceCanAccessPeer(&can, from.device, to.device));
                b.peer = b.peer && can;
                if (!can) continue;
                CUDA_CHECK(cudaSetDevice(from.device));
                const cudaError_t status = cudaDeviceEnablePeerAccess(to.device, 0);
                if (status == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();  // NCCL may have done it
                else CUDA_CHECK(status);
            }
        return run(b, *team, team->members(), team->size());
    });
}

}  // namespace bench_multi_gpu
