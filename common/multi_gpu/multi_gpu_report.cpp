#include "multi_gpu_report.h"

#include "gate.h"
#include "input.h"
#include "report.h"

#include <cstdlib>
#include <iostream>
#include <string>

namespace reduction::multi_gpu {
namespace {

using reduction::Options;

std::string multi_gpu_timing_text(const Options& options) {
    return "per call: median and min of " + std::to_string(options.iters) +
           " calls queued behind a gate kernel on every GPU, one event pair per GPU each, the slowest GPU's time; batch: "
           "chunks of at most " + std::to_string(reduction::gate_chunk) +
           " calls behind the gates, the slowest GPU's chunk time / count; idle: every GPU (and rank) "
           "synchronised before each call; " + std::to_string(options.warmup) + " warm-up calls first; L2 warm";
}

reduction::Stamp multi_gpu_stamp(const reduction::DeviceInfo& device, const Options& options, const Team& team,
                                 bool from_one_gpu, int argc, const char* const* argv) {
    reduction::Stamp stamp = reduction::make_stamp(device, options, argc, argv);
    for (auto& [key, value] : stamp)
        if (key == "timing") value = multi_gpu_timing_text(options);
    const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
    stamp.push_back({"gpus", std::to_string(team.size())});
    stamp.push_back({"launch", team.mpi() ? "one MPI rank per GPU" : "one process driving every GPU"});
    stamp.push_back({"from_one_gpu", from_one_gpu ? "yes" : "no"});
    stamp.push_back({"nccl", nccl_version()});
    stamp.push_back({"nccl_nvls_enable", nvls ? nvls : "unset"});
    return stamp;
}

void print_text(const reduction::Measurement& m, const reduction::DeviceInfo& device, const Options& options,
                const Team& team, const MultiGpuRunShape& shape) {
    const int gpus = team.size();
    reduction::DeviceInfo all = device;  // the K GPUs seen as one: their peaks add up
    all.name = std::to_string(gpus) + " x " + device.name;
    all.peak_gbps = m.peak_gbps;
    reduction::print_text(std::cout, m, all, reduction::input_description(options));
    const std::size_t largest = shape.largest_shard;
    std::cout << "  gpus       " << gpus << (team.mpi() ? " MPI ranks, one GPU each" : " GPUs driven by one process")
              << "; shards of " << largest << (shape.n % gpus ? " or " + std::to_string(largest - 1) : std::string())
              << " elements; combine: one ncclAllReduce of one element (NCCL " << nccl_version() << ")"
              << (shape.from_one_gpu ? "; the input starts on GPU 0 and its shards are sent out in every call" : "")
              << "\n";
    if (gpus == 1)
        std::cout << "  note       one GPU only: K = 1, the all-reduce hands the partial back; "
                     "run with --gpus K or mpirun -np K for more\n";
}

}  // namespace

void print_multi_gpu(const reduction::Measurement& m, const reduction::DeviceInfo& device, const Options& options,
                     const Team& team, const MultiGpuRunShape& shape, int argc, const char* const* argv) {
    const reduction::Stamp stamp = multi_gpu_stamp(device, options, team, shape.from_one_gpu, argc, argv);
    switch (options.format) {
        case reduction::OutputFormat::text: print_text(m, device, options, team, shape); break;
        case reduction::OutputFormat::csv:
            std::cout << reduction::stamp_lines(stamp) << reduction::csv_header() << ",gpus,launch,from_one_gpu\n"
                      << reduction::csv_row(m) << "," << team.size() << "," << team.launch_name() << ","
                      << (shape.from_one_gpu ? 1 : 0) << "\n";
            break;
        case reduction::OutputFormat::json: std::cout << reduction::json_document(stamp, {m}) << "\n"; break;
    }
}

}  // namespace reduction::multi_gpu
