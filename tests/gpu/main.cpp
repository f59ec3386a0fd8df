// GPU tests: without a usable CUDA device they exit with 77, which ctest reports as Skipped
// (SKIP_RETURN_CODE), never as passed; so does a run where a case lacked device memory.
// Compiled once and linked into every GPU test program (Catch2's runner is slow to compile), so it
// names the program from argv[0], not from a per-step macro.
#include "../catch_main.h"
#include "gpu_test_support.h"

#include <filesystem>
#include <iostream>
#include <string>

namespace {
// Listing the cases or printing the help needs no GPU.
bool only_lists(int argc, char* argv[]) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("--list", 0) == 0 || arg == "-l" || arg == "-h" || arg == "--help" || arg == "-?") return true;
    }
    return false;
}
}  // namespace

int main(int argc, char* argv[]) {
    if (only_lists(argc, argv)) return Catch::Session().run(argc, argv);
    const std::string problem = reduction::test::usable_gpu_problem();
    if (!problem.empty()) {
        std::cout << "SKIPPED: " << problem << "; " << std::filesystem::path(argv[0]).filename().string()
                  << " needs an NVIDIA GPU\n";
        return reduction::test::skipped_exit_code;
    }
    const int failures = Catch::Session().run(argc, argv);
    if (failures == 0 && reduction::test::skipped_for_resources()) {
        std::cout << "SKIPPED: " << reduction::test::skip_reason() << "\n";
        return reduction::test::skipped_exit_code;
    }
    return failures;
}
