// The CPU reference and the verdict: integers exact (modulo 2^32 when the sum overflows), floats
// within gamma_d * sum|x| of a compensated sum; a NaN or an infinity only where the inputs make it
// the right result (non-finite inputs, overflow); max and min exactly.
#include "../catch.h"
#include "../each_type.h"
#include "host_test_support.h"
#include "input.h"
#include "reference.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

using namespace reduction;
using reduction::test::contains;

namespace {

constexpr std::int32_t two_to_30 = std::int32_t{1} << 30;

// Higham's gamma_d, written out here rather than taken from gamma_bound.
double expected_gamma(std::size_t depth, int mantissa_bits) {
    const double u = std::ldexp(1.0, -mantissa_bits);
    return static_cast<double>(depth) * u / (1 - static_cast<double>(depth) * u);
}

// Recursive (left-to-right) summation in T: its error bound is gamma_{n-1} * sum|x|.
template <class T>
T serial_sum(const std::vector<T>& values) {
    T sum = 0;
    for (T v : values) sum += v;
    return sum;
}

// Pairwise summation in T: a balanced tree of depth ceil(log2 n), like a GPU's.
template <class T>
T pairwise_sum(const T* values, std::size_t n) {
    if (n == 1) return values[0];
    const std::size_t half = (n + 1) / 2;
    return pairwise_sum(values, half) + pairwise_sum(values + half, n - half);
}

std::size_t ceil_log2(std::size_t n) {
    std::size_t depth = 0;
    while ((std::size_t{1} << depth) < n) ++depth;
    return depth;
}

// The verdict on the value `amount` away from the reference, which must be representable that
// precisely in T (REQUIRE'd, so that a pass or a fail is about the tolerance, not about rounding).
template <class T>
Verdict verdict_at_offset(const Reference& reference, std::size_t depth, double amount) {
    const T result = static_cast<T>(reference.sum + amount);
    const Verdict v = verify(result, reference, depth);
    INFO("offset " << amount << ", error " << v.error << ", tolerance " << v.tolerance);
    REQUIRE(test::close_to(v.error, std::fabs(amount), 0.01));
    return v;
}

// A result inside the tolerance passes; the same error doubled is what the tolerance exists to
// reject. Checked on both sides of the reference.
template <class T>
void check_tolerance_edges(std::size_t n, std::size_t depth) {
    const auto values = generate_input<T>(n, Pattern::random, 2024);
    const Reference reference = compute_reference(values);
    const double tolerance = tolerance_for<T>(reference, depth);
    REQUIRE(tolerance > 0);
    for (double side : {1.0, -1.0}) {
        INFO("side " << side);
        CHECK(verdict_at_offset<T>(reference, depth, side * 0.5 * tolerance).pass);
        CHECK(verdict_at_offset<T>(reference, depth, side * 0.9 * tolerance).pass);
        CHECK_FALSE(verdict_at_offset<T>(reference, depth, side * 1.1 * tolerance).pass);
        const Verdict doubled = verdict_at_offset<T>(reference, depth, side * 2.0 * tolerance);
        CHECK_FALSE(doubled.pass);
        CHECK(contains(doubled.note, "outside the tolerance"));
    }
}

// Real summation orders stay inside their own bound, and dropping one element does not.
template <class T>
void check_real_orders(std::size_t n) {
    const auto values = generate_input<T>(n, Pattern::random, 77);
    const Reference reference = compute_reference(values);
    CHECK(verify(serial_sum(values), reference, n - 1).pass);
    CHECK(verify(pairwise_sum(values.data(), n), reference, ceil_log2(n)).pass);

    // the classic bug: one element never added. Pick one far larger than the tolerance.
    std::size_t dropped = 0;
    while (std::fabs(values[dropped]) < 0.5) ++dropped;
    std::vector<T> without = values;
    without.erase(without.begin() + static_cast<std::ptrdiff_t>(dropped));
    const Verdict v = verify(pairwise_sum(without.data(), without.size()), reference, ceil_log2(n));
    INFO("dropped x[" << dropped << "] = " << values[dropped] << ", tolerance " << v.tolerance);
    CHECK_FALSE(v.pass);
}

template <class T>
void check_non_finite_results_fail() {
    const Reference reference = compute_reference(std::vector<T>{T(1), T(2)});
    for (T bad : {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                  -std::numeric_limits<T>::infinity()}) {
        const Verdict v = verify(bad, reference, 1);
        INFO("result " << v.result);
        CHECK_FALSE(v.pass);
        CHECK(std::isinf(v.error));
        CHECK(contains(v.note, "never a sum of these finite inputs"));
    }
}

// Integers print as integers; float results print with enough digits to read back the same value.
template <class T>
T read_back(const std::string& text) {
    if constexpr (std::is_same_v<T, float>)
        return std::strtof(text.c_str(), nullptr);
    else
        return std::strtod(text.c_str(), nullptr);
}

template <class T>
void check_strings_round_trip(std::vector<T> samples) {
    for (T value : samples) {
        const Reference reference = compute_reference(std::vector<T>{value});
        const Verdict v = verify(value, reference, 1);
        INFO("value " << v.result);
        CHECK(v.pass);
        CHECK(read_back<T>(v.result) == value);
        CHECK(read_back<T>(v.expected) == value);
    }
}

}  // namespace

TEST_CASE("int32 sums are exact", "[reference]") {
    const Reference small = compute_reference(std::vector<std::int32_t>{1, 2, 3});
    CHECK(small.n == 3);
    CHECK(small.exact == 6);
    const Verdict v = verify(std::int32_t{6}, small, 2);
    CHECK(v.pass);
    CHECK(v.result == "6");
    CHECK(v.expected == "6");
    CHECK(v.error == 0);
    CHECK(v.tolerance == 0);
    CHECK(v.note.empty());

    CHECK(compute_reference(std::vector<std::int32_t>{-5, 5}).exact == 0);
    CHECK(compute_reference(std::vector<std::int32_t>{-1000}).exact == -1000);
    // index pattern: two full cycles of 0..999 and 0..499
    CHECK(compute_reference(generate_input<std::int32_t>(2500, Pattern::index, 0)).exact == 1123750);
    // alternating with odd n: one +1 left over
    CHECK(compute_reference(generate_input<std::int32_t>(2001, Pattern::alternating, 0)).exact == 1);
}

TEST_CASE("a threaded int32 reference equals a serial 64-bit sum", "[reference]") {
    const auto values = generate_input<std::int32_t>(3000000, Pattern::random, 9);
    const std::int64_t serial = std::accumulate(values.begin(), values.end(), std::int64_t{0});
    CHECK(compute_reference(values).exact == serial);
    CHECK(compute_reference(generate_input<std::int32_t>(3000000, Pattern::ones, 0)).exact == 3000000);
}

TEST_CASE("an int32 sum that overflows is compared modulo 2^32", "[reference]") {
    SECTION("above the int32 range") {
        const Reference reference = compute_reference(std::vector<std::int32_t>{two_to_30, two_to_30, two_to_30});
        CHECK(reference.exact == 3221225472);
        const std::int32_t wrapped = -two_to_30;  // 3 * 2^30 - 2^32: the exact sum modulo 2^32, read as int32
        const Verdict v = verify(wrapped, reference, 2);
        CHECK(v.pass);
        CHECK(v.expected == "-1073741824");
        CHECK(contains(v.note, "modulo"));
        CHECK(contains(v.note, "3221225472"));
        CHECK_FALSE(verify(std::int32_t{wrapped + 1}, reference, 2).pass);
        CHECK_FALSE(verify(std::int32_t{wrapped - 1}, reference, 2).pass);
    }
    SECTION("below the int32 range") {
        const Reference reference = compute_reference(std::vector<std::int32_t>{-two_to_30, -two_to_30, -two_to_30});
        CHECK(reference.exact == -3221225472);
        const Verdict v = verify(two_to_30, reference, 2);
        CHECK(v.pass);
        CHECK(v.expected == "1073741824");
        CHECK(contains(v.note, "modulo"));
    }
    SECTION("wrapping all the way round to zero") {
        const std::int32_t min = std::numeric_limits<std::int32_t>::min();
        const Reference reference = compute_reference(std::vector<std::int32_t>{min, min});
        CHECK(verify(std::int32_t{0}, reference, 1).pass);
    }
    SECTION("the extremes themselves fit and need no note") {
        const std::int32_t max = std::numeric_limits<std::int32_t>::max();
        const Verdict v = verify(max, compute_reference(std::vector<std::int32_t>{max - 1, 1}), 1);
        CHECK(v.pass);
        CHECK(v.note.empty());
        CHECK(v.expected == "2147483647");
    }
}

TEST_CASE("an int32 result off by one fails", "[reference]") {
    const Reference reference = compute_reference(std::vector<std::int32_t>{1, 2, 3});
    for (std::int32_t wrong : {5, 7, -6}) {
        const Verdict v = verify(wrong, reference, 2);
        INFO("result " << wrong);
        CHECK_FALSE(v.pass);
        CHECK(v.error == std::fabs(wrong - 6.0));
        CHECK(contains(v.note, "outside the tolerance"));
    }
}

TEST_CASE("int32 has no tolerance", "[reference]") {
    const Reference reference = compute_reference(generate_input<std::int32_t>(1000, Pattern::random, 1));
    for (std::size_t depth : {std::size_t{0}, std::size_t{10}, std::size_t{1} << 40}) {
        CHECK(tolerance_for<std::int32_t>(reference, depth) == 0);
        CHECK(verify(static_cast<std::int32_t>(reference.exact), reference, depth).tolerance == 0);
    }
}

TEST_CASE("the float reference is compensated", "[reference]") {
    SECTION("float32: 1e8 + 1 - 1e8") {
        const Reference reference = compute_reference(std::vector<float>{1e8f, 1.0f, -1e8f});
        CHECK(reference.sum == 1.0L);
        CHECK(reference.abs_sum == 200000001.0L);
        const Verdict v = verify(1.0f, reference, 2);
        CHECK(v.pass);
        CHECK(v.expected == "1");
        CHECK(v.error == 0);
    }
    SECTION("float64: 1e20 + 1 - 1e20, beyond even an 80-bit long double") {
        CHECK(compute_reference(std::vector<double>{1e20, 1.0, -1e20}).sum == 1.0L);
        CHECK(compute_reference(std::vector<double>{1.0, 1e30, -1e30}).sum == 1.0L);
    }
    SECTION("cancellation across the threads' chunks") {
        // 1e20 in the first chunk, -1e20 in the last: the ones in between survive only if each
        // chunk's carry is combined, not just its sum
        const std::size_t n = 3000000;
        std::vector<double> values(n, 1.0);
        values.front() = 1e20;
        values.back() = -1e20;
        CHECK(compute_reference(values).sum == static_cast<long double>(n - 2));
    }
}

TEST_CASE("gamma_bound is Higham's gamma_d for the type's unit roundoff", "[reference]") {
    CHECK(gamma_bound<float>(24) == expected_gamma(24, 24));
    CHECK(gamma_bound<double>(24) == expected_gamma(24, 53));
    CHECK(gamma_bound<float>(1) == expected_gamma(1, 24));
    CHECK(gamma_bound<double>(1000000) == expected_gamma(1000000, 53));
    CHECK(gamma_bound<float>(0) == 0);
    // bigger d, bigger bound
    CHECK(gamma_bound<float>(25) > gamma_bound<float>(24));

    // d*u >= 1: the bound says nothing
    CHECK(std::isinf(gamma_bound<float>(std::size_t{1} << 24)));
    CHECK(std::isinf(gamma_bound<float>(std::size_t{1} << 30)));
    CHECK(std::isinf(gamma_bound<double>(std::size_t{1} << 53)));
    CHECK(std::isinf(gamma_bound<double>(std::numeric_limits<std::size_t>::max())));
    CHECK(std::isfinite(gamma_bound<float>((std::size_t{1} << 24) - 1)));
    CHECK(std::isfinite(gamma_bound<double>((std::size_t{1} << 53) - 1)));
}

TEST_CASE("the tolerance is gamma_d * sum|x| plus the reference's own tiny error", "[reference]") {
    // a hand-made case: sum|x| = 1.75, d = 2
    const Reference small = compute_reference(std::vector<float>{0.5f, -0.25f, 1.0f});
    CHECK(small.abs_sum == 1.75L);
    // plus the reference's own term, (2u + 2 n u^2) * sum|x| with u of a double (float32 is summed in double)
    const double u_double = DBL_EPSILON / 2;
    CHECK(test::close_to(tolerance_for<float>(small, 2),
                         expected_gamma(2, 24) * 1.75 + (2 * u_double + 2 * 3 * u_double * u_double) * 1.75, 1e-12));

    test::for_each_float_type([](auto zero) {
        using T = decltype(zero);
        const int mantissa_bits = std::numeric_limits<T>::digits;
        for (std::size_t depth : {std::size_t{1}, std::size_t{12}, std::size_t{4095}}) {
            INFO(type_name<T>() << ", depth " << depth);
            const Reference reference = compute_reference(generate_input<T>(4096, Pattern::random, 5));
            const double gamma_term = expected_gamma(depth, mantissa_bits) * static_cast<double>(reference.abs_sum);
            // the reference term is a few roundoffs of sum|x| in the type the reference sums in (double for
            // float32, long double for float64), nothing more
            const long double reference_epsilon = std::is_same_v<T, float> ? DBL_EPSILON : LDBL_EPSILON;
            const double reference_term_bound = 4 * static_cast<double>(reference_epsilon * reference.abs_sum);
            const double tolerance = tolerance_for<T>(reference, depth);
            CHECK(tolerance >= gamma_term * (1 - 1e-12));
            CHECK(tolerance <= gamma_term * (1 + 1e-12) + reference_term_bound);
            CHECK(verify(T(0), reference, depth).tolerance == tolerance);
        }
    });
}

TEST_CASE("a float result inside the tolerance passes, twice the tolerance fails", "[reference]") {
    test::for_each_float_type([](auto zero) { check_tolerance_edges<decltype(zero)>(4096, 12); });
}

TEST_CASE("serial and pairwise float sums pass, a dropped element fails", "[reference]") {
    test::for_each_float_type([](auto zero) { check_real_orders<decltype(zero)>(100000); });
}

TEST_CASE("NaN and infinite results fail", "[reference]") {
    test::for_each_float_type([](auto zero) { check_non_finite_results_fail<decltype(zero)>(); });
}

TEST_CASE("result and expected strings are exact", "[reference]") {
    SECTION("int32 prints as an integer") {
        const std::int32_t min = std::numeric_limits<std::int32_t>::min();
        const Verdict v = verify(min, compute_reference(std::vector<std::int32_t>{min}), 0);
        CHECK(v.result == "-2147483648");
        CHECK(v.expected == "-2147483648");
        CHECK(verify(std::int32_t{-123}, compute_reference(std::vector<std::int32_t>{-123}), 0).result == "-123");
    }
    SECTION("floats print with enough digits to round-trip") {
        CHECK(verify(0.1f, compute_reference(std::vector<float>{0.1f}), 0).result == "0.100000001");
        CHECK(verify(0.1, compute_reference(std::vector<double>{0.1}), 0).result == "0.10000000000000001");
        check_strings_round_trip<float>({1.0f / 3, -2.5f, 1e-30f, 3.4e38f, 16777215.0f, 1e-45f});
        check_strings_round_trip<double>({1.0 / 3, -2.5, 1e-300, 1.7e308, 9007199254740991.0, 5e-324});
    }
    SECTION("the expected float is the reference rounded to the result's type") {
        // 0.1f + 0.2f in long double is not a float; expected is the float nearest to it
        const Reference reference = compute_reference(std::vector<float>{0.1f, 0.2f});
        const Verdict v = verify(0.0f, reference, 1);
        CHECK(read_back<float>(v.expected) == static_cast<float>(reference.sum));
    }
}

// Non-finite inputs: the IEEE result does not depend on the order, so it is expected exactly.
template <class T>
void check_non_finite_inputs() {
    constexpr T inf = std::numeric_limits<T>::infinity();
    const T nan = std::numeric_limits<T>::quiet_NaN();
    const auto verdict_for = [](const std::vector<T>& values, T result) {
        return verify(result, compute_reference(values), values.size() - 1);
    };
    SECTION("a NaN input: NaN expected, and the first non-finite index named") {
        const std::vector<T> values{T(1), T(2), nan, T(3), inf};
        const Verdict v = verdict_for(values, nan);
        INFO(v.note);
        CHECK(v.pass);
        CHECK(contains(v.note, "input element 2"));
        CHECK_FALSE(verdict_for(values, inf).pass);
        CHECK_FALSE(verdict_for(values, T(6)).pass);
    }
    SECTION("+inf and -inf: NaN expected") {
        const std::vector<T> values{T(1), -inf, T(2), inf};
        CHECK(verdict_for(values, nan).pass);
        CHECK(contains(verdict_for(values, nan).note, "input element 1"));
        CHECK_FALSE(verdict_for(values, inf).pass);
        CHECK_FALSE(verdict_for(values, -inf).pass);
    }
    SECTION("only +inf, or only -inf: that infinity expected") {
        const std::vector<T> plus{T(1), T(2), inf, T(-5)};
        CHECK(verdict_for(plus, inf).pass);
        CHECK(verdict_for(plus, inf).expected == "inf");
        CHECK_FALSE(verdict_for(plus, -inf).pass);
        CHECK_FALSE(verdict_for(plus, nan).pass);
        CHECK_FALSE(verdict_for(plus, T(-2)).pass);
        const std::vector<T> minus{-inf, T(1)};
        CHECK(verdict_for(minus, -inf).pass);
        CHECK(contains(verdict_for(minus, -inf).note, "input element 0"));
        CHECK_FALSE(verdict_for(minus, inf).pass);
    }
    SECTION("finite inputs whose exact sum overflows: the infinity of its sign") {
        const T max = std::numeric_limits<T>::max();
        const std::vector<T> up{max, max / 2, T(1)};
        const Verdict v = verdict_for(up, inf);
        INFO(v.note);
        CHECK(v.pass);
        CHECK(v.expected == "inf");
        CHECK(contains(v.note, "overflows"));
        CHECK_FALSE(verdict_for(up, -inf).pass);
        CHECK_FALSE(verdict_for(up, nan).pass);  // only the positive terms can overflow
        CHECK_FALSE(verdict_for(up, T(1)).pass);
        const std::vector<T> down{-max, -max};
        CHECK(verdict_for(down, -inf).pass);
        CHECK_FALSE(verdict_for(down, inf).pass);
    }
    SECTION("both signs can overflow: an order may meet +inf and -inf, so NaN is a valid result") {
        const T max = std::numeric_limits<T>::max();
        const std::vector<T> both{-max, -max, max, max, max, max};  // exact sum 2 max; pairwise: -inf + inf
        CHECK(verdict_for(both, inf).pass);
        CHECK(verdict_for(both, nan).pass);
        CHECK(verdict_for(both, -inf).pass);
    }
}

TEST_CASE("non-finite inputs and overflowing sums have a known right result", "[reference]") {
    test::for_each_float_type([](auto zero) { check_non_finite_inputs<decltype(zero)>(); });
}

TEST_CASE("max and min: the extreme element, compared exactly", "[reference]") {
    const std::vector<std::int32_t> ints = {5, -7, 1000, -1000, 999};
    const Reference max_ref = compute_reference(ints, OpKind::max);
    const Reference min_ref = compute_reference(ints, OpKind::min);
    CHECK(max_ref.exact == 1000);
    CHECK(min_ref.exact == -1000);
    CHECK(verify<std::int32_t>(1000, max_ref, 0).pass);
    CHECK_FALSE(verify<std::int32_t>(999, max_ref, 0).pass);  // one off is wrong: no tolerance
    CHECK(verify<std::int32_t>(-1000, min_ref, 0).pass);
    CHECK(tolerance_for<std::int32_t>(max_ref, 1000) == 0.0);

    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> floats = {0.5f, -inf, 2.25f, -3.0f};
    CHECK(verify<float>(2.25f, compute_reference(floats, OpKind::max), 0).pass);
    CHECK(verify<float>(-inf, compute_reference(floats, OpKind::min), 0).pass);
    CHECK_FALSE(verify<float>(std::nextafter(2.25f, 3.0f), compute_reference(floats, OpKind::max), 0).pass);
    // only -inf: the maximum is -inf itself, not the operator's identity
    const std::vector<float> only_minus_inf(3, -inf);
    CHECK(verify<float>(-inf, compute_reference(only_minus_inf, OpKind::max), 0).pass);
}

// The references that never hold the input (regenerated block by block, or streamed in pieces)
// against the whole-array compute_reference: every pattern, type and operator.
namespace {

constexpr Pattern reference_patterns[] = {Pattern::random, Pattern::ones, Pattern::index, Pattern::alternating};
constexpr OpKind reference_ops[] = {OpKind::sum, OpKind::max, OpKind::min};

// Every field; the long double sums must be equal or within `relative` of each other.
void check_same_reference(const Reference& got, const Reference& expected, long double relative) {
    CHECK(got.op == expected.op);
    CHECK(got.n == expected.n);
    CHECK(got.exact == expected.exact);
    const auto close = [relative](long double a, long double b) {
        return a == b || std::fabs(a - b) <= relative * std::fabs(b);  // equal infinities too (max and min)
    };
    INFO("sum " << static_cast<double>(got.sum) << " vs " << static_cast<double>(expected.sum));
    CHECK(close(got.sum, expected.sum));
    CHECK(close(got.abs_sum, expected.abs_sum));
    CHECK(close(got.positive_sum, expected.positive_sum));
    CHECK(close(got.negative_sum, expected.negative_sum));
    CHECK(got.has_nan == expected.has_nan);
    CHECK(got.has_plus_inf == expected.has_plus_inf);
    CHECK(got.has_minus_inf == expected.has_minus_inf);
    CHECK(got.first_non_finite == expected.first_non_finite);
}

// An ElementSource over a vector: what generated_reference does with the formula, on any values.
template <class T>
ElementSource<T> source_of(const std::vector<T>& values) {
    return [&values](std::size_t first, std::size_t count, T* out) {
        std::copy(values.begin() + static_cast<std::ptrdiff_t>(first),
                  values.begin() + static_cast<std::ptrdiff_t>(first + count), out);
    };
}

// Pieces of 1, 2, 3, ... elements, then the rest: boundaries everywhere, none aligned.
template <class T>
Reference streamed(const std::vector<T>& values, OpKind op) {
    StreamingReference<T> stream(op);
    std::size_t first = 0;
    for (std::size_t piece = 1; first < values.size(); piece = piece * 3 + 1) {
        const std::size_t count = std::min(piece, values.size() - first);
        stream.add(values.data() + first, count);
        first += count;
    }
    return stream.result();
}

template <class T>
struct RegeneratedMatchesWhole {
    void operator()() const {
        // 3,000,000 elements: several threads' chunks, each many blocks of the ElementSource
        for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{1000}, std::size_t{3000000}}) {
            for (Pattern pattern : reference_patterns) {
                const std::vector<T> values = generate_input<T>(n, pattern, 31337);
                for (OpKind op : reference_ops) {
                    INFO("n " << n << ", pattern " << pattern_name(pattern) << ", op " << op_name(op));
                    const Reference whole = compute_reference(values, op);
                    check_same_reference(generated_reference<T>(n, pattern, 31337, op), whole, 0);  // bit for bit
                    check_same_reference(streamed(values, op), whole, 1e-15L);
                }
            }
        }
    }
};

template <class T>
struct NonFiniteFoundByIndex {
    void operator()() const {
        if constexpr (std::is_floating_point_v<T>) {
            std::vector<T> values = generate_input<T>(3000000, Pattern::random, 5);
            values[2500001] = std::numeric_limits<T>::infinity();  // inside a later thread's chunk and block
            values[2999999] = std::numeric_limits<T>::quiet_NaN();
            for (OpKind op : reference_ops) {
                INFO("op " << op_name(op));
                const Reference whole = compute_reference(values, op);
                check_same_reference(compute_reference<T>(values.size(), source_of(values), op), whole, 0);
                check_same_reference(streamed(values, op), whole, 1e-15L);
                if (op == OpKind::sum) CHECK(streamed(values, op).first_non_finite == 2500001);
            }
        }
    }
};

}  // namespace

TEST_CASE("the regenerated and the streamed reference equal the whole-array one", "[reference]") {
    test::for_each_type<RegeneratedMatchesWhole>();
}

TEST_CASE("non-finite inputs are found at their index by every reference", "[reference]") {
    test::for_each_float_type([](auto zero) { NonFiniteFoundByIndex<decltype(zero)>{}(); });
}

TEST_CASE("int32 sums of the regenerated reference wrap like the whole-array one", "[reference]") {
    // 1,000,003 copies of 2^30 - 1 (via a source, no pattern has them): the sum leaves int32 many times over
    const std::size_t n = 1000003;
    const std::int32_t big = two_to_30 - 1;
    const ElementSource<std::int32_t> source = [big](std::size_t, std::size_t count, std::int32_t* out) {
        std::fill(out, out + count, big);
    };
    const Reference reference = compute_reference<std::int32_t>(n, source);
    CHECK(reference.exact == static_cast<std::int64_t>(n) * big);
    CHECK(reference.exact == compute_reference(std::vector<std::int32_t>(n, big)).exact);
}
