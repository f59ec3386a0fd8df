// What the two multi-GPU benchmarks share: their small command line, peer access, the stamp
// above their CSV, and the bandwidth formulas of nccl-tests (doc/PERFORMANCE.md):
//   algorithm bandwidth  algbw = bytes / time           (bytes: the size of one GPU's vector)
//   bus bandwidth        busbw = algbw * 2 (K - 1) / K  (all-reduce: what each link must carry)
// busbw is the figure to hold against the hardware's link bandwidth, whatever K is.
#pragma once

#include "team.h"

#include "cuda_check.h"
#include "device_info.h"
#include "exit_codes.h"
#include "options.h"
#include "report.h"

#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace bench_multi_gpu {

struct Settings {
    int gpus = 0;  // 0: every visible GPU
    int iters = 20;
    int warmup = 5;
    std::size_t max_bytes = std::size_t{1} << 30;
    bool help = false;
};

inline int parse_int(const std::string& flag, const std::string& text, int low, int high) {
    const bool digits = !text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos;
    const int value = digits ? std::atoi(text.c_str()) : -1;
    if (value < low || value > high)
        throw reduction::UsageError(flag + ": '" + text + "' is not accepted; expected an integer from " +
                                    std::to_string(low) + " to " + std::to_string(high));
    return value;
}

// --gpus K, --iters N, --warmup N, and (with_sizes) --max-bytes 2^30. CSV always.
inline Settings parse_settings(int argc, char** argv, bool with_sizes) {
    Settings s;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw reduction::UsageError(flag + " needs a value; see --help");
            return argv[++i];
        };
        if (flag == "--help" || flag == "-h") s.help = true;
        else if (flag == "--gpus") s.gpus = parse_int(flag, value(), 1, 1024);
        else if (flag == "--iters") s.iters = parse_int(flag, value(), 1, 100000);
        else if (flag == "--warmup") s.warmup = parse_int(flag, value(), 0, 100000);
        else if (with_sizes && flag == "--max-bytes") {
            s.max_bytes = reduction::parse_count(flag, value());
            if (s.max_bytes < 4) throw reduction::UsageError("--max-bytes: at least 4 (one float)");
        } else throw reduction::UsageError("unknown option '" + flag + "'; see --help");
    }
    return s;
}

inline std::string usage_text(const char* program, const char* what, bool with_sizes) {
    return std::string(what) + "\nusage: " + program + " [--gpus K] [--iters N] [--warmup N]" +
           (with_sizes ? " [--max-bytes B]" : "") +
           "\n  --gpus K       GPUs 0 .. K-1 of this machine (default: all)\n"
           "  --iters N      timed repetitions (default 20)\n  --warmup N     untimed repetitions first (default 5)\n" +
           (with_sizes ? "  --max-bytes B  largest vector per GPU, e.g. 2^30 (default 1 GiB)\n" : "") +
           "CSV on stdout, with the stamp lines of results/*.csv above it.\n";
}

// Lets every pair of GPUs read each other's memory directly (over NVLink where there is one);
// false if some pair cannot, in which case cudaMemcpyPeer goes through the host.
inline bool enable_peer_access(const std::vector<reduction::multi_gpu::Member>& members) {
    bool all = true;
    for (const auto& a : members)
        for (const auto& b : members) {
            if (a.device == b.device) continue;
            int can = 0;
            CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a.device, b.device));
            if (!can) {
                all = false;
                continue;
            }
            CUDA_CHECK(cudaSetDevice(a.device));
            const cudaError_t status = cudaDeviceEnablePeerAccess(b.device, 0);
            if (status == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();  // NCCL may have done it
            else CUDA_CHECK(status);
        }
    return all;
}

// The GPUs of a run: --gpus K (default: every visible one) driven by this process, peer access
// enabled where the hardware allows, and GPU 0's description for the stamp.
struct BenchTeam {
    std::unique_ptr<reduction::multi_gpu::Team> team;
    reduction::DeviceInfo device;
    bool peer = false;  // every pair can read each other's memory
};

inline BenchTeam open_team(const Settings& settings) {
    BenchTeam t;
    t.team = reduction::multi_gpu::Team::local(settings.gpus > 0 ? settings.gpus : reduction::multi_gpu::visible_gpus());
    t.device = reduction::open_device(0);
    t.peer = enable_peer_access(t.team->members());
    return t;
}

inline double algbw_gbps(std::size_t bytes, double ms) { return reduction::bandwidth_gbps(bytes, ms); }
inline double busbw_gbps(double algbw, int gpus) { return algbw * 2.0 * (gpus - 1) / gpus; }

// The link limit the script read from `nvidia-smi nvlink -s` (GB/s per direction, summed over one
// GPU's links), or NaN when it was not given.
inline double nvlink_gbps() {
    const char* text = std::getenv("REDUCTION_NVLINK_GBPS");
    return text && *text ? std::atof(text) : NAN;
}

inline reduction::Stamp bench_stamp(const reduction::DeviceInfo& device, const reduction::multi_gpu::Team& team, bool peer_access,
                                    const std::string& timing, int argc, const char* const* argv) {
    reduction::Stamp stamp = reduction::device_stamp(device, argc, argv);
    const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
    stamp.push_back({"gpus", std::to_string(team.size())});
    stamp.push_back({"nccl", reduction::multi_gpu::nccl_version()});
    stamp.push_back({"nccl_nvls_enable", nvls ? nvls : "unset"});
    stamp.push_back({"peer_access", peer_access ? "every pair" : "not every pair (copies go through the host)"});
    if (const char* topo = std::getenv("REDUCTION_TOPOLOGY"); topo && *topo) stamp.push_back({"topology", topo});
    const double link = nvlink_gbps();
    stamp.push_back({"nvlink_gbps", std::isfinite(link) ? reduction::format_number("%.1f", link) : "unknown"});
    stamp.push_back({"timing", timing});
    return stamp;
}

}  // namespace bench_multi_gpu
