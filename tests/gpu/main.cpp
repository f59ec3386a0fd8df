// GPU tests: without a usable CUDA device they exit with 77, which ctest reports as Skipped
// (SKIP_RETURN_CODE), never as passed; so does a run where a case lacked device memory.
#include "../catch_main.h"
#include "gpu_test_support.h"

#include <iostream>

int main(int argc, char* argv[]) {
    const std::string problem = reduction::test::usable_gpu_problem();
    if (!problem.empty()) {
        std::cout << "SKIPPED: " << problem << "; the GPU tests of " REDUCTION_STEP_TAG " need an NVIDIA GPU\n";
        return reduction::test::skipped_exit_code;
    }
    const int failures = Catch::Session().run(argc, argv);
    if (failures == 0 && reduction::test::skipped_for_resources()) {
        std::cout << "SKIPPED: " << reduction::test::skip_reason() << "\n";
        return reduction::test::skipped_exit_code;
    }
    return failures;
}
