// The fixture of the large tests (ctest's large_reference): the reference of their input computed once
// per run and written to the file given, which each gpu_stepNN_large then reads (large_reference.h).
// Exit 77 (Skipped) without a usable GPU: there is no large test to serve.
#include "gpu_test_support.h"
#include "large_reference.h"

#include <iostream>
#include <string>

int main(int argc, char* argv[]) {
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " FILE\n";
        return 2;
    }
    const std::string problem = reduction::test::usable_gpu_problem();
    if (!problem.empty()) {
        std::cout << "SKIPPED: " << problem << "; the large tests need an NVIDIA GPU\n";
        return reduction::test::skipped_exit_code;
    }
    const std::uint64_t seed = reduction::test::test_seed();
    std::string error;
    if (!reduction::test::write_large_references(argv[1], seed, error)) {
        std::cerr << "large_reference: " << error << "\n";
        return 1;
    }
    std::cout << "the large tests' input: n = 2^31 + 17, seed " << seed << " (replay with REDUCTION_TEST_SEED=" << seed
              << "); its int32 and float32 references in " << argv[1] << "\n";
    return 0;
}
