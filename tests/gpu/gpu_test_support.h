// What the GPU tests need from the harness, in one place: input, reference and verdict, running a
// step twice, device memory, the seed, and a way for a case to say it could not run (too little
// memory) so that the binary exits as skipped instead of passed.
//
// The test body (step_tests.cpp) reaches common/ only through this header, so a change in the
// harness's interfaces is adapted here once.
#pragma once

#include "device_buffer.h"
#include "hang_guard.h"
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
// (a kernel whose loop never reaches n, e.g. a 32-bit index that wraps before 2^32 + 17): for a
// case whose hang deserves its own explanation; every other wait is guarded by a HangGuard.
bool finishes_within(double seconds);

// Fills all the shared memory of every SM with 0x7F bytes, queued on `stream`: where the GPU keeps
// them, the next kernel finds them in any slot it reads without writing (dirty_shared_memory.cu).
void dirty_shared_memory(cudaStream_t stream);

// The bytes of `value` in hex, e.g. "0x3f800000" for 1.0f: what "bit-identical" compares.
std::string hex_bytes(const void* value, std::size_t size);

// The parameters of each kernel node of a captured graph, which it then destroys.
std::vector<cudaKernelNodeParams> kernel_nodes(cudaGraph_t graph);

// A value printed exactly (every digit a float needs to round-trip) and with its bytes.
template <class T>
std::string exact_value(T value);

template <class T>
bool same_bytes(const T& a, const T& b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// The harness's generated input (pattern, seed), written by the GPU from element `offset` of
// `device` on; every other element of `device` is 0x7F bytes, a huge value for every type, so a
// kernel that reads outside [offset, offset + n) adds it and fails. Returns the input's reference,
// regenerated on the host from the same formula while the GPU writes: no host array of n elements,
// and nothing read back from the GPU.
template <class T>
Reference upload_generated(DeviceBuffer<T>& device, std::size_t offset, std::size_t n, Pattern pattern,
                           std::uint64_t seed) {
    CUDA_CHECK(cudaMemset(device.get(), 0x7F, device.bytes()));
    fill_input(device.get() + offset, 0, n, pattern, seed, cudaStream_t{});
    const Reference reference = generated_reference<T>(n, pattern, seed);
    CUDA_CHECK(cudaStreamSynchronize(cudaStream_t{}));
    return reference;
}

// The step run twice on the same input, each time into an output first filled with 0xFF bytes:
// the order of additions is fixed in every step, so the two results must be bit-identical.
template <class T>
struct TwoRuns {
    T first;
    T second;
    bool identical() const { return same_bytes(first, second); }
};

// `what` names the case if it hangs (hang_guard.h).
template <class T>
TwoRuns<T> run_twice(const StepApi& step, const T* device_input, std::size_t n, int block, const std::string& what) {
    StepRun<T> run(step, device_input, n, block, typed<T>(step).scratch_bytes(n, block));
    const HangGuard guard(what, n * sizeof(T));
    const T first = run.run_once();
    const T second = run.run_once();
    return {first, second};
}

// A stream of our own, created non-blocking: it does not wait for the legacy default stream, nor
// it for this one, so a step that launches on stream 0 instead of the stream it is given runs
// outside the order the caller asked for.
class NonBlockingStream {
public:
    NonBlockingStream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
    ~NonBlockingStream() { cudaStreamDestroy(stream_); }
    NonBlockingStream(const NonBlockingStream&) = delete;
    NonBlockingStream& operator=(const NonBlockingStream&) = delete;
    operator cudaStream_t() const { return stream_; }

private:
    cudaStream_t stream_ = nullptr;
};

// Scratch bytes of the step for n elements of T and this block size.
template <class T>
std::size_t scratch_bytes(const StepApi& step, std::size_t n, int block) {
    return typed<T>(step).scratch_bytes(n, block);
}

}  // namespace reduction::test

// `const std::uint64_t name`: the test's seed (test_seed), and the line that replays it, shown with every failure
// in the enclosing scope (Catch2's INFO: for the test files, which include catch.h).
#define REDUCTION_TEST_SEED(name)                                                                              \
    const std::uint64_t name = ::reduction::test::test_seed();                                                \
    INFO("seed " << name << " (replay with REDUCTION_TEST_SEED=" << name << ")")

// A test case that runs check<T>(seed) for each element type T that for_each gives (each_type.h:
// test::for_each_type or test::for_each_float_type), all of them on one seed (REDUCTION_TEST_SEED).
#define REDUCTION_SEEDED_TEST_CASE(name, tags, for_each, check)                                                \
    TEST_CASE(name, tags) {                                                                                    \
        REDUCTION_TEST_SEED(seed);                                                                             \
        for_each([seed](auto zero) { check<decltype(zero)>(seed); });                                          \
    }
