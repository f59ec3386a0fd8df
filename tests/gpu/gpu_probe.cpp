// Says whether a CUDA device can be used, for scripts that must tell "no GPU here" (a skip) from
// "the program failed on the GPU" (a failure): exit 0, or exit 77 and why not (device_info.h's
// words: no driver, a driver too old, or no GPU).
#include "device_info.h"
#include "gpu_test_support.h"

#include <iostream>

int main() {
    const std::string problem = reduction::cuda_device_problem();
    if (!problem.empty()) {
        std::cout << problem << "\n";
        return reduction::test::skipped_exit_code;
    }
    std::cout << "a usable CUDA device\n";
    return 0;
}
