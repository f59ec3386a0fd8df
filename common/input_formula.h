// The generated input: its patterns (--pattern), and their values as one formula that the host
// (generate_input, the reference) and the device (fill.cu) both compile. Element i is a function
// of (pattern, seed, i) alone, so the GPU can write the input while the CPU regenerates it chunk
// by chunk for the reference, and the two cannot drift apart.
//
// Every operation is exact on both sides: 64-bit integer arithmetic, a conversion of an integer
// below 2^digits to T, and scalings by powers of two. A fused multiply-add on the device gives
// the same bits as the host's separate multiply and subtract, because the product is exact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__CUDACC__)
#define REDUCTION_FORMULA_HD __host__ __device__
#else
#define REDUCTION_FORMULA_HD
#endif

namespace reduction {

enum class Pattern {
    random,       // signed uniform values: int32 in [-1000, 1000], floats in [-1, 1)
    ones,         // 1 everywhere: the sum is n (hides indexing bugs; for reading, not for testing)
    index,        // x[i] = i mod 1000: position-dependent, so a dropped or doubled element shows
    alternating,  // +1, -1, +1, ...: the sum is n mod 2, large cancellations
};
inline constexpr Pattern all_patterns[] = {Pattern::random, Pattern::ones, Pattern::index, Pattern::alternating};
inline constexpr const char* accepted_patterns = "random, ones, index, alternating";

inline const char* pattern_name(Pattern pattern) {
    constexpr const char* names[] = {"random", "ones", "index", "alternating"};
    return names[static_cast<int>(pattern)];
}

namespace formula {

// splitmix64's finaliser: a strong 64-bit mix, so mix(seed ^ mix(i)) is a counter-based generator.
REDUCTION_FORMULA_HD inline std::uint64_t mix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// int32 in [-1000, 1000]; floats uniform in [-1, 1) on a grid of 2^-(digits-1).
template <class T>
REDUCTION_FORMULA_HD T random_value(std::uint64_t bits) {
    if constexpr (std::is_integral_v<T>) {
        return static_cast<T>(static_cast<std::int64_t>(bits % 2001) - 1000);
    } else {
        // the top mantissa-many bits give a uniform value in [0, 1), exactly representable in T
        constexpr int digits = std::is_same_v<T, float> ? 24 : 53;  // numeric_limits<T>::digits
        const T unit = static_cast<T>(bits >> (64 - digits)) / static_cast<T>(std::uint64_t{1} << digits);
        return unit * T(2) - T(1);
    }
}

// Element i of the input that (pattern, seed) describe; the patterns other than random ignore the seed.
template <class T>
REDUCTION_FORMULA_HD T pattern_value(Pattern pattern, std::uint64_t seed, std::size_t i) {
    switch (pattern) {
        case Pattern::random: return random_value<T>(mix(seed ^ mix(i)));
        case Pattern::ones: return T(1);
        case Pattern::index: return static_cast<T>(i % 1000);
        case Pattern::alternating: return (i % 2 == 0) ? T(1) : T(-1);
    }
    return T(0);
}

}  // namespace formula
}  // namespace reduction
