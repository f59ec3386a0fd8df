// The patterns of generated input, named as on the command line (--pattern). A header of its own so
// that the options need not include input.h, which works on the options (no include cycle).
#pragma once

#include <optional>
#include <string>

namespace reduction {

enum class Pattern {
    random,       // signed uniform values: int32 in [-1000, 1000], floats in [-1, 1)
    ones,         // 1 everywhere: the sum is n (hides indexing bugs; for reading, not for testing)
    index,        // x[i] = i mod 1000: position-dependent, so a dropped or doubled element shows
    alternating,  // +1, -1, +1, ...: the sum is n mod 2, large cancellations
};

inline constexpr const char* accepted_patterns = "random, ones, index, alternating";
const char* pattern_name(Pattern pattern);                       // "random", ...; defined in input.cpp
std::optional<Pattern> parse_pattern(const std::string& text);  // nullopt for anything else

}  // namespace reduction
