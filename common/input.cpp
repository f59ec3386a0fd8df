#include "input.h"

#include "errors.h"
#include "parallel.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <system_error>

namespace reduction {
namespace {

// splitmix64's finaliser: a strong 64-bit mix, so hash(seed, i) is a counter-based generator.
std::uint64_t mix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

template <class T>
T random_value(std::uint64_t bits) {
    if constexpr (std::is_integral_v<T>) {
        return static_cast<T>(static_cast<std::int64_t>(bits % 2001) - 1000);
    } else {
        // the top mantissa-many bits give a uniform value in [0, 1), exactly representable in T
        constexpr int digits = std::numeric_limits<T>::digits;
        const T unit = static_cast<T>(bits >> (64 - digits)) / static_cast<T>(std::uint64_t{1} << digits);
        return unit * T(2) - T(1);
    }
}

template <class T>
T pattern_value(Pattern pattern, std::uint64_t seed, std::size_t i) {
    switch (pattern) {
        case Pattern::random: return random_value<T>(mix(seed ^ mix(i)));
        case Pattern::ones: return T(1);
        case Pattern::index: return static_cast<T>(i % 1000);
        case Pattern::alternating: return (i % 2 == 0) ? T(1) : T(-1);
    }
    return T(0);
}

}  // namespace

const char* pattern_name(Pattern pattern) {
    switch (pattern) {
        case Pattern::random: return "random";
        case Pattern::ones: return "ones";
        case Pattern::index: return "index";
        case Pattern::alternating: return "alternating";
    }
    return "?";
}

std::optional<Pattern> parse_pattern(const std::string& text) {
    for (Pattern p : {Pattern::random, Pattern::ones, Pattern::index, Pattern::alternating})
        if (text == pattern_name(p)) return p;
    return std::nullopt;
}

template <class T>
std::vector<T> generate_input(std::size_t n, Pattern pattern, std::uint64_t seed) {
    std::vector<T> values(n);
    for_each_chunk(n, host_threads_for(n), [&](unsigned, std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) values[i] = pattern_value<T>(pattern, seed, i);
    });
    return values;
}

template <class T>
std::vector<T> read_input_file(const std::string& path) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) throw UsageError("--input: '" + path + "' is a directory, not a file");
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) throw UsageError("--input: cannot open '" + path + "'");
    const std::streamoff bytes = file.tellg();
    if (bytes < 0) throw UsageError("--input: cannot read the size of '" + path + "'");
    if (bytes == 0) throw UsageError("--input: '" + path + "' is empty; a reduction needs at least one element");
    if (bytes % static_cast<std::streamoff>(sizeof(T)) != 0)
        throw UsageError("--input: '" + path + "' has " + std::to_string(bytes) + " bytes, not a multiple of " +
                         std::to_string(sizeof(T)) + " (the size of one element of --type)");
    std::vector<T> values(static_cast<std::size_t>(bytes) / sizeof(T));
    file.seekg(0);
    // the course's targets are little-endian (x86-64, AArch64), so the raw bytes are the values
    if (!file.read(reinterpret_cast<char*>(values.data()), bytes))
        throw UsageError("--input: reading '" + path + "' stopped early");
    return values;
}

template <class T>
void write_input_file(const std::string& path, const std::vector<T>& values) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(values.data()),
               static_cast<std::streamsize>(values.size() * sizeof(T)));
    if (!file) throw std::system_error(errno, std::generic_category(), "writing " + path);
}

std::uint64_t fresh_seed() {
    std::random_device device;
    return (std::uint64_t{device()} << 32) ^ device();
}

#define REDUCTION_INSTANTIATE_INPUT(T)                                                 \
    template std::vector<T> generate_input<T>(std::size_t, Pattern, std::uint64_t);   \
    template std::vector<T> read_input_file<T>(const std::string&);                   \
    template void write_input_file<T>(const std::string&, const std::vector<T>&);
REDUCTION_INSTANTIATE_INPUT(std::int32_t)
REDUCTION_INSTANTIATE_INPUT(float)
REDUCTION_INSTANTIATE_INPUT(double)

}  // namespace reduction
