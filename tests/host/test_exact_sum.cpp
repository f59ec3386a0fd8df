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

// Digits that make the carry run far: large digits of either sign, runs of 2^32 - 1 carried into, a small
// negative digit among zeros (its borrow runs to the last digit), the last digit alone, neighbouring sums.
std::vector<std::int64_t> awkward_digits(std::mt19937_64& random, int count) {
    std::vector<std::int64_t> digits(static_cast<std::size_t>(count), 0);
    const auto at = [&] { return static_cast<std::size_t>(random() % static_cast<std::uint64_t>(count)); };
    // a large digit, below 2^62, and where it may stand: two digits below the last, as in a real sum, whose
    // last digits stay far below 2^32 (top_bit leaves 64 bits above the largest input for any count of them)
    const auto large = [&] { return static_cast<std::int64_t>(random() >> 2) * (random() % 2 ? 1 : -1); };
    const auto low_at = [&] { return static_cast<std::size_t>(random() % static_cast<std::uint64_t>(count - 2)); };
    switch (random() % 5) {
        case 0:
            for (int k = 0, n = 1 + static_cast<int>(random() % 4); k < n; ++k) digits[low_at()] = large();
            break;
        case 1: {
            std::size_t from = at(), to = at();
            if (from > to) std::swap(from, to);
            for (std::size_t i = from; i <= to && i + 1 < digits.size(); ++i) digits[i] = 0xffffffff;
            if (from > 0) digits[from - 1] = random() % 2 ? (std::int64_t{1} << 32) : -1;
            break;
        }
        case 2:
            digits[at()] = -static_cast<std::int64_t>(1 + random() % 3);
            break;
        case 3:
            digits.back() = static_cast<std::int64_t>(random() % 5) - 2;
            break;
        default:
            for (std::size_t i = low_at(), k = 0; k < 4 && i + 2 < digits.size(); ++i, ++k) digits[i] = large();
    }
    return digits;
}

// The digits' value rounded to T, written apart from round_digits: the plain carry over every digit, the
// magnitude by a second plain carry of the negated digits, then bit by bit from the top: the first `precision`
// bits kept, the rest compared with half of the last kept bit.
template <class T>
T oracle_round(std::vector<std::int64_t> digits) {
    using L = reduction::ExactLayout<T>;
    const auto plain_carry = [&] {
        std::int64_t up = 0;
        for (std::size_t i = 0; i + 1 < digits.size(); ++i) {
            const std::int64_t digit = digits[i] + up;
            up = digit >> 32;
            digits[i] = digit - up * (std::int64_t{1} << 32);
        }
        digits.back() += up;
    };
    plain_carry();
    const bool negative = digits.back() < 0;
    if (negative) {
        for (auto& digit : digits) digit = -digit;
        plain_carry();
    }
    REQUIRE(digits.back() >= 0);
    REQUIRE(digits.back() < (std::int64_t{1} << 32));
    const auto bit = [&](int i) { return (static_cast<std::uint64_t>(digits[i / 32]) >> (i % 32)) & 1; };
    int top = 32 * static_cast<int>(digits.size()) - 1;
    while (top >= 0 && !bit(top)) --top;
    if (top < 0) return T(0);
    const int low = std::max(top - (L::precision - 1), 0);
    std::uint64_t kept = 0;
    for (int i = top; i >= low; --i) kept = kept * 2 + bit(i);
    bool rest_above_half = false, rest_is_half = low > 0 && bit(low - 1);
    for (int i = low - 2; i >= 0; --i) rest_above_half |= bit(i) != 0;
    if (rest_is_half && (rest_above_half || kept % 2 == 1)) ++kept;
    const T magnitude = std::ldexp(static_cast<T>(kept), low + L::unit_exponent);
    return negative ? -magnitude : magnitude;
}

template <class T>
void check_round_digits_bounds() {
    constexpr int count = reduction::ExactLayout<T>::digit_count;
    std::mt19937_64 random(20261130);
    for (int trial = 0; trial < 20000; ++trial) {
        const std::vector<std::int64_t> start = awkward_digits(random, count);
        int first = count, last = -1;
        for (int i = 0; i < count; ++i) {
            if (start[static_cast<std::size_t>(i)] != 0) {
                first = std::min(first, i);
                last = i;
            }
        }
        const T expected = oracle_round<T>(start);
        reduction::ExactSpecials none;
        none.all_negative_zero = false;  // a zero sum is +0
        const int wider_first = std::max(0, first - static_cast<int>(random() % 3));
        const int wider_last = std::min(count - 1, last + static_cast<int>(random() % 3));
        INFO("trial " << trial << " non-zero digits " << first << " .. " << last);
        std::vector<std::int64_t> digits = start;
        CHECK(same_bits(reduction::round_digits<T>(digits.data(), none), expected));  // every digit
        digits = start;
        CHECK(same_bits(reduction::round_digits<T>(digits.data(), none, first, last), expected));  // the non-zero ones
        digits = start;
        CHECK(same_bits(reduction::round_digits<T>(digits.data(), none, wider_first, wider_last), expected));
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

TEST_CASE("round_digits carries only the digits it is told are non-zero, and rounds as the plain carry does", "[exact_sum]") {
    reduction::test::for_each_float_type([](auto zero) { check_round_digits_bounds<decltype(zero)>(); });
}
