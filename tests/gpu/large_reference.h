// The input of the large tests (n = 2^31 + 17 random int32 and float32, generated on the GPU) and its
// host reference. Each reference takes seconds of every core; the large tests of all steps read the
// same input, so under ctest the fixture `large_reference` (tests/gpu/large_reference_main.cpp) computes
// it once per run, with a fresh seed, into the file that REDUCTION_LARGE_REFERENCE names.
#pragma once

#include "reference.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace reduction::test {

inline constexpr std::size_t large_n = (std::size_t{1} << 31) + 17;

struct LargeInput {
    std::uint64_t seed = 0;  // of the generated input (Pattern::random)
    Reference reference;
};

// The seed and reference of the run, from the file REDUCTION_LARGE_REFERENCE names; none without that
// variable (the test program run by hand: it computes its own), nor, with a line that says why, when the
// file cannot be read whole.
template <class T>
std::optional<LargeInput> stored_large_input();

// Computes both references for `seed` and writes them to `path` (through a temporary file renamed into
// place, so that a reader never finds half a file); false, with `error` set, if the file cannot be written.
bool write_large_references(const std::string& path, std::uint64_t seed, std::string& error);

}  // namespace reduction::test
