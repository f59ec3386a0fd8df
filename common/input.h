// The values to reduce, generated from a seed or read from a raw file, on the device with their reference.
#pragma once
#include "device_buffer.h"
#include "reference.h"
#include "settings.h"
#include <optional>

namespace reduction {
// Element i of the generated input, exact and alike on host and device (common/README.md).
namespace formula {
// splitmix64's finaliser: a strong 64-bit mix, so mix(seed ^ mix(i)) is a counter-based generator.
REDUCTION_HOST_DEVICE inline std::uint64_t mix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// int32 in [-1000, 1000]; floats uniform in [-1, 1) on a grid of 2^-(digits-1).
template <class T>
REDUCTION_HOST_DEVICE T random_value(std::uint64_t bits) {
    if constexpr (std::is_integral_v<T>) {
        return static_cast<T>(static_cast<std::int64_t>(bits % 2001) - 1000);
    } else {
        constexpr int digits = std::is_same_v<T, float> ? 24 : 53;  // numeric_limits<T>::digits
        const T unit = static_cast<T>(bits >> (64 - digits)) / static_cast<T>(std::uint64_t{1} << digits);
        return unit * T(2) - T(1);
    }
}

template <class T>
REDUCTION_HOST_DEVICE T pattern_value(Pattern pattern, std::uint64_t seed, std::size_t i) {
    switch (pattern) {
        case Pattern::random: return random_value<T>(mix(seed ^ mix(i)));
        case Pattern::ones: return T(1);
        case Pattern::index: return static_cast<T>(i % 1000);
        case Pattern::alternating: return (i % 2 == 0) ? T(1) : T(-1);
    }
    return T(0);
}
}  // namespace formula

std::uint64_t fresh_seed();  // from std::random_device: a new input every run, printed for replay
void draw_seed(InputSpec& input);  // generated input without --seed gets a fresh_seed()
// The spec of one run on elements of T: for an --input file, n set from its size (input_file_count: a UsageError
// naming any problem with it); a generated input as it is. Called once per run: what follows reads spec.n.
template <class T>
InputSpec counted_input(InputSpec spec);
std::string size_text(std::size_t n);  // "2^24" for a power of two, else the decimal number
template <class T>  // the whole generated input in a host vector, generated in parallel chunks (tests, small inputs)
std::vector<T> generate_input(std::size_t n, Pattern pattern, std::uint64_t seed);
template <class T>  // out[k] = element first + k of the input (pattern, seed), k < count, written by the GPU (async)
void fill_input(T* out, std::size_t first, std::size_t count, Pattern pattern, std::uint64_t seed, cudaStream_t stream);
template <class T>  // compute_reference of generate_input<T>(n, pattern, seed), the values regenerated, not stored
Reference generated_reference(std::size_t n, Pattern pattern, std::uint64_t seed, OpKind op = OpKind::sum);
// The element count of an --input file of T from its size; UsageError naming any problem with it.
template <class T>
std::size_t input_file_count(const std::string& path);
template <class T>  // raw little-endian values of T, counted by input_file_count, then read whole
std::vector<T> read_input_file(const std::string& path);
template <class T>  // values[0..count) are elements [first, first + count) of the file
using ChunkConsumer = std::function<void(const T* values, std::size_t first, std::size_t count)>;
// Reads the n elements of a counted file (counted_input), `chunk` at a time into buffers[0], [1] in turn; each is
// consume()d and summed while the next is read. A file that shrank since it was counted: UsageError.
template <class T>
Reference stream_input_file(const std::string& path, std::size_t n, OpKind op, T* const buffers[2], std::size_t chunk,
                            const ChunkConsumer<T>& consume);

template <class T>
struct DeviceInput {
    std::size_t n = 0;
    Reference reference;
    DeviceBuffer<T> values;
};

template <class T>  // the input (counted_input) on the current device, with its reference for `op`; memory checked first
DeviceInput<T> upload_input(const InputSpec& input, OpKind op);
}  // namespace reduction
