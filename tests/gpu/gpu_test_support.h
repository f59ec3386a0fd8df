// Shared by the GPU tests: the seed of a test run, and a way for a test to say it could not run
// (too little memory) so that the binary exits as skipped instead of passed.
#pragma once

#include <cstdint>
#include <string>

namespace reduction::test {

// REDUCTION_TEST_SEED from the environment replays a failure; otherwise a fresh seed every run.
std::uint64_t test_seed();

void mark_skipped(const std::string& reason);
bool skipped_for_resources();
std::string skip_reason();

}  // namespace reduction::test
