#include "input.h"

#include "cuda_check.h"
#include "exit_codes.h"
#include "options.h"
#include "parallel.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <system_error>
#include <type_traits>

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

std::size_t input_file_count(const std::string& path, ElementType type) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) throw UsageError("--input: '" + path + "' is a directory, not a file");
    // a FIFO or a device would block the open or have no size: only regular files are read
    if (std::filesystem::exists(path, error) && !std::filesystem::is_regular_file(path, error))
        throw UsageError("--input: '" + path + "' is not a regular file");
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) throw UsageError("--input: cannot open '" + path + "'");
    const std::streamoff bytes = file.tellg();
    if (bytes < 0) throw UsageError("--input: cannot read the size of '" + path + "'");
    if (bytes == 0) throw UsageError("--input: '" + path + "' is empty; a reduction needs at least one element");
    const auto element = static_cast<std::streamoff>(type_size(type));
    if (bytes % element != 0)
        throw UsageError("--input: '" + path + "' has " + std::to_string(bytes) + " bytes, not a multiple of " +
                         std::to_string(element) + " (the size of one " + type_name(type) + " element of --type)");
    return static_cast<std::size_t>(bytes / element);
}

template <class T>
std::vector<T> read_input_file(const std::string& path) {
    std::vector<T> values(input_file_count(path, element_type_of<T>()));
    std::ifstream file(path, std::ios::binary);
    // the course's targets are little-endian (x86-64, AArch64), so the raw bytes are the values
    if (!file.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(T))))
        throw UsageError("--input: reading '" + path + "' stopped early");
    return values;
}

std::uint64_t fresh_seed() {
    std::random_device device;
    return (std::uint64_t{device()} << 32) ^ device();
}

std::size_t input_count(const Options& options, ElementType type) {
    return options.input_path.empty() ? options.n : input_file_count(options.input_path, type);
}

std::string input_description(const Options& options) {
    if (!options.input_path.empty()) return "file '" + options.input_path + "'";
    return std::string("pattern ") + pattern_name(options.pattern) + ", seed " + std::to_string(options.seed.value_or(0));
}

template <class T>
DeviceInput<T> upload_input(const Options& options) {
    const std::vector<T> values = options.input_path.empty()
                                      ? generate_input<T>(options.n, options.pattern, options.seed.value())
                                      : read_input_file<T>(options.input_path);
    DeviceInput<T> input;
    input.n = values.size();
    input.reference = compute_reference(values, options.op);
    input.values = DeviceBuffer<T>(input.n);
    CUDA_CHECK(cudaMemcpy(input.values.get(), values.data(), input.n * sizeof(T), cudaMemcpyHostToDevice));
    return input;
}

#define REDUCTION_INSTANTIATE_INPUT(T)                                               \
    template std::vector<T> generate_input<T>(std::size_t, Pattern, std::uint64_t); \
    template std::vector<T> read_input_file<T>(const std::string&);                 \
    template DeviceInput<T> upload_input<T>(const Options&);
REDUCTION_INSTANTIATE_INPUT(std::int32_t)
REDUCTION_INSTANTIATE_INPUT(float)
REDUCTION_INSTANTIATE_INPUT(double)

}  // namespace reduction
