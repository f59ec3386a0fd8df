// One generic body, run for every step: each step's result must match the CPU reference for every
// size, type, block size and input pattern, and a wrong input must be caught.
// Failures print the seed; REDUCTION_TEST_SEED=<seed> replays them.
#include "../catch.h"
#include "gpu_test_support.h"

#include "course_steps.h"
#include "device_buffer.h"
#include "input.h"
#include "measure.h"
#include "reference.h"

#include <cstring>
#include <new>
#include <sstream>
#include <type_traits>

namespace {

using namespace reduction;

const std::size_t sizes[] = {1,    2,    3,    31,    32,    33,    255,     256,        257,           1000,
                             1023, 1024, 1025, 4097,  65535, 65537, 1000003, std::size_t{1} << 24, (std::size_t{1} << 24) + 1};
const int blocks[] = {32, 64, 128, 256, 512, 1024};
const Pattern patterns[] = {Pattern::random, Pattern::ones, Pattern::index, Pattern::alternating};

const StepApi& require_step(const char* key) {
    const StepApi* step = find_step(key);
    if (!step) FAIL("no step named " << key << " in the course");
    return *step;
}

// Copies values to the front of `device` and fills the rest with a huge value: a kernel that reads
// past n adds it and fails verification instead of reading a harmless zero.
template <class T>
void upload_with_poisoned_tail(DeviceBuffer<T>& device, const std::vector<T>& values) {
    CUDA_CHECK(cudaMemset(device.get(), 0x7F, device.bytes()));
    CUDA_CHECK(cudaMemcpy(device.get(), values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice));
}

template <class T>
std::string describe_case(const StepApi& step, std::size_t n, int block, const char* pattern, std::uint64_t seed,
                          const Verdict& v) {
    std::ostringstream out;
    out << step.name << " " << type_name(element_type_of<T>()) << " n=" << n << " block=" << block
        << " pattern=" << pattern << " seed=" << seed << ": got " << v.result << ", expected " << v.expected
        << " (error " << v.error << ", tolerance " << v.tolerance << ") " << v.note;
    return out.str();
}

template <class T>
void check_matrix(const StepApi& step, std::uint64_t seed) {
    DeviceBuffer<T> device(sizes[std::size(sizes) - 1] + 1024);
    int checked = 0, failed = 0;
    for (std::size_t n : sizes) {
        for (Pattern pattern : patterns) {
            const std::vector<T> values = generate_input<T>(n, pattern, seed + n);
            const Reference reference = compute_reference(values);
            upload_with_poisoned_tail(device, values);
            for (int block : blocks) {
                StepRun<T> run(step, device.get(), n, block);
                const Verdict v = verify(run.run_once(cudaStream_t{}), reference, run.addition_depth());
                ++checked;
                if (!v.pass) {
                    ++failed;
                    FAIL_CHECK(describe_case<T>(step, n, block, pattern_name(pattern), seed + n, v));
                }
            }
        }
    }
    INFO(step.name << " " << type_name(element_type_of<T>()) << ": " << failed << " of " << checked << " cases failed");
    CHECK(failed == 0);
    CHECK(checked == int(std::size(sizes) * std::size(blocks) * std::size(patterns)));
}

// Changing one element, or dropping the last one, must make verification fail: proof that the
// comparison can fail at all, for integers and with the floating-point tolerance.
template <class T>
void check_mutations(const StepApi& step, std::uint64_t seed) {
    const std::size_t n = 1000003;
    const int block = 256;
    std::vector<T> values = generate_input<T>(n, Pattern::random, seed);
    const std::size_t k = seed % (n - 1);
    DeviceBuffer<T> device(n);

    const Reference reference = compute_reference(values);
    const std::size_t depth = step.addition_depth(n, block);
    // a change of more than twice the tolerance cannot hide inside the rounding error
    const T delta = std::is_integral_v<T> ? T(1) : static_cast<T>(4 * tolerance_for(reference, depth) + 1);
    INFO(step.name << " " << type_name(element_type_of<T>()) << " seed=" << seed << " element " << k << " delta " << delta);

    std::vector<T> changed = values;
    changed[k] += delta;
    upload_with_poisoned_tail(device, changed);
    StepRun<T> changed_run(step, device.get(), n, block);
    CHECK_FALSE(verify(changed_run.run_once(cudaStream_t{}), reference, depth).pass);

    values[n - 1] = delta;  // the element the GPU will not see
    const Reference with_last = compute_reference(values);
    upload_with_poisoned_tail(device, values);
    CUDA_CHECK(cudaMemset(device.get() + (n - 1), 0, sizeof(T)));  // "dropped": not part of the reduced range
    StepRun<T> dropped_run(step, device.get(), n - 1, block);
    CHECK_FALSE(verify(dropped_run.run_once(cudaStream_t{}), with_last, step.addition_depth(n - 1, block)).pass);

    StepRun<T> full_run(step, device.get(), n - 1, block);  // and the unchanged input still passes
    values.pop_back();
    CHECK(verify(full_run.run_once(cudaStream_t{}), compute_reference(values), step.addition_depth(n - 1, block)).pass);
}

// Past 2^31 elements a signed 32-bit index overflows, past 2^32 an unsigned one wraps: only 64-bit
// indexing gets both right. The index pattern depends on the position (i mod 1000, and 2^32 mod 1000
// is 296), so reading in[i - 2^32] instead of in[i] changes the sum.
template <class T>
void check_large(const StepApi& step, std::size_t n, Pattern pattern, std::uint64_t seed) {
    const int block = 256;
    const std::size_t needed = n * sizeof(T) + step_working_bytes(step, element_type_of<T>(), n, block);
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (free_bytes < needed) {
        test::mark_skipped(std::string(step.name) + " n = " + std::to_string(n) + " " + type_name(element_type_of<T>()) + " needs " +
                           std::to_string(needed) + " bytes of device memory, " + std::to_string(free_bytes) + " free");
        return;
    }
    std::vector<T> values;
    try {
        values = generate_input<T>(n, pattern, seed);
    } catch (const std::bad_alloc&) {
        test::mark_skipped("n = " + std::to_string(n) + " needs " + std::to_string(n * sizeof(T)) + " bytes of host memory");
        return;
    }
    const Reference reference = compute_reference(values);
    DeviceBuffer<T> device(n);
    CUDA_CHECK(cudaMemcpy(device.get(), values.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    values = {};
    StepRun<T> run(step, device.get(), n, block);
    const Verdict v = verify(run.run_once(cudaStream_t{}), reference, run.addition_depth());
    INFO(describe_case<T>(step, n, block, pattern_name(pattern), seed, v));
    CHECK(v.pass);
}

void check_step(const char* key) {
    const StepApi& step = require_step(key);
    const std::uint64_t seed = test::test_seed();
    INFO("seed " << seed << " (replay with REDUCTION_TEST_SEED=" << seed << ")");
    check_matrix<std::int32_t>(step, seed);
    check_matrix<float>(step, seed);
    check_matrix<double>(step, seed);
}

void check_step_mutations(const char* key) {
    const StepApi& step = require_step(key);
    const std::uint64_t seed = test::test_seed();
    INFO("seed " << seed);
    check_mutations<std::int32_t>(step, seed);
    check_mutations<float>(step, seed);
    check_mutations<double>(step, seed);
}

void check_step_large(const char* key) {
    const StepApi& step = require_step(key);
    const std::uint64_t seed = test::test_seed();
    INFO("seed " << seed);
    const std::size_t past_2_31 = (std::size_t{1} << 31) + 17, past_2_32 = (std::size_t{1} << 32) + 17;
    check_large<std::int32_t>(step, past_2_31, Pattern::random, seed);
    check_large<float>(step, past_2_31, Pattern::random, seed);
    check_large<std::int32_t>(step, past_2_32, Pattern::index, seed);
}

}  // namespace

// One line per step: its tag is what `ctest -L stepNN` runs.
#define GPU_STEP_TESTS(key)                                                                           \
    TEST_CASE(key ": every size, type, block size and pattern matches the reference", "[gpu][" key "]") { \
        check_step(key);                                                                              \
    }                                                                                                 \
    TEST_CASE(key ": a changed or dropped element fails verification", "[gpu][" key "]") {            \
        check_step_mutations(key);                                                                    \
    }                                                                                                 \
    TEST_CASE(key ": n = 2^31 + 17 and 2^32 + 17 (64-bit indexing)", "[gpu][large][" key "]") { check_step_large(key); }

GPU_STEP_TESTS("step01")
GPU_STEP_TESTS("step02")
GPU_STEP_TESTS("step03")
GPU_STEP_TESTS("step04")
GPU_STEP_TESTS("step05")
GPU_STEP_TESTS("step06")
GPU_STEP_TESTS("step07")
