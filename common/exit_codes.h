// The exit codes every executable of the course uses.
#pragma once

namespace reduction {

enum ExitCode : int {
    exit_ok = 0,
    exit_wrong_result = 1,   // verification failed
    exit_bad_input = 2,      // unknown flag, malformed value, unreadable --input file
    exit_no_gpu = 3,         // no CUDA device or driver, too little device memory, a CUDA error
    exit_skipped = 77,       // tests only: nothing to test here (the usual "skipped" code for ctest)
};

}  // namespace reduction
