// The input: generated values are reproducible from (seed, i) alone and have the documented
// range; raw files round-trip and every unusable file is a UsageError that names the problem.
#include "../catch.h"
#include "../each_type.h"
#include "element_type.h"
#include "host_test_support.h"
#include "input.h"
#include "reference.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

using namespace reduction;
using reduction::test::contains;

namespace {

// An independent, serial copy of the generator (splitmix64's finaliser over seed ^ mix(i)).
// It pins the values, so that a seed printed by one build replays the same input in another and
// a threaded generate_input cannot drift from the serial definition. Changing the generator on
// purpose means changing this function too.
std::uint64_t splitmix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

template <class T>
T serial_value(Pattern pattern, std::uint64_t seed, std::size_t i) {
    switch (pattern) {
        case Pattern::ones: return T(1);
        case Pattern::index: return static_cast<T>(i % 1000);
        case Pattern::alternating: return i % 2 == 0 ? T(1) : T(-1);
        case Pattern::random: break;
    }
    const std::uint64_t bits = splitmix(seed ^ splitmix(i));
    if constexpr (std::is_integral_v<T>) {
        return static_cast<T>(static_cast<std::int64_t>(bits % 2001) - 1000);
    } else {
        constexpr int digits = std::numeric_limits<T>::digits;
        return static_cast<T>(bits >> (64 - digits)) / static_cast<T>(std::uint64_t{1} << digits) * T(2) - T(1);
    }
}

using test::for_each_type;

// f(pattern) for every pattern, a failure naming its pattern.
template <class F>
void for_each_pattern(const F& f) {
    for (Pattern pattern : all_patterns) {
        INFO("pattern " << pattern_name(pattern));
        f(pattern);
    }
}

template <class T>
std::size_t count_differences(const std::vector<T>& a, const std::vector<T>& b) {
    std::size_t differences = 0;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) differences += a[i] != b[i];
    return differences;
}

template <class T>
struct SeedDeterminesValues {
    void operator()() const {
        const auto a = generate_input<T>(10000, Pattern::random, 42);
        CHECK(a == generate_input<T>(10000, Pattern::random, 42));
        // another seed: a different input, not a shifted or mostly equal one
        const auto b = generate_input<T>(10000, Pattern::random, 43);
        CHECK(count_differences(a, b) > 9900);
        // seeds that differ only in high bits must differ too (the seed is mixed, not truncated)
        const auto c = generate_input<T>(10000, Pattern::random, 42 ^ (std::uint64_t{1} << 63));
        CHECK(count_differences(a, c) > 9900);
    }
};

template <class T>
struct PrefixProperty {
    void operator()() const {
        for_each_pattern([](Pattern pattern) {
            const auto longer = generate_input<T>(5000, pattern, 7);
            for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{999}, std::size_t{4999}}) {
                const auto shorter = generate_input<T>(n, pattern, 7);
                REQUIRE(shorter.size() == n);
                CHECK(std::equal(shorter.begin(), shorter.end(), longer.begin()));
            }
        });
    }
};

template <class T>
struct ExactPatterns {
    void operator()() const {
        const std::size_t n = 2500;
        const auto ones = generate_input<T>(n, Pattern::ones, 1);
        const auto index = generate_input<T>(n, Pattern::index, 1);
        const auto alternating = generate_input<T>(n, Pattern::alternating, 1);
        for (std::size_t i = 0; i < n; ++i) {
            INFO("i = " << i);
            REQUIRE(ones[i] == T(1));
            REQUIRE(index[i] == static_cast<T>(i % 1000));
            REQUIRE(alternating[i] == (i % 2 == 0 ? T(1) : T(-1)));
        }
        // the patterns ignore the seed
        CHECK(generate_input<T>(n, Pattern::index, 99) == index);
    }
};

template <class T>
struct SingleElement {
    void operator()() const {
        for_each_pattern([](Pattern pattern) {
            const auto values = generate_input<T>(1, pattern, 5);
            REQUIRE(values.size() == 1);
            CHECK(values[0] == serial_value<T>(pattern, 5, 0));
        });
    }
};

// 3,000,000 elements are cut into one chunk per thread (host_threads_for): elements on and next to
// the chunk boundaries, and a spread of others, must equal the serial definition.
template <class T>
struct ThreadedMatchesSerial {
    void operator()() const {
        const std::size_t n = 3000000;
        const unsigned chunks = host_threads_for(n);
        INFO("chunks: " << chunks);
        std::vector<std::size_t> samples{0, 1, n - 2, n - 1};
        for (unsigned c = 1; c < chunks; ++c) {
            const std::size_t boundary = n * c / chunks;
            samples.insert(samples.end(), {boundary - 1, boundary, boundary + 1});
        }
        for (std::size_t i = 0; i < n; i += 104729) samples.push_back(i);  // a prime stride
        for_each_pattern([&](Pattern pattern) {
            const std::uint64_t seed = 0xC0FFEE;
            const auto values = generate_input<T>(n, pattern, seed);
            REQUIRE(values.size() == n);
            for (std::size_t i : samples) {
                INFO("i = " << i);
                CHECK(values[i] == serial_value<T>(pattern, seed, i));
            }
        });
    }
};

template <class T>
struct FileRoundTrip {
    void operator()() const {
        const test::TempDir dir;
        for (std::size_t n : {std::size_t{1}, std::size_t{1000}}) {
            const auto values = generate_input<T>(n, Pattern::random, 11);
            const std::string path = dir.write_values("values.bin", values);
            CHECK(input_file_count<T>(path) == n);
            CHECK(read_input_file<T>(path) == values);
        }
    }
};

// Every problem with an --input file is the user's: a UsageError naming the file and the problem.
template <class T>
void check_file_rejected(const std::string& path, const std::vector<std::string>& fragments) {
    // the size check up front (no reading) and the full read reject the file alike
    const std::string count_message =
        test::usage_error_message([&] { input_file_count<T>(path); });
    for (const std::string& fragment : fragments) {
        INFO("input_file_count: " << count_message);
        CHECK(test::contains(count_message, fragment));
    }
    CHECK(test::contains(count_message, "--input"));
    const std::string message = test::usage_error_message([&] { read_input_file<T>(path); });
    INFO("file " << path << "\nmessage: " << message);
    CHECK(contains(message, "--input"));
    CHECK(contains(message, path));
    for (const auto& fragment : fragments) CHECK(contains(message, fragment));
    // a run counts it once (counted_input), with the same message, before anything is read
    InputSpec spec;
    spec.path = path;
    CHECK(test::usage_error_message([&] { counted_input<T>(spec); }) == message);
}

// What stream_input_file handed over, checked as it arrives: chunks in order, no gap, no overlap,
// never longer than a buffer, always in one of the two buffers, and each buffer left alone while
// it is being consumed (the consumer sleeps, then finds its chunk unchanged).
template <class T>
struct StreamRecord {
    std::vector<T> values;
    std::size_t chunks = 0;
    bool in_order = true, in_buffers = true, undisturbed = true, short_enough = true;
};

template <class T>
Reference stream_into(const std::string& path, std::size_t chunk, OpKind op, StreamRecord<T>& record) {
    std::vector<T> first(chunk), second(chunk);
    T* const buffers[2] = {first.data(), second.data()};
    const std::size_t n = input_file_count<T>(path);
    return stream_input_file<T>(path, n, op, buffers, chunk, [&](const T* values, std::size_t start, std::size_t count) {
        const std::vector<T> copy(values, values + count);
        if (record.chunks < 8) std::this_thread::sleep_for(std::chrono::microseconds(200));  // the next chunk is read meanwhile
        record.undisturbed = record.undisturbed && std::equal(copy.begin(), copy.end(), values);
        record.in_order = record.in_order && start == record.values.size();
        record.in_buffers = record.in_buffers && (values == buffers[0] || values == buffers[1]);
        record.short_enough = record.short_enough && count >= 1 && count <= chunk;
        record.values.insert(record.values.end(), copy.begin(), copy.end());
        ++record.chunks;
    });
}

template <class T>
struct StreamedFile {
    void operator()() const {
        const test::TempDir dir;
        for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{4097}}) {
            const auto values = generate_input<T>(n, Pattern::random, 12);
            const std::string path = dir.write_values("values.bin", values);
            for (std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{1000}, n, n + 5}) {
                if (chunk == 1 && n > 1) continue;  // thousands of chunks: slow, and no new case
                for (OpKind op : {OpKind::sum, OpKind::max}) {
                    INFO("n " << n << ", chunk " << chunk << ", op " << op_name(op));
                    StreamRecord<T> record;
                    const Reference reference = stream_into(path, chunk, op, record);
                    CHECK(record.values == values);
                    CHECK(record.chunks == (n + chunk - 1) / chunk);
                    CHECK(record.in_order);
                    CHECK(record.in_buffers);
                    CHECK(record.undisturbed);
                    CHECK(record.short_enough);
                    const Reference whole = compute_reference(values, op);
                    CHECK(reference.n == n);
                    CHECK(reference.exact == whole.exact);
                    CHECK(test::close_to(static_cast<double>(reference.sum), static_cast<double>(whole.sum), 1e-12));
                    CHECK(test::close_to(static_cast<double>(reference.abs_sum), static_cast<double>(whole.abs_sum), 1e-12));
                    CHECK(reference.first_non_finite == whole.first_non_finite);
                }
            }
        }
    }
};

std::vector<unsigned char> bytes(std::size_t count) { return std::vector<unsigned char>(count, 0x11); }

}  // namespace

TEST_CASE("the seed determines the random input", "[input]") { for_each_type<SeedDeterminesValues>(); }

TEST_CASE("element i does not depend on n", "[input]") { for_each_type<PrefixProperty>(); }

TEST_CASE("ones, index and alternating have their exact values", "[input]") { for_each_type<ExactPatterns>(); }

TEST_CASE("a single element is generated", "[input]") { for_each_type<SingleElement>(); }

TEST_CASE("a large input generated by several threads equals the serial definition", "[input]") {
    for_each_type<ThreadedMatchesSerial>();
}

TEST_CASE("random int32 values cover [-1000, 1000] with both signs", "[input]") {
    const auto values = generate_input<std::int32_t>(100000, Pattern::random, 3);
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    // 100000 draws from 2001 values: each end is hit about 50 times, missing it has odds e^-50
    CHECK(*low == -1000);
    CHECK(*high == 1000);
    const auto negative = std::count_if(values.begin(), values.end(), [](std::int32_t v) { return v < 0; });
    CHECK(negative > 45000);  // signed values, about half below zero: not a one-sided range
    CHECK(negative < 55000);
    const double mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
    CHECK(std::abs(mean) < 10.0);  // the standard error of the mean is about 1.8
}

template <class T>
struct FloatRange {
    void operator()() const {
        const auto values = generate_input<T>(100000, Pattern::random, 3);
        const auto [low, high] = std::minmax_element(values.begin(), values.end());
        CHECK(*low >= T(-1));
        CHECK(*low < T(-0.999));
        CHECK(*high < T(1));  // half-open: 1 itself never appears
        CHECK(*high > T(0.999));
        const auto negative = std::count_if(values.begin(), values.end(), [](T v) { return v < 0; });
        CHECK(negative > 45000);
        CHECK(negative < 55000);
        const double mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
        CHECK(std::abs(mean) < 0.01);  // the standard error of the mean is about 0.0018
    }
};

TEST_CASE("random float values lie in [-1, 1) with both signs", "[input]") {
    test::for_each_float_type([](auto zero) { FloatRange<decltype(zero)>{}(); });
}

TEST_CASE("written values read back, their count known from the size alone", "[input]") { for_each_type<FileRoundTrip>(); }

TEST_CASE("a file streams in chunks through two buffers, with the whole file's reference", "[input]") {
    for_each_type<StreamedFile>();
}

TEST_CASE("a non-finite value in a streamed file is found at its index", "[input]") {
    const test::TempDir dir;
    auto values = generate_input<float>(5000, Pattern::random, 4);
    values[3001] = -std::numeric_limits<float>::infinity();
    const std::string path = dir.write_values("values.bin", values);
    StreamRecord<float> record;
    const Reference reference = stream_into(path, 1000, OpKind::sum, record);
    CHECK(reference.first_non_finite == 3001);
    CHECK(reference.has_minus_inf);
    CHECK_FALSE(reference.has_nan);
}

TEST_CASE("a failure while a chunk is consumed reaches the caller", "[input]") {
    const test::TempDir dir;
    const std::string path = dir.write_values("values.bin", generate_input<std::int32_t>(100, Pattern::index, 0));
    std::vector<std::int32_t> first(10), second(10);
    std::int32_t* const buffers[2] = {first.data(), second.data()};
    std::size_t calls = 0;
    const auto failing = [&](const std::int32_t*, std::size_t start, std::size_t) {
        ++calls;
        if (start == 30) throw std::runtime_error("copy failed");
    };
    CHECK_THROWS_AS(stream_input_file<std::int32_t>(path, 100, OpKind::sum, buffers, 10, failing), std::runtime_error);
    CHECK(calls == 4);  // nothing is handed over after the failure
}

TEST_CASE("a file shorter than its count is a usage error, not a short input", "[input]") {
    // counted once by counted_input, then read: a file that shrank in between stops the read
    const test::TempDir dir;
    const std::string path = dir.write_values("values.bin", generate_input<std::int32_t>(100, Pattern::index, 0));
    std::vector<std::int32_t> first(10), second(10);
    std::int32_t* const buffers[2] = {first.data(), second.data()};
    const std::string message = test::usage_error_message([&] {
        stream_input_file<std::int32_t>(path, 120, OpKind::sum, buffers, 10, [](const std::int32_t*, std::size_t, std::size_t) {});
    });
    CHECK(contains(message, "stopped early"));
}

TEST_CASE("input files are raw little-endian values", "[input]") {
    // written byte by byte, not by write_input_file, so that the format itself is tested
    const test::TempDir dir;
    const auto ints = dir.write_bytes("ints.bin", {0x01, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x01, 0x00, 0x00});
    CHECK(read_input_file<std::int32_t>(ints) == std::vector<std::int32_t>{1, -1, 256});
    const auto floats = dir.write_bytes("floats.bin", {0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0xC0});
    CHECK(read_input_file<float>(floats) == std::vector<float>{1.0f, -2.0f});
    const auto doubles = dir.write_bytes("doubles.bin", {0, 0, 0, 0, 0, 0, 0xF0, 0x3F});
    CHECK(read_input_file<double>(doubles) == std::vector<double>{1.0});
}

TEST_CASE("the element count is the file size over the element size", "[input]") {
    const test::TempDir dir;
    const auto sixteen = dir.write_bytes("sixteen.bin", bytes(16));
    CHECK(read_input_file<std::int32_t>(sixteen).size() == 4);
    CHECK(read_input_file<float>(sixteen).size() == 4);
    CHECK(read_input_file<double>(sixteen).size() == 2);
    const auto twelve = dir.write_bytes("twelve.bin", bytes(12));
    CHECK(read_input_file<std::int32_t>(twelve).size() == 3);
}

TEST_CASE("unusable input files are rejected with the reason", "[input]") {
    const test::TempDir dir;
    SECTION("missing") {
        const std::string missing = dir.file("does_not_exist.bin");
        check_file_rejected<std::int32_t>(missing, {"cannot open"});
        check_file_rejected<double>(missing, {"cannot open"});
    }
    SECTION("empty") {
        const auto empty = dir.write_bytes("empty.bin", {});
        check_file_rejected<std::int32_t>(empty, {"empty", "at least one element"});
        check_file_rejected<float>(empty, {"empty"});
        check_file_rejected<double>(empty, {"empty"});
    }
    SECTION("a size that is not a whole number of elements") {
        const auto six = dir.write_bytes("six.bin", bytes(6));
        check_file_rejected<std::int32_t>(six, {"6 bytes", "not a multiple of 4"});
        check_file_rejected<float>(six, {"6 bytes", "not a multiple of 4"});
        const auto twelve = dir.write_bytes("twelve.bin", bytes(12));
        check_file_rejected<double>(twelve, {"12 bytes", "not a multiple of 8"});
        const auto one = dir.write_bytes("one.bin", bytes(1));
        check_file_rejected<double>(one, {"1 byte", "not a multiple of 8"});
    }
    SECTION("a directory") {
        // --input some_folder/ must still exit 2 (UsageError), not crash on an absurd size
        const std::string folder = dir.file("");
        check_file_rejected<std::int32_t>(folder, {});
        check_file_rejected<double>(folder, {});
    }
}
