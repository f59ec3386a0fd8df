// The GPU tests of one step (step_under_test.h says which): every case is compared with the CPU
// reference and run twice, and the two results must be bit-identical, because each step adds in
// an order fixed by n and the block size: a race between threads shows as a difference even
// when both results happen to be within the floating-point tolerance.
//
// A failure names the step, type, n, block size, input pattern and seed, what was expected and
// what the GPU returned; REDUCTION_TEST_SEED=<seed> replays the same input.
#include "../catch.h"
#include "../each_type.h"
#include "gpu_test_support.h"
#include "large_reference.h"
#include "step_under_test.h"

#include "timer.h"

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#ifndef REDUCTION_STEP_TAG
#error "compile with REDUCTION_STEP_TAG, e.g. \"step04\" (see step_tests.cmake)"
#endif

namespace {

using namespace reduction;
using test::step_under_test;

const std::size_t sizes[] = {1,    2,    3,    31,    32,    33,    255,     256,        257,           1000,
                             1023, 1024, 1025, 4097,  65535, 65537, 1000003, std::size_t{1} << 24, (std::size_t{1} << 24) + 1};
const int blocks[] = {32, 64, 128, 256, 512, 1024};
const Pattern patterns[] = {Pattern::random, Pattern::ones, Pattern::index, Pattern::alternating};
constexpr std::size_t poisoned_tail = 1024;  // elements after the input, filled with a huge value
constexpr int failures_printed = 10;         // per check: enough to see a pattern, not a flood

template <class T>
const char* type_label() {
    if constexpr (sizeof(T) == 1) return "uint8";
    else return type_name(element_type_of<T>());
}

// Where one result came from: everything a student needs to reproduce it.
struct CaseInfo {
    std::size_t n = 0;
    int block = 0;
    std::string pattern;
    std::uint64_t seed = 0;
    std::size_t offset = 0;  // elements between an aligned allocation and the input pointer
};

template <class T>
std::string describe(const CaseInfo& c) {
    std::ostringstream out;
    out << step_under_test().name << " " << type_label<T>() << " n=" << c.n << " block=" << c.block
        << " pattern=" << c.pattern << " seed=" << c.seed;
    if (c.offset != 0) out << " input offset=" << c.offset << " elements";
    return out.str();
}

std::string wrong_result(const std::string& where, const Verdict& v) {
    std::ostringstream out;
    out << where << ": got " << v.result << ", expected " << v.expected << " (error " << v.error << ", tolerance "
        << v.tolerance << ")";
    if (!v.note.empty()) out << ": " << v.note;
    return out.str();
}

template <class T>
std::string not_repeatable(const std::string& where, T first, T second) {
    return where + ": the same call twice gave " + test::exact_value(first) + " then " + test::exact_value(second) +
           ". The order of additions is fixed, so a difference means threads raced: a missing __syncthreads() or "
           "__syncwarp(), or a read of memory another thread is still writing.";
}

// Counts failures of one check and prints the first few in full.
class FailureLog {
public:
    void fail(const std::string& message) {
        if (++failed_ <= failures_printed) FAIL_CHECK(message);
    }
    void count() { ++checked_; }
    void summarise(const std::string& what) const {
        INFO(what << ": " << failed_ << " of " << checked_ << " cases failed"
                  << (failed_ > failures_printed ? " (the first " + std::to_string(failures_printed) + " are shown)" : ""));
        CHECK(failed_ == 0);
    }

private:
    int failed_ = 0;
    int checked_ = 0;
};

// Runs the step twice on input already on the device and checks both results.
template <class T>
void check_case(const CaseInfo& c, const T* device_input, const Reference& reference, FailureLog& log) {
    const StepApi& step = step_under_test();
    const test::TwoRuns<T> runs = test::run_twice(step, device_input, c.n, c.block, describe<T>(c));
    const Verdict v = verify(runs.first, reference, step.addition_depth(c.n, c.block));
    log.count();
    if (!v.pass) log.fail(wrong_result(describe<T>(c), v));
    else if (!runs.identical()) log.fail(not_repeatable(describe<T>(c), runs.first, runs.second));
}

template <class T>
void check_matrix(std::uint64_t seed) {
    DeviceBuffer<T> device(sizes[std::size(sizes) - 1] + poisoned_tail);
    FailureLog log;
    for (std::size_t n : sizes) {
        for (Pattern pattern : patterns) {
            const Reference reference = test::upload_generated(device, 0, n, pattern, seed);
            for (int block : blocks) check_case<T>({n, block, pattern_name(pattern), seed, 0}, device.get(), reference, log);
        }
    }
    log.summarise(std::string(step_under_test().name) + " " + type_label<T>() + " matrix");
}

// The input pointer 1, 2 and 3 elements past an aligned allocation, with poison on both sides:
// a kernel that assumes alignment, or reads before its first element, fails here.
template <class T>
void check_offsets(std::uint64_t seed) {
    const std::size_t offset_sizes[] = {1, 33, 1025, 65537, 1000003};
    const int offset_blocks[] = {64, 256};
    DeviceBuffer<T> device(offset_sizes[std::size(offset_sizes) - 1] + 3 + poisoned_tail);
    FailureLog log;
    for (std::size_t n : offset_sizes) {
        for (std::size_t offset : {1, 2, 3}) {
            const Reference reference = test::upload_generated(device, offset, n, Pattern::random, seed);
            for (int block : offset_blocks)
                check_case<T>({n, block, "random", seed, offset}, device.get() + offset, reference, log);
        }
    }
    log.summarise(std::string(step_under_test().name) + " " + type_label<T>() + " offset inputs");
}

// One-byte elements summed modulo 256, with random bytes: the instantiation the 2^32 case uses.
std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 generator(seed);
    std::vector<std::uint8_t> bytes(n);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(generator() >> 56);
    return bytes;
}

std::uint8_t run_uint8(const std::uint8_t* device_input, std::size_t n, int block, DeviceBuffer<std::uint8_t>& out) {
    DeviceBuffer<std::uint8_t> scratch(test::step_scratch_bytes_uint8(n, block));
    if (scratch.bytes() > 0) CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));  // step_api.h's contract
    CUDA_CHECK(cudaMemset(out.get(), 0xFF, 1));
    test::step_reduce_uint8()(device_input, n, out.get(), scratch.get(), block, cudaStream_t{});
    const double hang_seconds = test::hang_bound_seconds(n);
    if (!test::finishes_within(hang_seconds)) {
        // the kernel still runs and cannot be stopped: report, and end the process, which frees the GPU
        std::cout << step_under_test().name << " uint8 n=" << n << " block=" << block << ": the reduction has not "
                  << "finished after " << hang_seconds << " s. A loop whose index is 32-bit never reaches an n past "
                  << "2^32: the index wraps to 0 and the loop starts again. Every index must be std::size_t."
                  << std::endl;
        std::_Exit(1);
    }
    std::uint8_t result = 0;
    CUDA_CHECK(cudaMemcpy(&result, out.get(), 1, cudaMemcpyDeviceToHost));
    return result;
}

void check_uint8_small(std::uint64_t seed, const std::vector<std::size_t>& uint8_sizes, const std::vector<int>& uint8_blocks) {
    DeviceBuffer<std::uint8_t> out(1);
    FailureLog log;
    for (std::size_t n : uint8_sizes) {
        const std::vector<std::uint8_t> values = random_bytes(n, seed);
        std::uint8_t expected = 0;
        for (std::uint8_t v : values) expected = static_cast<std::uint8_t>(expected + v);  // modulo 256
        DeviceBuffer<std::uint8_t> device(n + poisoned_tail);
        CUDA_CHECK(cudaMemset(device.get(), 0x7F, device.bytes()));
        CUDA_CHECK(cudaMemcpy(device.get(), values.data(), n, cudaMemcpyHostToDevice));
        for (int block : uint8_blocks) {
            const CaseInfo c{n, block, "random bytes", seed, 0};
            const std::uint8_t first = run_uint8(device.get(), n, block, out);
            const std::uint8_t second = run_uint8(device.get(), n, block, out);
            log.count();
            if (first != expected)
                log.fail(describe<std::uint8_t>(c) + ": got " + test::exact_value(first) + ", expected " +
                         test::exact_value(expected) + " (the sum modulo 256)");
            else if (second != first) log.fail(not_repeatable(describe<std::uint8_t>(c), first, second));
        }
    }
    log.summarise(std::string(step_under_test().name) + " uint8");
}

// 2^32 + 17 one-byte elements, zero except a few markers whose total (43) is below 256, so every
// marker that is skipped, or read from a wrapped index where the input is zero, lowers the sum:
//   - 3, 5, 7 at 2^31 - 1, 2^31, 2^31 + 1, where a signed 32-bit index turns negative;
//   - 11 at 2^32 - 1, the last element an unsigned 32-bit index reaches;
//   - 1 at each of the 17 elements past 2^32, which a wrapping index reads as in[0..17), all zero;
// and a count truncated to 32 bits (17) sums in[0..17): 0.
void check_past_2_32_uint8() {
    const std::size_t n = (std::size_t{1} << 32) + 17;
    const int block = 256;
    const std::size_t needed = n + test::step_scratch_bytes_uint8(n, block) + 1;
    const std::size_t free_bytes = test::free_device_bytes();
    const CaseInfo c{n, block, "zeros with markers at 2^31 +- 1, 2^32 - 1 and past 2^32", 0, 0};
    if (free_bytes < needed) {
        test::mark_skipped(describe<std::uint8_t>(c) + " needs " + std::to_string(needed) + " bytes of device memory, " +
                           std::to_string(free_bytes) + " free");
        return;
    }
    DeviceBuffer<std::uint8_t> device(n);
    CUDA_CHECK(cudaMemset(device.get(), 0, n));
    const auto put = [&](std::size_t index, std::uint8_t value) {
        CUDA_CHECK(cudaMemcpy(device.get() + index, &value, 1, cudaMemcpyHostToDevice));
    };
    const std::size_t two_31 = std::size_t{1} << 31, two_32 = std::size_t{1} << 32;
    put(two_31 - 1, 3);
    put(two_31, 5);
    put(two_31 + 1, 7);
    put(two_32 - 1, 11);
    for (std::size_t i = two_32; i < n; ++i) put(i, 1);
    const std::uint8_t expected = 3 + 5 + 7 + 11 + 17;

    DeviceBuffer<std::uint8_t> out(1);
    const std::uint8_t first = run_uint8(device.get(), n, block, out);
    const std::uint8_t second = run_uint8(device.get(), n, block, out);
    INFO(describe<std::uint8_t>(c) << ": got " << test::exact_value(first) << ", expected "
                                   << test::exact_value(expected)
                                   << ". A smaller sum means elements past 2^31 or 2^32 were skipped or read from a "
                                      "wrapped index: every index and count must be 64-bit (std::size_t).");
    CHECK(first == expected);
    CHECK(test::same_bytes(first, second));
}

// n = 2^31 + 17 of int32 or float32 (8 GiB): random values, where a signed 32-bit index overflows. The seed
// and reference are the run's (large_reference.h) when ctest's fixture computed them, else computed here.
template <class T>
void check_past_2_31(std::uint64_t fresh_seed) {
    const StepApi& step = step_under_test();
    const std::size_t n = test::large_n;
    const int block = 256;
    const std::optional<test::LargeInput> stored = test::stored_large_input<T>();
    const std::uint64_t seed = stored ? stored->seed : fresh_seed;
    INFO("seed " << seed << " (replay with REDUCTION_TEST_SEED=" << seed << ")");
    const CaseInfo c{n, block, "random", seed, 0};
    const std::size_t needed = n * sizeof(T) + test::scratch_bytes<T>(step, n, block) + sizeof(T);
    const std::size_t free_bytes = test::free_device_bytes();
    if (free_bytes < needed) {
        test::mark_skipped(describe<T>(c) + " needs " + std::to_string(needed) + " bytes of device memory, " +
                           std::to_string(free_bytes) + " free");
        return;
    }
    // written by the GPU, its reference regenerated on the host: no 8 GiB host array, no 8 GiB copy
    DeviceBuffer<T> device(n);
    fill_input(device.get(), 0, n, Pattern::random, seed, cudaStream_t{});
    const Reference reference =
        stored ? stored->reference : generated_reference<T>(n, Pattern::random, seed);  // while the GPU fills
    CUDA_CHECK(cudaStreamSynchronize(cudaStream_t{}));
    FailureLog log;
    check_case<T>(c, device.get(), reference, log);
    log.summarise(describe<T>(c));
}

// Many calls queued back to back on one input, with no synchronisation between them, each into
// its own output: all must equal the first, bit for bit.
template <class T>
void check_back_to_back_calls(std::uint64_t seed) {
    const StepApi& step = step_under_test();
    const std::size_t n = (std::size_t{1} << 20) + 3;
    const int block = 256;
    const int calls = 1000;
    const CaseInfo c{n, block, "random", seed, 0};
    DeviceBuffer<T> device(n + poisoned_tail);
    const Reference reference = test::upload_generated(device, 0, n, Pattern::random, seed);
    DeviceBuffer<unsigned char> scratch(test::scratch_bytes<T>(step, n, block));
    if (scratch.bytes() > 0) CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));  // step_api.h's contract
    DeviceBuffer<T> outputs(calls);
    CUDA_CHECK(cudaMemset(outputs.get(), 0xFF, outputs.bytes()));
    std::vector<T> results(calls);
    {
        const test::HangGuard guard(describe<T>(c) + ", " + std::to_string(calls) + " calls back to back",
                                    calls * n * sizeof(T));
        for (int k = 0; k < calls; ++k)
            typed<T>(step).reduce(device.get(), n, outputs.get() + k, reinterpret_cast<T*>(scratch.get()), block,
                                  cudaStream_t{});
        CUDA_CHECK(cudaMemcpy(results.data(), outputs.get(), outputs.bytes(), cudaMemcpyDeviceToHost));
    }

    const Verdict v = verify(results[0], reference, step.addition_depth(n, block));
    INFO(wrong_result(describe<T>(c) + ", first of " + std::to_string(calls) + " calls", v));
    CHECK(v.pass);
    int differing = 0;
    for (int k = 1; k < calls; ++k) {
        if (test::same_bytes(results[k], results[0])) continue;
        if (++differing <= failures_printed)
            FAIL_CHECK(not_repeatable(describe<T>(c) + ", call " + std::to_string(k + 1) + " of " + std::to_string(calls),
                                      results[0], results[k]));
    }
    INFO(differing << " of " << calls - 1 << " later calls differ from the first");
    CHECK(differing == 0);
}

// One scratch, then another input: whatever a call leaves in the scratch (a counter, partials
// marked as posted) must not leak into the next call's result. Runs with the same input could not
// tell: stale partials of the same input are the right ones.
template <class T>
void check_scratch_reuse(std::uint64_t seed) {
    const StepApi& step = step_under_test();
    const std::size_t reuse_sizes[] = {1, 1025, 1000003, (std::size_t{1} << 22) + 5};
    DeviceBuffer<T> device(reuse_sizes[std::size(reuse_sizes) - 1] + poisoned_tail);
    FailureLog log;
    for (std::size_t n : reuse_sizes) {
        for (int block : {64, 256}) {
            StepRun<T> run(step, device.get(), n, block, test::scratch_bytes<T>(step, n, block));
            for (std::uint64_t input = 0; input < 2; ++input) {
                const Reference reference = test::upload_generated(device, 0, n, Pattern::random, seed + input);
                const test::HangGuard guard(describe<T>({n, block, "random", seed + input, 0}) + ", scratch reuse",
                                            n * sizeof(T));
                const T result = run.run_once();
                const Verdict v = verify(result, reference, step.addition_depth(n, block));
                log.count();
                if (!v.pass)
                    log.fail(wrong_result(describe<T>({n, block, "random", seed + input, 0}) +
                                              (input == 0 ? ", first input" : ", second input on the same scratch"),
                                          v));
            }
        }
    }
    log.summarise(std::string(step_under_test().name) + " " + type_label<T>() + " scratch reuse");
}

// Two inputs alternating on one scratch, as an application calls a reduction: every call queued
// behind a closed gate on a non-blocking stream, so that they run back to back with no
// synchronisation between them, each into its own output. A call that leaves anything in the
// scratch (a slot still marked full, a counter not reset) hands the next call the other input's
// partials, and a last block that reads a partial before its block has posted it reads the
// previous call's: both give the other input's sum, or a mix. Each result must pass against its own
// input's reference and equal, bit for bit, every other result of the same input.
template <class T>
void check_alternating_inputs(std::uint64_t seed) {
    const StepApi& step = step_under_test();
    const std::size_t alternating_sizes[] = {1, 33, 4096, 4097, 65537, 1000003, (std::size_t{1} << 22) + 5};
    constexpr int calls = 72;  // 36 of each input
    const std::size_t largest = alternating_sizes[std::size(alternating_sizes) - 1];
    DeviceBuffer<T> inputs[2] = {DeviceBuffer<T>(largest + poisoned_tail), DeviceBuffer<T>(largest + poisoned_tail)};
    DeviceBuffer<T> outputs(calls);
    const test::NonBlockingStream stream;
    FailureLog log;
    for (std::size_t n : alternating_sizes) {
        const Reference references[2] = {test::upload_generated(inputs[0], 0, n, Pattern::random, seed),
                                         test::upload_generated(inputs[1], 0, n, Pattern::random, seed + 1)};
        for (int block : {64, 256, 1024}) {
            DeviceBuffer<unsigned char> scratch(test::scratch_bytes<T>(step, n, block));
            if (scratch.bytes() > 0) CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));  // step_api.h's contract
            CUDA_CHECK(cudaMemset(outputs.get(), 0xFF, outputs.bytes()));
            CUDA_CHECK(cudaDeviceSynchronize());
            Gate gate;
            gate.close();
            gate.hold(stream);
            for (int k = 0; k < calls; ++k)
                typed<T>(step).reduce(inputs[k % 2].get(), n, outputs.get() + k, reinterpret_cast<T*>(scratch.get()), block,
                                   stream);
            {
                const test::HangGuard guard(describe<T>({n, block, "random", seed, 0}) + ", " + std::to_string(calls) +
                                                " calls alternating two inputs on one scratch",
                                            calls * n * sizeof(T));
                gate.open();
                CUDA_CHECK(cudaStreamSynchronize(stream));
            }
            gate.check_not_timed_out("queueing the alternating calls");
            std::vector<T> results(calls);
            CUDA_CHECK(cudaMemcpy(results.data(), outputs.get(), outputs.bytes(), cudaMemcpyDeviceToHost));
            for (int k = 0; k < calls; ++k) {
                const CaseInfo c{n, block, "random", seed + k % 2, 0};
                const std::string where = describe<T>(c) + ", call " + std::to_string(k + 1) + " of " +
                                          std::to_string(calls) + " alternating two inputs on one scratch";
                const Verdict v = verify(results[k], references[k % 2], step.addition_depth(n, block));
                log.count();
                if (!v.pass)
                    log.fail(wrong_result(where, v) + ". Whatever a call leaves in the scratch must be reset before it "
                                                      "returns, and a partial may be read only once it is posted.");
                else if (!test::same_bytes(results[k], results[k % 2]))
                    log.fail(not_repeatable(where, results[k % 2], results[k]));
            }
        }
    }
    log.summarise(std::string(step_under_test().name) + " " + type_label<T>() + " alternating inputs");
}

// The step must launch on the stream it is given and nowhere else. Its calls on a non-blocking
// stream are captured into a CUDA graph: a launch on the legacy default stream (0) instead runs at
// once and is not captured, a cudaMemset or a synchronisation inside the call breaks the capture.
// Replaying the graph into a poisoned output must then produce the sum.
template <class T>
void check_given_stream(std::uint64_t seed) {
    const StepApi& step = step_under_test();
    const std::size_t stream_sizes[] = {1, 4097, 1000003};
    const int block = 256;
    DeviceBuffer<T> device(stream_sizes[std::size(stream_sizes) - 1] + poisoned_tail);
    DeviceBuffer<T> out(1);
    const test::NonBlockingStream stream;
    FailureLog log;
    for (std::size_t n : stream_sizes) {
        const CaseInfo c{n, block, "random", seed, 0};
        const Reference reference = test::upload_generated(device, 0, n, Pattern::random, seed);
        const test::HangGuard guard(describe<T>(c) + ", on a non-blocking stream and from a graph", 3 * n * sizeof(T));
        DeviceBuffer<unsigned char> scratch(test::scratch_bytes<T>(step, n, block));
        if (scratch.bytes() > 0) CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
        CUDA_CHECK(cudaDeviceSynchronize());  // the upload and the fill, on stream 0, which `stream` does not wait for
        T* const scratch_t = reinterpret_cast<T*>(scratch.get());
        // once outside the capture: whatever a step sets up on its first call (occupancy, attributes)
        typed<T>(step).reduce(device.get(), n, out.get(), scratch_t, block, stream);
        CUDA_CHECK(cudaStreamSynchronize(stream));

        cudaGraph_t graph = nullptr;
        std::string broken;
        CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
        try {
            typed<T>(step).reduce(device.get(), n, out.get(), scratch_t, block, stream);
        } catch (const std::exception& error) {
            broken = error.what();
        }
        const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
        if (broken.empty() && ended != cudaSuccess) broken = cudaGetErrorString(ended);
        cudaGetLastError();  // a broken capture leaves its error behind: not the next check's
        log.count();
        if (!broken.empty()) {
            log.fail(describe<T>(c) + ": the call could not be captured on its stream (" + broken +
                     "). A step only queues work on the stream it is given: no cudaMemset, no synchronisation.");
            if (graph) cudaGraphDestroy(graph);
            CUDA_CHECK(cudaDeviceSynchronize());
            continue;
        }
        CUDA_CHECK(cudaDeviceSynchronize());  // anything launched outside the capture has run by now
        CUDA_CHECK(cudaMemsetAsync(out.get(), 0xFF, sizeof(T), stream));  // on `stream`: before the replay, surely
        cudaGraphExec_t exec = nullptr;
        CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        T result{};
        CUDA_CHECK(cudaMemcpy(&result, out.get(), sizeof(T), cudaMemcpyDeviceToHost));
        const Verdict v = verify(result, reference, step.addition_depth(n, block));
        if (!v.pass)
            log.fail(wrong_result(describe<T>(c) + ", the call replayed from a graph captured on a non-blocking stream",
                                  v) +
                     ". Every launch must use the stream argument: work launched on stream 0 is not in the graph.");
    }
    log.summarise(std::string(step_under_test().name) + " " + type_label<T>() + " on the given stream");
}

// Each call runs right after a kernel that left 0x7F bytes in all the shared memory of every SM: on
// a GPU that keeps them, a step whose result depends on a slot of shared memory it did not write in
// this call (a level of the tree past the block, a warp's sum past the block's warps that reaches
// lane 0) adds a huge value and fails here, where another test might have left zeros.
template <class T>
void check_dirty_shared_memory(std::uint64_t seed) {
    const StepApi& step = step_under_test();
    const std::size_t dirty_sizes[] = {1, 33, 1000, 4097, 1000003};
    DeviceBuffer<T> device(dirty_sizes[std::size(dirty_sizes) - 1] + poisoned_tail);
    DeviceBuffer<T> out(1);
    FailureLog log;
    for (std::size_t n : dirty_sizes) {
        const Reference reference = test::upload_generated(device, 0, n, Pattern::random, seed);
        for (int block : blocks) {
            DeviceBuffer<unsigned char> scratch(test::scratch_bytes<T>(step, n, block));
            if (scratch.bytes() > 0) CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
            T result{};
            {
                const test::HangGuard guard(describe<T>({n, block, "random", seed, 0}) + ", after dirty shared memory",
                                            n * sizeof(T));
                test::dirty_shared_memory(cudaStream_t{});
                typed<T>(step).reduce(device.get(), n, out.get(), reinterpret_cast<T*>(scratch.get()), block,
                                      cudaStream_t{});
                CUDA_CHECK(cudaMemcpy(&result, out.get(), sizeof(T), cudaMemcpyDeviceToHost));
            }
            const Verdict v = verify(result, reference, step.addition_depth(n, block));
            log.count();
            if (!v.pass)
                log.fail(wrong_result(describe<T>({n, block, "random", seed, 0}) +
                                          ", run after a kernel that left 0x7F bytes in shared memory",
                                      v) +
                         ". Read only the shared memory this call wrote: an unwritten slot holds whatever was there.");
        }
    }
    log.summarise(std::string(step_under_test().name) + " " + type_label<T>() + " after dirty shared memory");
}

}  // namespace

#define STEP_CASE(title) REDUCTION_STEP_TAG ": " title

// A test case of the step, tagged [gpu][stepNN], that runs check<T>(seed) for every element type T.
#define STEP_CASE_EVERY_TYPE(title, check) \
    REDUCTION_SEEDED_TEST_CASE(STEP_CASE(title), "[gpu][" REDUCTION_STEP_TAG "]", test::for_each_type, check)

STEP_CASE_EVERY_TYPE("every size, type, block size and pattern matches the reference, twice bit-identically", check_matrix)

STEP_CASE_EVERY_TYPE("input pointers 1, 2 and 3 elements past an aligned allocation", check_offsets)

STEP_CASE_EVERY_TYPE("1000 back-to-back calls on one input give bit-identical results", check_back_to_back_calls)

STEP_CASE_EVERY_TYPE("two inputs alternating on one scratch, queued with no synchronisation", check_alternating_inputs)

STEP_CASE_EVERY_TYPE("shared memory left dirty by an earlier kernel changes nothing", check_dirty_shared_memory)

STEP_CASE_EVERY_TYPE("every launch on the stream it is given (a graph captured on a non-blocking stream)", check_given_stream)

STEP_CASE_EVERY_TYPE("a second input on the same scratch gives the second input's result", check_scratch_reuse)

TEST_CASE(STEP_CASE("one-byte elements sum modulo 256"), "[gpu][" REDUCTION_STEP_TAG "]") {
    REDUCTION_TEST_SEED(seed);
    check_uint8_small(seed, {1, 31, 257, 4097, 1000003, (std::size_t{1} << 24) + 1}, {32, 256, 1024});
}

TEST_CASE(STEP_CASE("n = 2^32 + 17 one-byte elements: 64-bit indexing within 5 GiB"),
          "[gpu][large][" REDUCTION_STEP_TAG "]") {
    check_past_2_32_uint8();
}

TEST_CASE(STEP_CASE("n = 2^31 + 17 int32 and float32 (8 GiB each)"), "[gpu][large][" REDUCTION_STEP_TAG "]") {
    const std::uint64_t seed = test::test_seed();  // unless ctest's fixture chose the run's (check_past_2_31)
    check_past_2_31<std::int32_t>(seed);
    check_past_2_31<float>(seed);
}

// Small odd sizes and the extreme block sizes, every type: what sanitize.sh runs under each
// compute-sanitizer tool. Hidden ([.]): the other cases already cover these sizes.
TEST_CASE(STEP_CASE("small cases for compute-sanitizer"), "[.][sanitize][" REDUCTION_STEP_TAG "]") {
    REDUCTION_TEST_SEED(seed);
    const auto run = [seed](auto zero, std::size_t n, int block) {
        using T = decltype(zero);
        DeviceBuffer<T> device(n + poisoned_tail);
        const Reference reference = test::upload_generated(device, 0, n, Pattern::random, seed);
        FailureLog log;
        check_case<T>({n, block, "random", seed, 0}, device.get(), reference, log);
        log.summarise(describe<T>({n, block, "random", seed, 0}));
    };
    run(std::int32_t{}, 1, 256);
    run(std::int32_t{}, 4097, 32);
    run(float{}, 65537, 1024);
    run(double{}, 1000003, 256);
    check_uint8_small(seed, {4097}, {128});
}
