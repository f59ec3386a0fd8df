// The generated input written on the GPU (common/fill.cu) against the host's formula, element by
// element and bit for bit: every pattern and type, windows at both ends of an index space past
// 2^32 and across 2^31 and 2^32, random windows in between, and whole inputs against
// generate_input. The host side is compiled by the host compiler, the kernel by nvcc, so this is
// what proves that the reference the CPU regenerates is the input the GPU summed.
//
// No step is involved: the program links only common/. Failures print the seed;
// REDUCTION_TEST_SEED=<seed> replays them.
#include "../catch.h"
#include "../each_type.h"
#include "gpu_test_support.h"

#include "device_buffer.h"
#include "input.h"

#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace reduction;

constexpr Pattern fill_patterns[] = {Pattern::random, Pattern::ones, Pattern::index, Pattern::alternating};
constexpr std::size_t guard = 256;  // poisoned elements on each side of a window
constexpr int failures_printed = 10;

// The virtual index space: past 2^33, so that every 32-bit truncation of an index shows.
constexpr std::size_t space = (std::size_t{1} << 33) + 17;

template <class T>
std::string describe(Pattern pattern, std::uint64_t seed, std::size_t index) {
    std::ostringstream out;
    out << type_name(element_type_of<T>()) << " pattern " << pattern_name(pattern) << " seed " << seed << " element "
        << index;
    return out.str();
}

// Fills [first, first + count) into a window with poisoned guards on both sides, reads it back and
// compares every element with the host formula; the guards must be untouched.
template <class T>
int check_window(DeviceBuffer<T>& device, std::size_t first, std::size_t count, Pattern pattern, std::uint64_t seed) {
    REQUIRE(device.size() >= count + 2 * guard);
    CUDA_CHECK(cudaMemset(device.get(), 0x7F, device.bytes()));
    fill_input(device.get() + guard, first, count, pattern, seed, cudaStream_t{});
    CUDA_CHECK_LAUNCH();
    std::vector<T> back(count + 2 * guard);
    CUDA_CHECK(cudaMemcpy(back.data(), device.get(), back.size() * sizeof(T), cudaMemcpyDeviceToHost));
    int failed = 0;
    for (std::size_t k = 0; k < count; ++k) {
        const T expected = formula::pattern_value<T>(pattern, seed, first + k);
        if (std::memcmp(&back[guard + k], &expected, sizeof(T)) == 0) continue;
        if (++failed <= failures_printed)
            FAIL_CHECK(describe<T>(pattern, seed, first + k) << ": the GPU wrote " << test::exact_value(back[guard + k])
                                                            << ", the host formula gives " << test::exact_value(expected));
    }
    T poison;
    std::memset(&poison, 0x7F, sizeof(T));
    for (std::size_t k = 0; k < guard; ++k) {
        const bool before = std::memcmp(&back[k], &poison, sizeof(T)) == 0;
        const bool after = std::memcmp(&back[guard + count + k], &poison, sizeof(T)) == 0;
        if (!before || !after) {
            ++failed;
            FAIL_CHECK(describe<T>(pattern, seed, first) << ": the fill of " << count
                                                        << " elements wrote outside its window");
            break;
        }
    }
    return failed;
}

template <class T>
void check_windows(std::uint64_t seed) {
    const std::size_t width = 4097;  // odd: no window is a whole number of blocks
    const std::size_t two_31 = std::size_t{1} << 31, two_32 = std::size_t{1} << 32;
    std::vector<std::size_t> starts = {0, two_31 - width / 2, two_32 - width / 2, space - width};
    std::mt19937_64 random(seed);
    for (int k = 0; k < 16; ++k) starts.push_back(random() % (space - width));
    DeviceBuffer<T> device(width + 2 * guard);
    int failed = 0;
    for (std::uint64_t s : {seed, std::uint64_t{0}, ~std::uint64_t{0}})
        for (Pattern pattern : fill_patterns)
            for (std::size_t first : starts) failed += check_window(device, first, width, pattern, s);
    INFO(type_name(element_type_of<T>()) << ": " << failed << " differences");
    CHECK(failed == 0);
}

// A whole input from index 0 against generate_input (the host's threaded generator), large enough
// that the fill's grid-stride loop goes round more than once.
template <class T>
void check_whole(std::uint64_t seed) {
    for (std::size_t n : {std::size_t{1}, std::size_t{1000003}, (std::size_t{1} << 24) + 3}) {
        DeviceBuffer<T> device(n);
        for (Pattern pattern : fill_patterns) {
            fill_input(device.get(), 0, n, pattern, seed, cudaStream_t{});
            std::vector<T> back(n);
            CUDA_CHECK(cudaMemcpy(back.data(), device.get(), n * sizeof(T), cudaMemcpyDeviceToHost));
            const std::vector<T> expected = generate_input<T>(n, pattern, seed);
            INFO(type_name(element_type_of<T>()) << " n " << n << " pattern " << pattern_name(pattern) << " seed " << seed);
            CHECK(std::memcmp(back.data(), expected.data(), n * sizeof(T)) == 0);
        }
    }
}

}  // namespace

REDUCTION_SEEDED_TEST_CASE("fill: windows anywhere in 2^33 + 17 elements equal the host formula bit for bit", "[gpu][fill]",
                           test::for_each_type, check_windows)

REDUCTION_SEEDED_TEST_CASE("fill: whole inputs equal generate_input", "[gpu][fill]", test::for_each_type, check_whole)

TEST_CASE("fill: a count of zero writes nothing", "[gpu][fill]") {
    DeviceBuffer<float> device(4);
    CUDA_CHECK(cudaMemset(device.get(), 0x7F, device.bytes()));
    fill_input(device.get(), space, 0, Pattern::random, 1, cudaStream_t{});
    float back[4];
    CUDA_CHECK(cudaMemcpy(back, device.get(), sizeof back, cudaMemcpyDeviceToHost));
    float poison;
    std::memset(&poison, 0x7F, sizeof poison);
    for (float v : back) CHECK(std::memcmp(&v, &poison, sizeof v) == 0);
}
