// The check of a float sum whose order of additions is not ours to know (CUB's): Jeannerod and Rump's
// bound |computed - exact| <= (n - 1) u * sum|x_i| for any order and any n (course/README.md).
#pragma once

#include "reference.h"
#include "report.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>

namespace reduction {

// (n - 1) u for floating-point T: the relative bound for any order; >= 1 means it says nothing.
template <class T>
double any_order_relative_bound(std::size_t n) {
    return n > 0 ? static_cast<double>(n - 1) * unit_roundoff<T>() : 0.0;
}

// (n - 1) u * sum|x_i| plus the reference's own error (tolerance_for at depth 0 is exactly that).
template <class T>
double any_order_tolerance(const Reference& reference) {
    return any_order_relative_bound<T>(reference.n) * static_cast<double>(reference.abs_sum) +
           tolerance_for<T>(reference, 0);
}

// The verdict on a float sum computed in an unknown order, or nothing where this bound cannot judge: not a
// sum, integers (exact), non-finite inputs (verify() knows the IEEE answer), overflow possible, (n - 1) u >= 1.
template <class T>
std::optional<Verdict> verify_any_order(T result, const Reference& reference) {
    if constexpr (std::is_integral_v<T>) {
        return std::nullopt;
    } else {
        const double relative = any_order_relative_bound<T>(reference.n);
        // a partial sum is at most (1 + (n-1)u) times the terms of one sign: past max, it may overflow
        const long double max = std::numeric_limits<T>::max();
        if (reference.op != OpKind::sum || reference.first_non_finite != Reference::no_index || relative >= 1.0 ||
            reference.positive_sum * (1 + relative) > max || -reference.negative_sum * (1 + relative) > max)
            return std::nullopt;
        Verdict v = verify(result, reference, 0);  // the texts and the error; depth 0: tolerance decided here
        v.tolerance = any_order_tolerance<T>(reference);
        v.pass = std::isfinite(result) && v.error <= v.tolerance;
        v.note = std::string(v.pass ? "" : "outside the tolerance; ") + "order unknown: any-order bound (n-1)u * sum|x| = " +
                 format_number("%.3g", relative) + " * sum|x|";
        return v;
    }
}

}  // namespace reduction
