// What a run is asked to do: the input (InputSpec) and how it is measured (MeasureSettings). The command line
// (options.h) fills them; the input (input.h) and measurement (measure.h) modules read them.
#pragma once
#include "element_type.h"
#include "operators.h"
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

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

struct InputSpec {  // what to reduce: n generated values (pattern, seed), or the values of a raw file
    std::size_t n = std::size_t{1} << 24;
    Pattern pattern = Pattern::random;
    std::optional<std::uint64_t> seed;  // unset: draw_seed() picks a fresh one, printed for replay
    std::string path;                   // set: read values from this file, whose size gives n (counted_input)
};

struct MeasureSettings {  // how every step of a run is measured
    int block = 256;        // threads per block
    int warmup = 5;         // untimed calls first
    int iters = 100;        // timed calls, for each of the three timings
    bool flush_l2 = false;  // write twice the L2 before every timed call (cold L2)
};
}  // namespace reduction
