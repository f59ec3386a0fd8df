// The exact sum rounded once (common/exact_sum.h): ties to even, the cancellations no running sum
// survives, subnormals, overflow to infinity, every NaN and infinity placement, the sign of zero;
// the same bits in every order and every split; and, on inputs whose exact sum fits in 128 bits,
// the same value as the compiler's own correctly rounded conversion of that integer.
#include "../catch.h"
#include "../each_type.h"
#include "exact_sum.h"
#include "reference.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using reduction::ExactSum;
using reduction::exact_sum;

namespace {

__extension__ typedef __int128 Int128;  // GCC and Clang: the oracle's integer (-Wpedantic knows it is an extension)

template <class T>
T sum_of(std::vector<T> values) {
    return exact_sum(values.data(), values.size());
}

template <class T>
bool same_bits(T a, T b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
void check_rounding_and_specials() {
    using L = std::numeric_limits<T>;
    const int p = L::digits;
    const T one = 1, half_ulp = std::ldexp(T(1), -p), ulp = std::ldexp(T(1), 1 - p);
    const T tiny = L::denorm_min(), big = L::max(), inf = L::infinity();
    INFO("precision " << p);
    // ties to even: 1 + half an ulp stays 1; (1 + ulp) + half an ulp goes up to 1 + 2 ulp
    CHECK(sum_of<T>({one, half_ulp}) == one);
    CHECK(sum_of<T>({one + ulp, half_ulp}) == one + 2 * ulp);
    // a tie broken by a bit far below it, which any running sum in T loses
    CHECK(sum_of<T>({one, half_ulp, tiny}) == one + ulp);
    CHECK(sum_of<T>({tiny, one, half_ulp}) == one + ulp);
    // below 1 the spacing is half an ulp: 1 - a quarter ulp is a tie between 1 (even) and 1 - half an ulp
    CHECK(sum_of<T>({one, -half_ulp / 2}) == one);
    CHECK(sum_of<T>({one, -half_ulp / 2, -tiny}) == one - half_ulp);
    // massive cancellation: the huge values cancel exactly, the smallest subnormal is the answer
    const T huge = std::ldexp(T(1), L::max_exponent - 1);
    CHECK(same_bits(sum_of<T>({huge, tiny, -huge}), tiny));
    CHECK(same_bits(sum_of<T>({huge, -huge, huge, tiny, -huge}), tiny));
    CHECK(sum_of<T>({big, big, -big, -big, one}) == one);
    // alternating huge values around a small sum
    std::vector<T> alternating;
    for (int i = 0; i < 1001; ++i) alternating.push_back(i % 2 == 0 ? big : -big);
    alternating.push_back(T(3));
    CHECK(sum_of(alternating) == big);  // 501 x big - 500 x big + 3: big (3 is far below half its ulp)
    // subnormals: exact, and carried into the normal range
    CHECK(same_bits(sum_of<T>({tiny, tiny}), 2 * tiny));
    std::vector<T> many(1 << 12, L::min() / 1024);
    CHECK(sum_of(many) == 4 * L::min());
    // overflow: an exact sum past the largest value rounds to infinity; a sum that comes back does not
    CHECK(sum_of<T>({big, big}) == inf);
    CHECK(sum_of<T>({-big, -big}) == -inf);
    const T half_ulp_of_big = std::ldexp(T(1), L::max_exponent - p - 1);
    CHECK(sum_of<T>({big, half_ulp_of_big}) == inf);  // a tie, and big's last bit is odd: rounds up, past the range
    CHECK(sum_of<T>({big, half_ulp_of_big, -tiny}) == big);
    CHECK(sum_of<T>({big, big, -big}) == big);
    // NaN and infinities, wherever they stand
    const T nan = L::quiet_NaN();
    for (std::size_t at : {0, 2, 4}) {
        std::vector<T> values{one, big, -big, tiny, one};
        values[at] = nan;
        CHECK(std::isnan(sum_of(values)));
        values[at] = inf;
        CHECK(sum_of(values) == inf);
        values[at] = -inf;
        CHECK(sum_of(values) == -inf);
        values[(at + 1) % values.size()] = inf;
        CHECK(std::isnan(sum_of(values)));
    }
    CHECK(sum_of<T>({inf, big, big}) == inf);
    // the sign of zero: -0 only when every input is -0
    const T zero = 0, minus_zero = -T(0);
    CHECK(std::signbit(sum_of<T>({minus_zero})));
    CHECK(std::signbit(sum_of<T>({minus_zero, minus_zero, minus_zero})));
    CHECK(!std::signbit(sum_of<T>({minus_zero, zero})));
    CHECK(!std::signbit(sum_of<T>({one, -one})));
    CHECK(!std::signbit(sum_of<T>({-one, one, minus_zero})));
    CHECK(sum_of<T>({minus_zero, -one}) == -one);
}

// Values of every exponent the type has, signs mixed, with cancelling pairs mixed in.
template <class T>
std::vector<T> wide_values(std::mt19937_64& random, std::size_t n) {
    using L = std::numeric_limits<T>;
    std::uniform_int_distribution<int> exponent(L::min_exponent - L::digits, L::max_exponent - 1);
    std::uniform_real_distribution<T> mantissa(1, 2);
    std::vector<T> values;
    while (values.size() < n) {
        T x = std::ldexp(mantissa(random), exponent(random) - 1);
        if (random() % 2) x = -x;
        values.push_back(x);
        if (random() % 3 == 0) values.push_back(-x);
    }
    return values;
}

template <class T>
void check_order_and_splits() {
    std::mt19937_64 random(20261128);
    for (std::size_t n : {1, 2, 3, 17, 1000, 100003}) {
        std::vector<T> values = wide_values<T>(random, n);
        const T first = sum_of(values);
        for (int shuffle = 0; shuffle < 3; ++shuffle) {
            std::shuffle(values.begin(), values.end(), random);
            INFO("n=" << values.size() << " shuffle " << shuffle);
            CHECK(same_bits(sum_of(values), first));
            // split into chunks of another accumulator each, merged in reverse order: a grid of any shape
            for (std::size_t chunks : {2, 7, 64}) {
                std::vector<ExactSum<T>> parts(chunks);
                for (std::size_t i = 0; i < values.size(); ++i) parts[i * chunks / values.size()].add(values[i]);
                ExactSum<T> merged;
                for (std::size_t c = chunks; c-- > 0;) merged.merge(parts[c]);
                CHECK(same_bits(merged.result(), first));
            }
        }
    }
}

// Inputs k x 2^-40 with |k| < 2^53 (float64) or 2^24 (float32): the exact sum is an integer count of
// 2^-40 that fits in 128 bits, and the compiler's conversion of a 128-bit integer to T rounds to
// nearest, ties to even: an oracle written by someone else.
template <class T>
void check_against_integers() {
    std::mt19937_64 random(42);
    const int p = std::numeric_limits<T>::digits;
    for (int trial = 0; trial < 200; ++trial) {
        const std::size_t n = 1 + random() % 5000;
        const int spread = static_cast<int>(random() % (127 - p - 14));  // k << spread, times n < 2^13: within 127 bits
        std::vector<T> values;
        Int128 exact = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const auto k = static_cast<std::int64_t>(random() >> (64 - p)) * (random() % 2 ? 1 : -1);
            const int shift = static_cast<int>(random() % (spread + 1));
            values.push_back(std::ldexp(static_cast<T>(k), shift - 40));  // exact: |k| < 2^p
            exact += static_cast<Int128>(k) << shift;
        }
        const T expected = std::ldexp(static_cast<T>(exact), -40);  // exact scaling of the rounded integer
        INFO("trial " << trial << " n=" << n << " spread " << spread);
        CHECK(same_bits(sum_of(values), expected));
    }
}

// The harness's reference (long double, compensated) and the exact sum, written apart, agree: the
// exact sum, rounded, lies within the reference's own error bound plus half an ulp of T.
template <class T>
void check_reference_agrees() {
    std::mt19937_64 random(7);
    for (std::size_t n : {1, 10, 1000, 100003}) {
        const std::vector<T> values = wide_values<T>(random, n);
        const T exact = sum_of(values);
        if (!std::isfinite(exact)) continue;
        const reduction::Reference reference = reduction::compute_reference(values);
        const long double half_ulp = (std::nextafter(std::fabs(exact), std::numeric_limits<T>::infinity()) - std::fabs(exact)) / 2.0L;
        INFO("n=" << values.size() << " exact " << exact << " reference " << static_cast<double>(reference.sum));
        CHECK(std::fabs(reference.sum - static_cast<long double>(exact)) <= reduction::tolerance_for<T>(reference, 0) + half_ulp);
    }
}

}  // namespace

TEST_CASE("the compensated reference agrees with the exact sum within its bound", "[exact_sum]") {
    reduction::test::for_each_float_type([](auto zero) { check_reference_agrees<decltype(zero)>(); });
}

TEST_CASE("the exact sum rounds once, to nearest even, with IEEE's special values", "[exact_sum]") {
    reduction::test::for_each_float_type([](auto zero) { check_rounding_and_specials<decltype(zero)>(); });
}

TEST_CASE("the exact sum has the same bits in every order and every split", "[exact_sum]") {
    reduction::test::for_each_float_type([](auto zero) { check_order_and_splits<decltype(zero)>(); });
}

TEST_CASE("the exact sum equals a 128-bit integer sum rounded by the compiler", "[exact_sum]") {
    reduction::test::for_each_float_type([](auto zero) { check_against_integers<decltype(zero)>(); });
}
