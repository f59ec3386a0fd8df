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
    else if constexpr (std::is_same_v<T, long double>)  // an exact sum, possibly past DBL_MAX
        std::snprintf(text, sizeof text, "%.21Lg", value);
    else
        std::snprintf(text, sizeof text, "%.*g", std::numeric_limits<T>::max_digits10, static_cast<double>(value));
    return text;
}

// The largest (Max) or smallest (Min) value, NaNs skipped; the identity when there is none.
template <class Op, class T>
T extreme_of(const std::vector<T>& values) {
    const unsigned chunks = host_threads_for(values.size());
    std::vector<T> partial(chunks, Op::template identity<T>());
    for_each_chunk(values.size(), chunks, [&](unsigned c, std::size_t begin, std::size_t end) {
        T best = Op::template identity<T>();
        for (std::size_t i = begin; i < end; ++i) best = Op{}(best, values[i]);
        partial[c] = best;
    });
    T best = Op::template identity<T>();
    for (T x : partial) best = Op{}(best, x);
    return best;
}

// Max and min pick one input element: the GPU's result must be that value exactly.
template <class T>
Verdict verify_extreme(T result, const Reference& reference) {
    Verdict v;
    const T expected = std::is_integral_v<T> ? static_cast<T>(reference.exact) : static_cast<T>(reference.sum);
    v.result = exact_text(result);
    v.expected = exact_text(expected);
    v.pass = result == expected;
    v.error = v.pass ? 0.0 : std::fabs(static_cast<double>(result) - static_cast<double>(expected));
    if (!v.pass) v.note = std::string("the ") + (reference.op == OpKind::max ? "maximum" : "minimum") +
                          " is one input element and must come back exactly";
    return v;
}

}  // namespace

template <class T>
Reference compute_reference(const std::vector<T>& values, OpKind op) {
    Reference ref;
    ref.type = element_type_of<T>();
    ref.n = values.size();
    ref.op = op;
    if (op != OpKind::sum) {
        const T extreme = op == OpKind::max ? extreme_of<Max>(values) : extreme_of<Min>(values);
        if constexpr (std::is_integral_v<T>) ref.exact = extreme;
        else ref.sum = extreme;
        return ref;
    }
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
        // Each chunk sums its finite terms and notes its non-finite ones; chunks are joined in order,
        // so the first non-finite index is the first chunk's that has one.
        struct Chunk {
            CompensatedSum sum;
            long double abs = 0, positive = 0, negative = 0;  // all terms of one sign: plain sums are fine
            bool nan = false, plus_inf = false, minus_inf = false;
            std::size_t first_non_finite = Reference::no_index;
        };
        std::vector<Chunk> partial(chunks);
        for_each_chunk(values.size(), chunks, [&](unsigned c, std::size_t begin, std::size_t end) {
            Chunk k;
            for (std::size_t i = begin; i < end; ++i) {
                const T x = values[i];
                if (!std::isfinite(x)) {
                    if (k.first_non_finite == Reference::no_index) k.first_non_finite = i;
                    if (std::isnan(x)) k.nan = true;
                    else if (x > 0) k.plus_inf = true;
                    else k.minus_inf = true;
                    continue;
                }
                k.sum.add(x);
                k.abs += std::fabs(static_cast<long double>(x));
                (x > 0 ? k.positive : k.negative) += x;
            }
            partial[c] = k;
        });
        CompensatedSum total;
        for (const Chunk& k : partial) {
            total.add(k.sum.sum);
            total.add(k.sum.carry);
            ref.abs_sum += k.abs;
            ref.positive_sum += k.positive;
            ref.negative_sum += k.negative;
            ref.has_nan = ref.has_nan || k.nan;
            ref.has_plus_inf = ref.has_plus_inf || k.plus_inf;
            ref.has_minus_inf = ref.has_minus_inf || k.minus_inf;
            if (ref.first_non_finite == Reference::no_index) ref.first_non_finite = k.first_non_finite;
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
    if (reference.type == ElementType::int32 || reference.op != OpKind::sum) return 0.0;
    // The reference's own error (compensated summation: <= (2u + O(n u^2)) * sum|x|, u of long double)
    // is added so that the test never blames the GPU for the reference's rounding.
    const long double u_ref = LDBL_EPSILON / 2;
    const long double reference_error =
        (2 * u_ref + 2 * static_cast<long double>(reference.n) * u_ref * u_ref) * reference.abs_sum;
    return static_cast<double>(gamma_bound(reference.type, depth) * reference.abs_sum + reference_error);
}

template <class T>
Verdict verify(T result, const Reference& reference, std::size_t depth) {
    if (reference.op != OpKind::sum) return verify_extreme(result, reference);
    Verdict v;
    v.result = exact_text(result);
    if constexpr (std::is_integral_v<T>) {
        const bool fits = reference.exact >= std::numeric_limits<std::int32_t>::min() &&
                          reference.exact <= std::numeric_limits<std::int32_t>::max();
        // the kernels add uint32, which wraps modulo 2^32 by definition; read back as int32
        const auto wrapped = static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(reference.exact)));
        v.expected = exact_text(wrapped);
        v.error = std::fabs(static_cast<double>(static_cast<std::int64_t>(result) - wrapped));
        v.pass = result == wrapped;
        if (!fits)
            v.note = "the exact sum " + std::to_string(reference.exact) +
                     " is outside the int32 range; the int32 sum is defined modulo 2^32 (unsigned addition)";
    } else {
        constexpr T inf = std::numeric_limits<T>::infinity();
        v.tolerance = tolerance_for(reference, depth);
        if (reference.first_non_finite != Reference::no_index) {
            // NaN and infinities in the input: the IEEE result is the same for every order
            const bool nan = reference.has_nan || (reference.has_plus_inf && reference.has_minus_inf);
            const T expected = nan ? std::numeric_limits<T>::quiet_NaN() : reference.has_plus_inf ? inf : -inf;
            v.expected = exact_text(expected);
            v.pass = nan ? std::isnan(result) : result == expected;
            v.error = v.pass ? 0.0 : std::numeric_limits<double>::infinity();
            v.note = "input element " + std::to_string(reference.first_non_finite) +
                     " is the first non-finite one; with " +
                     (reference.has_nan ? std::string("a NaN among the inputs")
                      : nan            ? std::string("both +inf and -inf among the inputs")
                                       : std::string("an infinity among the inputs")) +
                     " the sum is " + v.expected;
        } else {
            const long double max = std::numeric_limits<T>::max();
            const long double growth = 1 + static_cast<long double>(gamma_bound(reference.type, depth));
            const bool can_overflow_up = reference.positive_sum * growth > max;
            const bool can_overflow_down = -reference.negative_sum * growth > max;
            const bool overflows = std::fabs(reference.sum) > max;
            v.expected = overflows ? exact_text(reference.sum > 0 ? inf : -inf) : exact_text(static_cast<T>(reference.sum));
            if (std::isfinite(result)) {
                v.error = static_cast<double>(std::fabs(static_cast<long double>(result) - reference.sum));
                v.pass = v.error <= v.tolerance;
            } else {
                v.error = std::numeric_limits<double>::infinity();
                v.pass = std::isnan(result) ? can_overflow_up && can_overflow_down
                                            : (result > 0 ? can_overflow_up : can_overflow_down);
                if (!v.pass && !can_overflow_up && !can_overflow_down)
                    v.note = "the GPU returned " + v.result + ", which is never a sum of these finite inputs";
                else if (!v.pass)
                    v.note = "the GPU returned " + v.result + ", which no order of these inputs can produce";
            }
            if (overflows)
                v.note = (v.note.empty() ? "" : v.note + "; ") + "the exact sum " + exact_text(reference.sum) +
                         " overflows " + type_name(reference.type) +
                         ", so the sum is " + v.expected + " (or a finite value within the tolerance)";
        }
    }
    if (!v.pass && v.note.empty()) v.note = "outside the tolerance";
    return v;
}

#define REDUCTION_INSTANTIATE_REFERENCE(T)                              \
    template Reference compute_reference<T>(const std::vector<T>&, OpKind); \
    template Verdict verify<T>(T, const Reference&, std::size_t);
REDUCTION_INSTANTIATE_REFERENCE(std::int32_t)
REDUCTION_INSTANTIATE_REFERENCE(float)
REDUCTION_INSTANTIATE_REFERENCE(double)

}  // namespace reduction
