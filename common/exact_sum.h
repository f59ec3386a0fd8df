// The exact sum of float32 or float64 values, rounded once to the type (to nearest, ties to even): the same
// bits for every order of the inputs and every split into chunks, and the nearest value to the true sum.
// Special values as IEEE 754 adds them: a NaN, or +inf with -inf, gives NaN; an infinity wins over every
// finite value; an exact sum beyond the type's range rounds to +-inf; -0 only when every input is -0.
//
// How: every finite input is m x 2^e, m an integer of at most 24 (53) bits and e at least the exponent of
// the smallest subnormal. So every input, and any sum of them, is an integer count of that smallest
// subnormal: the accumulator holds that integer in 32-bit digits, each kept in an int64 so that it takes
// about 2^31 additions before a carry must move up (Neal's "small superaccumulator", arXiv:1505.05571).
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace reduction {

template <class T>
class ExactSum {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "ExactSum: float or double");
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    static constexpr int precision = std::numeric_limits<T>::digits;           // 24 or 53 bits of significand
    static constexpr int stored = precision - 1;                                 // the fraction field's bits
    static constexpr int exponent_bits = 8 * static_cast<int>(sizeof(T)) - 1 - stored;
    static constexpr int unit_exponent = std::numeric_limits<T>::min_exponent - precision;  // -149 or -1074
    // the largest finite value's top bit, counted from the unit, plus 64 bits for any count of inputs
    static constexpr int top_bit = (std::numeric_limits<T>::max_exponent - 1) - unit_exponent + 64;
    static constexpr int digit_count = top_bit / 32 + 2;
    static constexpr std::uint64_t adds_between_carries = std::uint64_t{1} << 30;

public:
    ExactSum() : digits_(digit_count, 0) {}

    void add(T x) {
        any_input_ = true;
        Bits bits;
        std::memcpy(&bits, &x, sizeof bits);
        const bool negative = (bits >> (8 * sizeof(T) - 1)) != 0;
        const int biased = static_cast<int>((bits >> stored) & ((Bits{1} << exponent_bits) - 1));
        const std::uint64_t fraction = static_cast<std::uint64_t>(bits & ((Bits{1} << stored) - 1));
        if (biased == (1 << exponent_bits) - 1) {  // infinity or NaN
            if (fraction != 0) nan_ = true;
            else (negative ? minus_inf_ : plus_inf_) = true;
            all_negative_zero_ = false;
            return;
        }
        if (!(negative && biased == 0 && fraction == 0)) all_negative_zero_ = false;
        const std::uint64_t m = biased == 0 ? fraction : fraction | (std::uint64_t{1} << stored);
        if (m == 0) return;
        const int shift = (biased == 0 ? 1 : biased) - 1;  // x = m x 2^shift units
        // m << (shift % 32) is at most 53 + 31 bits: three digits, the upper two from m >> (32 - shift % 32)
        const int offset = shift % 32;
        const std::uint64_t upper = m >> (32 - offset);
        const std::uint32_t parts[3] = {static_cast<std::uint32_t>(m << offset), static_cast<std::uint32_t>(upper),
                                        static_cast<std::uint32_t>(upper >> 32)};
        std::int64_t* digit = digits_.data() + shift / 32;
        for (int k = 0; k < 3; ++k) digit[k] += negative ? -std::int64_t{parts[k]} : std::int64_t{parts[k]};
        if (++adds_ == adds_between_carries) carry();
    }

    void add(const T* values, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) add(values[i]);
    }

    // Another accumulator's inputs, as if added here: exact, so any split of the inputs gives the same result.
    void merge(const ExactSum& other) {
        ExactSum copy = other;
        copy.carry();
        carry();
        for (int i = 0; i < digit_count; ++i) digits_[i] += copy.digits_[i];
        nan_ |= other.nan_;
        plus_inf_ |= other.plus_inf_;
        minus_inf_ |= other.minus_inf_;
        all_negative_zero_ &= other.all_negative_zero_;
        any_input_ |= other.any_input_;
        ++adds_;
    }

    T result() const {
        if (nan_ || (plus_inf_ && minus_inf_)) return std::numeric_limits<T>::quiet_NaN();
        if (plus_inf_ || minus_inf_) return plus_inf_ ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
        ExactSum value = *this;
        value.carry();
        const bool negative = value.digits_.back() < 0;
        if (negative) {  // the magnitude: every digit negated, the carries moved again
            for (std::int64_t& d : value.digits_) d = -d;
            value.carry();
        }
        int high = digit_count - 1;
        while (high >= 0 && value.digits_[high] == 0) --high;
        if (high < 0) return all_negative_zero_ && any_input_ ? -T(0) : T(0);  // no input at all: +0
        const int top = 32 * high + 63 - __builtin_clzll(static_cast<std::uint64_t>(value.digits_[high]));
        // keep `precision` bits from `top` down; round on the next bit and every bit below it
        const int low = top - (precision - 1) > 0 ? top - (precision - 1) : 0;
        std::uint64_t kept = value.bits(low, top - low + 1);
        if (low > 0 && value.bit(low - 1) && (kept % 2 == 1 || value.any_below(low - 1))) ++kept;
        const T magnitude = std::ldexp(static_cast<T>(kept), low + unit_exponent);  // +inf past the largest value
        return negative ? -magnitude : magnitude;
    }

private:
    // Moves every digit's excess over 32 bits into the next one: digits 0 .. last-1 in [0, 2^32), the last signed.
    void carry() {
        for (int i = 0; i + 1 < digit_count; ++i) {
            const std::int64_t up = digits_[i] >> 32;  // floor division: the low 32 bits stay, non-negative
            digits_[i] -= up * (std::int64_t{1} << 32);
            digits_[i + 1] += up;
        }
        adds_ = 0;
    }

    // After carry(), with a non-negative value: bit i of it, and `count` bits from bit `from` (count <= 64).
    bool bit(int i) const { return (static_cast<std::uint64_t>(digits_[i / 32]) >> (i % 32)) & 1; }
    std::uint64_t bits(int from, int count) const {
        std::uint64_t out = 0;
        for (int k = count - 1; k >= 0; --k) out = (out << 1) | static_cast<std::uint64_t>(bit(from + k));
        return out;
    }
    bool any_below(int end) const {  // any of bits 0 .. end-1 set
        for (int i = 0; i < end / 32; ++i)
            if (digits_[i] != 0) return true;
        const std::uint64_t mask = (std::uint64_t{1} << (end % 32)) - 1;
        return (static_cast<std::uint64_t>(digits_[end / 32]) & mask) != 0;
    }

    std::vector<std::int64_t> digits_;
    std::uint64_t adds_ = 0;
    bool nan_ = false, plus_inf_ = false, minus_inf_ = false, all_negative_zero_ = true, any_input_ = false;
};

// The exact sum of values[0, n) rounded once: ExactSum over every element.
template <class T>
T exact_sum(const T* values, std::size_t n) {
    ExactSum<T> sum;
    sum.add(values, n);
    return sum.result();
}

}  // namespace reduction
