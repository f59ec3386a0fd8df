#include "multi_gpu_cli.h"

#include "exit_codes.h"
#include "input.h"

#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

namespace reduction::multi_gpu {
namespace {

using reduction::Options;
using reduction::UsageError;

MultiFlags take_multi_gpu_flags(int argc, char** argv) {
    MultiFlags flags;
    flags.rest.push_back(argv[0]);
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--from-one-gpu") {
            flags.from_one_gpu = true;
        } else if (flag == "--gpus") {
            if (i + 1 >= argc) throw UsageError("--gpus needs a value: the number of GPUs; see --help");
            const std::string text = argv[++i];
            const bool digits = !text.empty() && text.size() <= 4 && text.find_first_not_of("0123456789") == std::string::npos;
            flags.gpus = digits ? std::atoi(text.c_str()) : 0;
            if (flags.gpus < 1)
                throw UsageError("--gpus: '" + text + "' is not accepted; expected a number of GPUs from 1 to those present");
        } else {
            flags.rest.push_back(argv[i]);
        }
    }
    return flags;
}

std::string usage_text(const char* program, const char* name, const char* change) {
    return std::string(name) + ": " + change + "\n" + reduction::usage(program, reduction::Tool::step) +
           "\nmulti-GPU options:\n"
           "  --gpus K         one process drives GPUs 0 .. K-1 (default: every GPU it sees); not under mpirun\n"
           "  --from-one-gpu   the input starts on GPU 0; sending the shards to the other GPUs is timed too\n\n"
           "one process per GPU:  mpirun -np K [-x NCCL_NVLS_ENABLE] " + program + " [options]\n";
}

// What the command line asks that this program cannot do: the same answer on every rank, given
// before MPI starts, so a bad command line is exit 2 everywhere with no abort.
void check_request(const MultiFlags& flags, const Options& options, const std::string& name) {
    if (launched_by_mpi() && flags.gpus > 0)
        throw UsageError("--gpus " + std::to_string(flags.gpus) +
                         " drives K GPUs from one process, but this process was started by mpirun, which runs one "
                         "process per GPU: drop --gpus, or run without mpirun");
#if !defined(REDUCTION_WITH_MPI)
    if (launched_by_mpi())
        throw UsageError("this build of " + name + " has no MPI (CMake did not find it): run it without mpirun, "
                         "with --gpus K");
#endif
    if (options.device != 0)
        throw UsageError("--device: " + name + " uses GPUs 0 .. K-1 (--gpus K), or one per MPI rank");
    if (options.flush_l2)
        throw UsageError("--flush-l2 is not supported by " + name + ": its timing is of warm caches on every GPU");
}

}  // namespace

int run_multi_gpu_main(int argc, char** argv, const char* name, const char* change, const MultiGpuRun& run) {
    using reduction::exit_ok;
    MultiFlags flags;
    Options options;
    bool proceed = false;
    const int checked = reduction::run_guarded([&] {
        flags = take_multi_gpu_flags(argc, argv);
        options = reduction::parse_options(static_cast<int>(flags.rest.size()), flags.rest.data(), reduction::Tool::step);
        if (options.help) {
            std::cout << usage_text(argv[0], name, change);
            return static_cast<int>(exit_ok);
        }
        check_request(flags, options, name);
        if (options.input_path.empty() && !options.seed) options.seed = reduction::fresh_seed();  // printed, for replay
        proceed = true;
        return static_cast<int>(exit_ok);
    });
    if (!proceed) return checked;

#if defined(REDUCTION_WITH_MPI)
    if (launched_by_mpi()) {
        MpiSession mpi(&argc, &argv);
        const int code = reduction::run_guarded([&] {
            const std::unique_ptr<Team> team = Team::from_mpi();
            return run(*team, options, flags, argc, argv);
        });
        // A wrong result is known to every rank (they agree on the verdict); anything else may be
        // one rank's alone, and the others would wait for it: end them all.
        if (code != exit_ok && code != reduction::exit_wrong_result) mpi.fail(code);
        return code;
    }
#endif
    return reduction::run_guarded([&] {
        const int gpus = flags.gpus > 0 ? flags.gpus : visible_gpus();
        const std::unique_ptr<Team> team = Team::local(gpus);
        return run(*team, options, flags, argc, argv);
    });
}

}  // namespace reduction::multi_gpu
