// The command line of a multi-GPU step, and how its main() starts: every option of the other steps
// (common/options.h), plus --gpus K and --from-one-gpu, which are taken out here before the rest
// goes to the course's parser. Started either way:
//   mpirun -np K step13_multi_gpu --n 2^32        one process per GPU
//   step13_multi_gpu --gpus K --n 2^32             one process driving K GPUs
#pragma once

#include "options.h"
#include "team.h"

#include <functional>
#include <vector>

namespace reduction::multi_gpu {

struct MultiFlags {
    int gpus = 0;                   // --gpus K; 0: not given (every visible GPU, or one per MPI rank)
    bool from_one_gpu = false;      // --from-one-gpu: the input starts on GPU 0, sending it out is timed
    std::vector<const char*> rest;  // argv without the two, for parse_options
};

// One run on the GPUs of `team`; returns the exit code.
using MultiGpuRun = std::function<int(Team& team, const reduction::Options& options, const MultiFlags& flags, int argc,
                                      const char* const* argv)>;

// Everything main() does around the run: parses and checks the command line (--help, and a bad one
// is exit 2 on every rank, before MPI starts), then makes the Team, one process driving K GPUs or
// one MPI rank per GPU, and hands it to `run`. `name` and `change` are the step's, for --help and
// the messages.
int run_multi_gpu_main(int argc, char** argv, const char* name, const char* change, const MultiGpuRun& run);

}  // namespace reduction::multi_gpu
