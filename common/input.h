// The values to sum: generated from a seed, or read from a raw file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace reduction {

enum class Pattern {
    random,       // signed uniform values: int32 in [-1000, 1000], floats in [-1, 1)
    ones,         // 1 everywhere: the sum is n (hides indexing bugs; for reading, not for testing)
    index,        // x[i] = i mod 1000: position-dependent, so a dropped or doubled element shows
    alternating,  // +1, -1, +1, ...: the sum is n mod 2, large cancellations
};

inline constexpr const char* accepted_patterns = "random, ones, index, alternating";
const char* pattern_name(Pattern pattern);
std::optional<Pattern> parse_pattern(const std::string& text);

// Element i depends only on (seed, i), so chunks are generated in parallel and any element can be
// recomputed on its own.
template <class T>
std::vector<T> generate_input(std::size_t n, Pattern pattern, std::uint64_t seed);

// Raw little-endian values of T; the element count is the file size / sizeof(T).
// A missing, unreadable, empty or wrong-sized file throws UsageError naming the problem.
template <class T>
std::vector<T> read_input_file(const std::string& path);

template <class T>
void write_input_file(const std::string& path, const std::vector<T>& values);

std::uint64_t fresh_seed();  // from std::random_device: a new input every run, printed for replay

}  // namespace reduction
