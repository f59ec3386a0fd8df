#include "run_multi_gpu.h"
#include "report.h"
#include <algorithm>
#include <cstdlib>

namespace reduction::multi_gpu {

int run_multi_gpu_main(int argc, char** argv, const char* name, const char* change, const MultiGpuRun& run) {
    Options options;
    constexpr int proceed = -1;  // the command line asks for a run
    const int checked = run_guarded([&] {
        options = parse_options(argc, argv, Tool::multi_gpu);
        if (options.help) {
            std::cout << name << ": " << change << "\n" << usage(argv[0], Tool::multi_gpu);
            return static_cast<int>(exit_ok);
        }
        // What this program cannot do: the same answer on every rank, before MPI starts, so exit 2 with no abort.
        if (launched_by_mpi() && options.gpus > 0)
            throw UsageError("--gpus " + std::to_string(options.gpus) +
                             " drives K GPUs from one process, but this process was started by mpirun, which runs one "
                             "process per GPU: drop --gpus, or run without mpirun");
#if !defined(REDUCTION_WITH_MPI)
        if (launched_by_mpi())
            throw UsageError(std::string("this build of ") + name +
                             " has no MPI (CMake did not find it): run it without mpirun, with --gpus K");
#endif
        if (options.device != 0)
            throw UsageError(std::string("--device: ") + name + " uses GPUs 0 .. K-1 (--gpus K), or one per MPI rank");
        if (options.measure.flush_l2)
            throw UsageError(std::string("--flush-l2 is not supported by ") + name +
                             ": its timing is of warm caches on every GPU");
        draw_seed(options.input);
        return proceed;
    });
    if (checked != proceed) return checked;
#if defined(REDUCTION_WITH_MPI)
    if (launched_by_mpi()) {
        MPI_Init(&argc, &argv);  // before it, no error handler can be set: a failure here is fatal by default
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);  // MPI_CHECK reports the errors
        const int code = run_guarded([&] { return run(*Team::from_mpi(), options, argc, argv); });
        // Every rank agrees on a wrong result; anything else may be one rank's alone: end them all, mpirun exits with code.
        if (code != exit_ok && code != exit_wrong_result) MPI_Abort(MPI_COMM_WORLD, code);
        MPI_Finalize();
        return code;
    }
#endif
    return run_guarded([&] { return run(*Team::local(options.gpus), options, argc, argv); });
}

namespace {
// "262145 or 262144": the distinct sizes of the shards, largest first.
std::string shard_sizes_text(std::vector<std::size_t> counts) {
    std::sort(counts.rbegin(), counts.rend());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    std::string text;
    for (std::size_t count : counts) text += (text.empty() ? "" : " or ") + std::to_string(count);
    return text;
}
}  // namespace

void print_multi_gpu(const Measurement& m, const DeviceInfo& device, const Options& options, const Team& team,
                     const std::vector<std::size_t>& shard_counts, int argc, const char* const* argv) {
    const int gpus = team.size();
    Stamp stamp = make_stamp(device, options.input, options.measure, argc, argv);
    stamp_value(stamp, "timing") = "per call: median and min of " + std::to_string(options.measure.iters) +
        " calls queued behind a gate kernel on every GPU, one event pair per GPU each, the slowest GPU's time; batch: "
        "chunks of at most " + std::to_string(gate_chunk) + " calls behind the gates, the slowest GPU's chunk time / "
        "count; idle: every GPU (and rank) synchronised before each call; " + std::to_string(options.measure.warmup) +
        " warm-up calls first; L2 warm";
    const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
    stamp.insert(stamp.end(), {{"gpus", std::to_string(gpus)},
                               {"launch", team.mpi() ? "one MPI rank per GPU" : "one process driving every GPU"},
                               {"from_one_gpu", options.from_one_gpu ? "yes" : "no"}, {"nccl", nccl_version()},
                               {"nccl_nvls_enable", nvls ? nvls : "unset"}});
    switch (options.format) {
        case OutputFormat::text: {
            DeviceInfo all = device;  // the K GPUs seen as one: their peaks add up
            all.name = std::to_string(gpus) + " x " + device.name;
            all.peak_gbps = m.peak_gbps;
            print_text(std::cout, m, all, input_description(stamp));
            std::cout << "  gpus       " << gpus << (team.mpi() ? " MPI ranks, one GPU each" : " GPUs driven by one process")
                      << "; shards of " << shard_sizes_text(shard_counts) << " elements; combine: one ncclAllReduce of the partials (NCCL " << nccl_version() << ")"
                      << (options.from_one_gpu ? "; the input starts on GPU 0 and its shards are sent out in every call\n" : "\n");
            if (gpus == 1)
                std::cout << "  note       one GPU only: K = 1, the all-reduce hands the partial back; "
                             "run with --gpus K or mpirun -np K for more\n";
            break;
        }
        case OutputFormat::csv:
            std::cout << stamp_lines(stamp) << csv_header() << ",gpus,launch,from_one_gpu\n" << csv_row(m) << "," << gpus
                      << "," << (team.mpi() ? "mpi" : "process") << "," << (options.from_one_gpu ? 1 : 0) << "\n";
            break;
        case OutputFormat::json: std::cout << json_document(stamp, {m}) << "\n"; break;
    }
}

}  // namespace reduction::multi_gpu
