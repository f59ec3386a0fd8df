// What the GPU tests need from the harness, in one place: input, reference and verdict, running a
// step twice, device memory, the seed, and a way for a case to say it could not run (too little
// memory) so that the binary exits as skipped instead of passed.
//
// The test body (step_tests.cpp) reaches common/ only through this header, so a change in the
// harness's interfaces is adapted here once.
#pragma once

#include "device_buffer.h"
#include "input.h"
#include "measure.h"
#include "reference.h"
#include "step_api.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace reduction::test {

// The exit code ctest reports as Skipped (SKIP_RETURN_CODE 77): never counted as a pass.
inline constexpr int skipped_exit_code = 77;

// Empty when a CUDA device can be used; otherwise why not, in one line.
std::string usable_gpu_problem();

// REDUCTION_TEST_SEED from the environment replays a failure; otherwise a fresh seed every run.
std::uint64_t test_seed();

void mark_skipped(const std::string& reason);
bool skipped_for_resources();
std::string skip_reason();

std::size_t free_device_bytes();

// Waits for everything queued on the default stream; false if it has not finished after `seconds`
// (a kernel whose loop never reaches n, e.g. a 32-bit index that wraps before 2^32 + 17).
bool finishes_within(double seconds);

// The bytes of `value` in hex, e.g. "0x3f800000" for 1.0f: what "bit-identical" compares.
std::string hex_bytes(const void* value, std::size_t size);

// A value printed exactly (every digit a float needs to round-trip) and with its bytes.
template <class T>
std::string exact_value(T value);

template <class T>
bool same_bytes(const T& a, const T& b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// The harness's generated input and CPU verdict, for the types the harness knows.
template <class T>
std::vector<T> make_input(std::size_t n, Pattern pattern, std::uint64_t seed) {
    return generate_input<T>(n, pattern, seed);
}

template <class T>
Verdict verdict_for(T result, const std::vector<T>& values, std::size_t depth) {
    return verify(result, compute_reference(values), depth);
}

// Fills all of `device` with 0x7F bytes (a huge value for every type: a kernel that reads outside
// [offset, offset + n) adds it and fails), then copies `values` to element `offset`.
template <class T>
void upload_poisoned(DeviceBuffer<T>& device, std::size_t offset, const std::vector<T>& values) {
    CUDA_CHECK(cudaMemset(device.get(), 0x7F, device.bytes()));
    CUDA_CHECK(cudaMemcpy(device.get() + offset, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice));
}

// The step run twice on the same input, each time into an output first filled with 0xFF bytes:
// the order of additions is fixed in every step, so the two results must be bit-identical.
template <class T>
struct TwoRuns {
    T first;
    T second;
    bool identical() const { return same_bytes(first, second); }
};

template <class T>
TwoRuns<T> run_twice(const StepApi& step, const T* device_input, std::size_t n, int block) {
    StepRun<T> run(step, device_input, n, block);
    const T first = run.run_once(cudaStream_t{});
    const T second = run.run_once(cudaStream_t{});
    return {first, second};
}

// Scratch bytes of the step for n elements of T and this block size.
template <class T>
std::size_t scratch_bytes(const StepApi& step, std::size_t n, int block) {
    return step.scratch_bytes(element_type_of<T>(), n, block);
}

}  // namespace reduction::test
