#include "reference.h"
#include <cfloat>
#include <cstdio>
#include <limits>
#include <type_traits>

namespace reduction {
// What a float reference sums in: double for float32 (every float32 is exact in a double, and the double's 29
// more bits keep the sum's error far below any float32 tolerance, in four interleaved sums about twice as fast
// as one in long double), long double for the rest. Its unit roundoff enters the tolerance (tolerance_for).
template <class T>
using ReferenceWide = std::conditional_t<std::is_same_v<T, float>, double, long double>;

namespace {
// Neumaier's variant of Kahan summation: keeps the low-order bits lost by each addition, in W.
template <class W>
struct CompensatedSum {
    W sum = 0, carry = 0;
    void add(W x) {
        const W t = sum + x;
        carry += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
        sum = t;
    }
    long double value() const { return static_cast<long double>(sum) + static_cast<long double>(carry); }
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

// The summary of one contiguous run of input elements, for any operator; runs are appended in input order.
template <class T>
struct Partial {
    explicit Partial(OpKind kind = OpKind::sum) : op(kind) {}
    OpKind op;
    std::uint64_t wrapped = 0;  // int32 sum: unsigned, so it wraps (defined) and the low 32 bits stay exact
    using Wide = ReferenceWide<T>;
    CompensatedSum<Wide> sum;  // floating-point sum of the finite terms
    Wide abs = 0, positive = 0, negative = 0;  // all terms of one sign: plain sums are fine
    bool nan = false, plus_inf = false, minus_inf = false;
    std::size_t first_non_finite = Reference::no_index;
    T extreme = op == OpKind::max ? Max::identity<T>() : Min::identity<T>();  // max and min, NaNs skipped

    // values[k] is input element first + k.
    void add(const T* values, std::size_t count, std::size_t first) {
        if (op == OpKind::max) {
            for (std::size_t k = 0; k < count; ++k) extreme = Max{}(extreme, values[k]);
        } else if (op == OpKind::min) {
            for (std::size_t k = 0; k < count; ++k) extreme = Min{}(extreme, values[k]);
        } else if constexpr (std::is_integral_v<T>) {
            for (std::size_t k = 0; k < count; ++k) wrapped += static_cast<std::uint64_t>(std::int64_t{values[k]});
        } else {
            // Running sums in locals stay in registers (80-bit loads and stores at every element are slow). In
            // double, element k goes to lane k % 4: each addition then waits for the one 4 elements before it,
            // not for the one before (the long double's few registers hold one lane only).
            constexpr std::size_t lanes = std::is_same_v<Wide, double> ? 4 : 1;
            CompensatedSum<Wide> s[lanes] = {sum};
            Wide a[lanes] = {abs}, pos[lanes] = {positive}, neg[lanes] = {negative};
            const auto add_one = [&](std::size_t lane, std::size_t k) {
                const T x = values[k];
                if (!std::isfinite(x)) {
                    if (first_non_finite == Reference::no_index) first_non_finite = first + k;
                    (std::isnan(x) ? nan : x > 0 ? plus_inf : minus_inf) = true;
                    return;
                }
                s[lane].add(x);
                a[lane] += std::fabs(static_cast<Wide>(x));
                pos[lane] += x > 0 ? static_cast<Wide>(x) : Wide(0);  // adding +0 leaves a sum as it is: no branch
                neg[lane] += x > 0 ? Wide(0) : static_cast<Wide>(x);
            };
            std::size_t k = 0;
            for (; k + lanes <= count; k += lanes)
                for (std::size_t lane = 0; lane < lanes; ++lane) add_one(lane, k + lane);
            for (; k < count; ++k) add_one(0, k);
            sum = s[0];
            abs = a[0];
            positive = pos[0];
            negative = neg[0];
            for (std::size_t lane = 1; lane < lanes; ++lane) {
                sum.add(s[lane].sum);
                sum.add(s[lane].carry);
                abs += a[lane];
                positive += pos[lane];
                negative += neg[lane];
            }
        }
    }

    // The run that follows this one in the input.
    void append(const Partial& later) {
        extreme = op == OpKind::max ? Max{}(extreme, later.extreme) : Min{}(extreme, later.extreme);
        wrapped += later.wrapped;
        sum.add(later.sum.sum);
        sum.add(later.sum.carry);
        abs += later.abs;
        positive += later.positive;
        negative += later.negative;
        nan |= later.nan;
        plus_inf |= later.plus_inf;
        minus_inf |= later.minus_inf;
        if (first_non_finite == Reference::no_index) first_non_finite = later.first_non_finite;
    }

    // Max and min keep the extreme value in `exact` (int32) or `sum` (floats).
    Reference reference(std::size_t n) const {
        const bool is_sum = op == OpKind::sum;
        std::int64_t exact = 0;
        long double total = is_sum ? sum.value() : static_cast<long double>(extreme);
        if constexpr (std::is_integral_v<T>) {
            exact = is_sum ? static_cast<std::int64_t>(wrapped) : std::int64_t{extreme};
            total = is_sum ? static_cast<long double>(exact) : 0.0L;
        }
        return {op, n, exact, total, abs, positive, negative,
                nan, plus_inf, minus_inf, first_non_finite};
    }
};

// summarise(partial, begin, end) for one chunk of [0, n) per thread, the chunks then joined in order.
template <class T, class Summarise>
Partial<T> summarise_in_chunks(std::size_t n, OpKind op, Summarise summarise) {
    const unsigned chunks = host_threads_for(n);
    std::vector<Partial<T>> partial(chunks, Partial<T>(op));
    for_each_chunk(n, chunks, [&](unsigned c, std::size_t begin, std::size_t end) { summarise(partial[c], begin, end); });
    Partial<T> total(op);
    for (const Partial<T>& p : partial) total.append(p);
    return total;
}

// Summarises values[0, count), values[k] being input element offset + k.
template <class T>
Partial<T> summarise_values(const T* values, std::size_t count, std::size_t offset, OpKind op) {
    return summarise_in_chunks<T>(count, op, [&](Partial<T>& p, std::size_t begin, std::size_t end) {
        p.add(values + begin, end - begin, offset + begin);
    });
}
}  // namespace

template <class T>
Reference compute_reference(const std::vector<T>& values, OpKind op) {
    return summarise_values(values.data(), values.size(), 0, op).reference(values.size());
}

template <class T>
Reference compute_reference(std::size_t n, const ElementSource<T>& source, OpKind op) {
    constexpr std::size_t source_block = std::size_t{1} << 14;  // regenerated per call: 128 KiB of doubles, in cache
    const Partial<T> total = summarise_in_chunks<T>(n, op, [&](Partial<T>& p, std::size_t begin, std::size_t end) {
        std::vector<T> block(std::min(end - begin, source_block));
        for (std::size_t first = begin; first < end; first += block.size()) {
            const std::size_t count = std::min(block.size(), end - first);
            source(first, count, block.data());
            p.add(block.data(), count, first);
        }
    });
    return total.reference(n);
}

template <class T>
struct StreamingReference<T>::State {
    Partial<T> total;
    std::size_t n = 0;
};

template <class T>
StreamingReference<T>::StreamingReference(OpKind op) : state_(new State{Partial<T>(op), 0}) {}
template <class T>
StreamingReference<T>::~StreamingReference() = default;
template <class T>
void StreamingReference<T>::add(const T* values, std::size_t count) {
    state_->total.append(summarise_values(values, count, state_->n, state_->total.op));
    state_->n += count;
}

template <class T>
Reference StreamingReference<T>::result() const {
    return state_->total.reference(state_->n);
}

template <class T>
double tolerance_for(const Reference& reference, std::size_t depth) {
    if constexpr (std::is_integral_v<T>) {
        return 0.0;
    } else {
        if (reference.op != OpKind::sum) return 0.0;
        // plus the reference's own error (<= (2u + O(n u^2)) * sum|x|, u of the type it sums in): never blame the
        // GPU for it
        const long double u_ref = std::numeric_limits<ReferenceWide<T>>::epsilon() / 2.0L;
        const long double reference_error =
            (2 * u_ref + 2 * static_cast<long double>(reference.n) * u_ref * u_ref) * reference.abs_sum;
        return static_cast<double>(gamma_bound<T>(depth) * reference.abs_sum + reference_error);
    }
}

namespace {
// Max and min pick one input element: the GPU's result must be that value exactly.
template <class T>
void verify_extreme(T result, const Reference& reference, Verdict& v) {
    const T expected = std::is_integral_v<T> ? static_cast<T>(reference.exact) : static_cast<T>(reference.sum);
    v.expected = exact_text(expected);
    v.pass = result == expected;
    v.error = v.pass ? 0.0 : std::fabs(static_cast<double>(result) - static_cast<double>(expected));
    if (!v.pass) v.note = std::string("the ") + (reference.op == OpKind::max ? "maximum" : "minimum") +
                          " is one input element and must come back exactly";
}

// An int32 sum: exact, modulo 2^32 (the kernels add uint32, which wraps by definition; read back as int32).
void verify_int32_sum(std::int32_t result, const Reference& reference, Verdict& v) {
    const auto wrapped = static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(reference.exact)));
    v.expected = exact_text(wrapped);
    v.error = std::fabs(static_cast<double>(static_cast<std::int64_t>(result) - wrapped));
    v.pass = result == wrapped;
    if (wrapped != reference.exact)  // outside the int32 range
        v.note = "the exact sum " + std::to_string(reference.exact) +
                 " is outside the int32 range; the int32 sum is defined modulo 2^32 (unsigned addition)";
}

// A float sum of an input with NaN or infinities: the IEEE result is the same for every order.
template <class T>
void verify_non_finite_sum(T result, const Reference& reference, Verdict& v) {
    constexpr T inf = std::numeric_limits<T>::infinity();
    const bool nan = reference.has_nan || (reference.has_plus_inf && reference.has_minus_inf);
    const T expected = nan ? std::numeric_limits<T>::quiet_NaN() : reference.has_plus_inf ? inf : -inf;
    v.expected = exact_text(expected);
    v.pass = nan ? std::isnan(result) : result == expected;
    v.error = v.pass ? 0.0 : std::numeric_limits<double>::infinity();
    v.note = "input element " + std::to_string(reference.first_non_finite) + " is the first non-finite one; with " +
             (reference.has_nan ? "a NaN" : nan ? "both +inf and -inf" : "an infinity") +
             " among the inputs the sum is " + v.expected;
}

// A float sum of finite inputs: within the tolerance, or an infinity some order of the inputs can reach.
template <class T>
void verify_finite_sum(T result, const Reference& reference, std::size_t depth, Verdict& v) {
    constexpr T inf = std::numeric_limits<T>::infinity();
    const long double max = std::numeric_limits<T>::max();
    const long double growth = 1 + static_cast<long double>(gamma_bound<T>(depth));
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
        if (!v.pass)
            v.note = "the GPU returned " + v.result + ", which " +
                     (can_overflow_up || can_overflow_down ? "no order of these inputs can produce"
                                                           : "is never a sum of these finite inputs");
    }
    if (overflows)
        v.note = (v.note.empty() ? "" : v.note + "; ") + "the exact sum " + exact_text(reference.sum) + " overflows " +
                 type_name<T>() + ", so the sum is " + v.expected + " (or a finite value within the tolerance)";
}
}  // namespace

template <class T>
Verdict verify(T result, const Reference& reference, std::size_t depth) {
    Verdict v;
    v.result = exact_text(result);
    v.tolerance = tolerance_for<T>(reference, depth);
    if (reference.op != OpKind::sum) verify_extreme(result, reference, v);
    else if constexpr (std::is_integral_v<T>) verify_int32_sum(result, reference, v);
    else if (reference.first_non_finite != Reference::no_index) verify_non_finite_sum(result, reference, v);
    else verify_finite_sum(result, reference, depth, v);
    if (!v.pass && v.note.empty()) v.note = "outside the tolerance";
    return v;
}

#define REDUCTION_INSTANTIATE_REFERENCE(T)                                                 \
    template Reference compute_reference<T>(const std::vector<T>&, OpKind);                \
    template Reference compute_reference<T>(std::size_t, const ElementSource<T>&, OpKind); \
    template class StreamingReference<T>;                                                  \
    template double tolerance_for<T>(const Reference&, std::size_t);                       \
    template Verdict verify<T>(T, const Reference&, std::size_t);
REDUCTION_INSTANTIATE_REFERENCE(std::int32_t)
REDUCTION_INSTANTIATE_REFERENCE(float)
REDUCTION_INSTANTIATE_REFERENCE(double)
}  // namespace reduction
