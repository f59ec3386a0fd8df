// Small integer functions for launch configurations, shared by every step's host code.
#pragma once
#include <cstddef>

namespace reduction {
constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }
// log2 of a power of two: the depth of a block's reduction tree.
constexpr int log2_exact(std::size_t power_of_two) {
    int log2 = 0;
    while ((std::size_t{1} << log2) < power_of_two) ++log2;
    return log2;
}
}  // namespace reduction
