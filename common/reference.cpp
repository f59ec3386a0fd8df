#include "reference.h"

#include "parallel.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>

namespace reduction {
namespace {

// Neumaier's variant of Kahan summation: keeps the low-order bits lost by each addition.
struct CompensatedSum {
    long double sum = 0;
    long double carry = 0;
    void add(long double x) {
        const long double t = sum + x;
        if (std::fabs(sum) >= std::fabs(x))
            carry += (sum - t) + x;
        else
            carry += (x - t) + sum;
        sum = t;
    }
    long double value() const { return sum + carry; }
};

template <class T>
std::string exact_text(T value) {
    char text[64];
    if constexpr (std::is_integral_v<T>)
        std::snprintf(text, sizeof text, "%lld", static_cast<long long>(value));
    else
        std::snprintf(text, sizeof text, "%.*g", std::numeric_limits<T>::max_digits10, static_cast<double>(value));
    return text;
}

}  // namespace

template <class T>
Reference compute_reference(const std::vector<T>& values) {
    Reference ref;
    ref.type = element_type_of<T>();
    ref.n = values.size();
    const unsigned chunks = host_threads_for(values.size());
    if constexpr (std::is_integral_v<T>) {
        // unsigned arithmetic: wraps (defined) instead of overflowing, so the low 32 bits stay exact
        std::vector<std::uint64_t> partial(chunks, 0);
        for_each_chunk(values.size(), chunks, [&](unsigned c, std::size_t begin, std::size_t end) {
            std::uint64_t s = 0;
            for (std::size_t i = begin; i < end; ++i) s += static_cast<std::uint64_t>(static_cast<std::int64_t>(values[i]));
            partial[c] = s;
        });
        std::uint64_t total = 0;
        for (auto s : partial) total += s;
        ref.exact = static_cast<std::int64_t>(total);
        ref.sum = static_cast<long double>(ref.exact);
    } else {
        std::vector<CompensatedSum> partial(chunks);
        std::vector<long double> partial_abs(chunks, 0);
        for_each_chunk(values.size(), chunks, [&](unsigned c, std::size_t begin, std::size_t end) {
            CompensatedSum s;
            long double a = 0;  // all terms positive: plain summation's relative error is tiny here
            for (std::size_t i = begin; i < end; ++i) {
                s.add(values[i]);
                a += std::fabs(static_cast<long double>(values[i]));
            }
            partial[c] = s;
            partial_abs[c] = a;
        });
        CompensatedSum total;
        for (unsigned c = 0; c < chunks; ++c) {
            total.add(partial[c].sum);
            total.add(partial[c].carry);
            ref.abs_sum += partial_abs[c];
        }
        ref.sum = total.value();
    }
    return ref;
}

double gamma_bound(ElementType type, std::size_t depth) {
    const double u = type == ElementType::float32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
    const double du = static_cast<double>(depth) * u;
    if (du >= 1.0) return std::numeric_limits<double>::infinity();
    return du / (1.0 - du);
}

double tolerance_for(const Reference& reference, std::size_t depth) {
    if (reference.type == ElementType::int32) return 0.0;
    // The reference's own error (compensated summation: <= (2u + O(n u^2)) * sum|x|, u of long double)
    // is added so that the test never blames the GPU for the reference's rounding.
    const long double u_ref = LDBL_EPSILON / 2;
    const long double reference_error =
        (2 * u_ref + 2 * static_cast<long double>(reference.n) * u_ref * u_ref) * reference.abs_sum;
    return static_cast<double>(gamma_bound(reference.type, depth) * reference.abs_sum + reference_error);
}

template <class T>
Verdict verify(T result, const Reference& reference, std::size_t depth) {
    Verdict v;
    v.result = exact_text(result);
    if constexpr (std::is_integral_v<T>) {
        const bool fits = reference.exact >= std::numeric_limits<std::int32_t>::min() &&
                          reference.exact <= std::numeric_limits<std::int32_t>::max();
        // two's complement wrap-around: what 32-bit adders produce when the true sum does not fit
        const auto wrapped = static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(reference.exact)));
        v.expected = exact_text(wrapped);
        v.error = std::fabs(static_cast<double>(static_cast<std::int64_t>(result) - wrapped));
        v.pass = result == wrapped;
        if (!fits)
            v.note = "the exact sum " + std::to_string(reference.exact) + " overflows int32; compared modulo 2^32";
    } else {
        v.expected = exact_text(static_cast<T>(reference.sum));
        v.tolerance = tolerance_for(reference, depth);
        if (!std::isfinite(result)) {
            v.error = std::numeric_limits<double>::infinity();
            v.pass = false;
            v.note = "the GPU returned " + v.result + ", which is never a valid sum of finite inputs";
        } else {
            v.error = static_cast<double>(std::fabs(static_cast<long double>(result) - reference.sum));
            v.pass = v.error <= v.tolerance;
        }
    }
    if (!v.pass && v.note.empty()) v.note = "outside the tolerance";
    return v;
}

#define REDUCTION_INSTANTIATE_REFERENCE(T)                              \
    template Reference compute_reference<T>(const std::vector<T>&);     \
    template Verdict verify<T>(T, const Reference&, std::size_t);
REDUCTION_INSTANTIATE_REFERENCE(std::int32_t)
REDUCTION_INSTANTIATE_REFERENCE(float)
REDUCTION_INSTANTIATE_REFERENCE(double)

}  // namespace reduction
