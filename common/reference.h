// The CPU reference, the tolerance, and the verdict on one GPU result.
//
// Integers are summed exactly in 64 bits. Floating-point inputs are summed in long double with
// Neumaier's compensation, which is far more accurate than any float or double GPU order; the
// GPU's result may then differ from it by at most the error bound of the summation tree the step
// actually used (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., §4.2):
//
//     |computed - exact| <= gamma_d * sum |x_i|,   gamma_d = d*u / (1 - d*u),
//
// where u is the unit roundoff of T (2^-24 for float, 2^-53 for double) and d is the longest chain
// of additions from any input to the result. Each step reports its d (addition_depth), so the
// tolerance follows from the algorithm and not from a constant picked until the tests pass.
#pragma once

#include "element_type.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace reduction {

struct Reference {
    ElementType type = ElementType::int32;
    std::size_t n = 0;
    std::int64_t exact = 0;     // integers: the exact sum (exact for fewer than 2^32 elements)
    long double sum = 0;        // floating point: the compensated sum
    long double abs_sum = 0;    // floating point: sum of |x_i|, the scale of the error bound
};

template <class T>
Reference compute_reference(const std::vector<T>& values);

struct Verdict {
    bool pass = false;
    std::string result;         // the GPU's value, printed exactly enough to compare
    std::string expected;       // the reference, in T's terms (wrapped modulo 2^32 for int32 overflow)
    double error = 0;           // |result - reference|
    double tolerance = 0;       // 0 for integers
    std::string note;           // why it failed, or how it was compared; empty when nothing to say
};

// gamma_d for T's unit roundoff; infinity when d*u >= 1 (the bound says nothing).
double gamma_bound(ElementType type, std::size_t depth);

// gamma_d * abs_sum plus the reference's own error bound; 0 for integers.
double tolerance_for(const Reference& reference, std::size_t depth);

template <class T>
Verdict verify(T result, const Reference& reference, std::size_t depth);

}  // namespace reduction
