// The exact sum of float32 or float64 values, rounded once to the type (to nearest, ties to even): the same
// bits for every order of the inputs and every split into chunks, and the nearest value to the true sum.
// Special values as IEEE 754 adds them: a NaN, or +inf with -inf, gives NaN (always the quiet NaN of
// std::numeric_limits, 0x7fc00000 or 0x7ff8000000000000); an infinity wins over every finite value; an exact
// sum beyond the type's range rounds to +-inf; -0 only when every input is -0.
//
// How: every finite input is m x 2^e, m an integer of at most 24 (53) bits and e at least the exponent of
// the smallest subnormal. So every input, and any sum of them, is an integer count of that smallest
// subnormal: the accumulator holds that integer in 32-bit digits, each kept in an int64 so that it takes
// about 2^31 additions before a carry must move up (Neal's "small superaccumulator", arXiv:1505.05571).
//
// The digits' layout, the carry and the rounding are functions of a plain array that a GPU kernel calls
// too (ExactLayout, round_digits): a GPU's digits are rounded by the same code as the CPU's.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <math.h>  // ::ldexp and ::ldexpf, which host and device code both have
#include <type_traits>
#include <vector>

#if defined(__CUDACC__)
#define REDUCTION_HOST_DEVICE __host__ __device__
#else
#define REDUCTION_HOST_DEVICE
#endif
// On the GPU, a loop over the digits unrolled 8 times: its loads then leave together instead of one after
// another's use (one thread rounds, so their latency is the whole cost), and the compiler does not unroll
// it whole, which takes so many registers that the kernels that round hold fewer blocks (step 14's lab
// notes). Nothing on the CPU.
#if defined(__CUDA_ARCH__)
#define REDUCTION_UNROLL_DIGITS _Pragma("unroll 8")
#else
#define REDUCTION_UNROLL_DIGITS
#endif

namespace reduction {

// Where each bit of a float32 or float64 value lands in the digits.
template <class T>
struct ExactLayout {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "ExactSum: float or double");
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    static constexpr int precision = std::numeric_limits<T>::digits;           // 24 or 53 bits of significand
    static constexpr int stored = precision - 1;                                 // the fraction field's bits
    static constexpr int exponent_bits = 8 * static_cast<int>(sizeof(T)) - 1 - stored;
    static constexpr int unit_exponent = std::numeric_limits<T>::min_exponent - precision;  // -149 or -1074
    // the largest finite value's top bit, counted from the unit, plus 64 bits for any count of inputs
    static constexpr int top_bit = (std::numeric_limits<T>::max_exponent - 1) - unit_exponent + 64;
    static constexpr int digit_count = top_bit / 32 + 2;  // 12 for float32, 69 for float64
    static constexpr Bits sign_bit = Bits{1} << (8 * sizeof(T) - 1);
    static constexpr Bits quiet_nan = ((Bits{1} << (exponent_bits + 1)) - 1) << (stored - 1);
    static constexpr Bits infinity = ((Bits{1} << exponent_bits) - 1) << stored;
};

// The special inputs seen, which decide the result before the digits do.
struct ExactSpecials {
    bool nan = false, plus_inf = false, minus_inf = false;
    bool all_negative_zero = true;  // every input was -0 (false once any other value came)
};

// Moves every digit's excess over 32 bits into the next one: digits 0 .. count-2 in [0, 2^32), the last signed.
// The excess travels up in a register, so a digit is read once and written once.
REDUCTION_HOST_DEVICE inline void carry_digits(std::int64_t* digits, int count) {
    std::int64_t up = 0;
    REDUCTION_UNROLL_DIGITS
    for (int i = 0; i + 1 < count; ++i) {
        const std::int64_t digit = digits[i] + up;
        up = digit >> 32;  // floor division: the low 32 bits stay, non-negative
        digits[i] = digit - up * (std::int64_t{1} << 32);
    }
    digits[count - 1] += up;
}

namespace exact_detail {
REDUCTION_HOST_DEVICE inline int leading_zeros(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
    return __clzll(static_cast<long long>(x));
#else
    return __builtin_clzll(x);
#endif
}
// After the carry, with a non-negative value (each digit then one 32-bit word of it): bit i of it, and
// `count` bits from bit `from` (count <= 64, none above the highest non-zero digit): at most three words.
REDUCTION_HOST_DEVICE inline bool bit(const std::int64_t* digits, int i) {
    return (static_cast<std::uint64_t>(digits[i / 32]) >> (i % 32)) & 1;
}
REDUCTION_HOST_DEVICE inline std::uint64_t word(const std::int64_t* digits, int i) {
    return static_cast<std::uint32_t>(digits[i]);
}
REDUCTION_HOST_DEVICE inline std::uint64_t bits(const std::int64_t* digits, int from, int count) {
    const int first = from / 32, last = (from + count - 1) / 32, shift = from % 32;
    std::uint64_t low_words = word(digits, first);
    if (last > first) low_words |= word(digits, first + 1) << 32;
    std::uint64_t out = low_words >> shift;
    if (last > first + 1) out |= word(digits, first + 2) << (64 - shift);  // shift > 0: count <= 64
    return count < 64 ? out & ((std::uint64_t{1} << count) - 1) : out;
}
// Any of bits 0 .. end-1 set, the digits below `first` being zero.
REDUCTION_HOST_DEVICE inline bool any_below(const std::int64_t* digits, int end, int first) {
    std::int64_t any = 0;  // or-ed without an early exit: the loads do not wait for each other
    REDUCTION_UNROLL_DIGITS
    for (int i = first; i < end / 32; ++i) any |= digits[i];
    const std::uint64_t mask = (std::uint64_t{1} << (end % 32)) - 1;
    return any != 0 || (static_cast<std::uint64_t>(digits[end / 32]) & mask) != 0;
}
template <class T>
REDUCTION_HOST_DEVICE inline T from_bits(typename ExactLayout<T>::Bits bits) {
    T value;
    memcpy(&value, &bits, sizeof value);
    return value;
}
}  // namespace exact_detail

// The value of ExactLayout<T>::digit_count digits (any carries pending) and the specials, rounded once to T.
// Every non-zero digit lies in digits[first .. last]: by default anywhere; a caller that knows where they are
// (ExactSum::result, a GPU block that looks at every digit at once) saves the carry through the zeros around them.
// Changes the digits (it carries them, and turns a negative value's into its magnitude's).
template <class T>
REDUCTION_HOST_DEVICE T round_digits(std::int64_t* digits, const ExactSpecials& specials, int first = 0,
                                     int last = ExactLayout<T>::digit_count - 1) {
    using L = ExactLayout<T>;
    using exact_detail::from_bits;
    constexpr int count = L::digit_count;
    if (specials.nan || (specials.plus_inf && specials.minus_inf)) return from_bits<T>(L::quiet_nan);
    if (specials.plus_inf || specials.minus_inf) return from_bits<T>(L::infinity | (specials.minus_inf ? L::sign_bit : 0));
    const T zero = from_bits<T>(specials.all_negative_zero ? L::sign_bit : 0);
    if (last < first) return zero;  // no non-zero digit
    // The carry, from `first` up. Past `last` every digit is zero, so once what travels up is 0 or -1 (a negative
    // value's sign) the digits above would only take it in turn: the carry stops at `end`, which takes it.
    std::int64_t up = 0;
    int end = first;
    for (; end + 1 < count && (end <= last || (up != 0 && up != -1)); ++end) {
        const std::int64_t digit = digits[end] + up;
        up = digit >> 32;  // floor division: the low 32 bits stay, non-negative
        digits[end] = digit - up * (std::int64_t{1} << 32);
    }
    digits[end] += up;  // digits[first .. end-1] in [0, 2^32), digits[end] signed, every other digit zero
    const bool negative = digits[end] < 0;
    if (negative) {  // the magnitude: the complement plus one; the one carries through the zeros at the bottom
        int i = first;
        while (i < end && digits[i] == 0) ++i;
        if (i == end) {
            digits[end] = -digits[end];
        } else {
            digits[i] = (std::int64_t{1} << 32) - digits[i];
            for (++i; i < end; ++i) digits[i] = 0xffffffff - digits[i];
            digits[end] = -digits[end] - 1;
        }
    }
    int high = end;  // the highest non-zero digit of the magnitude
    while (high >= first && digits[high] == 0) --high;
    if (high < first) return zero;
    const int top = 32 * high + 63 - exact_detail::leading_zeros(static_cast<std::uint64_t>(digits[high]));
    // keep `precision` bits from `top` down; round on the next bit and every bit below it
    const int low = top - (L::precision - 1) > 0 ? top - (L::precision - 1) : 0;
    std::uint64_t kept = exact_detail::bits(digits, low, top - low + 1);
    if (low > 0 && exact_detail::bit(digits, low - 1) &&
        (kept % 2 == 1 || exact_detail::any_below(digits, low - 1, first)))
        ++kept;
    T magnitude;  // kept x 2^(low + unit): exact, or +inf past the largest value
    if constexpr (sizeof(T) == 4) magnitude = ldexpf(static_cast<float>(kept), low + L::unit_exponent);
    else magnitude = ldexp(static_cast<double>(kept), low + L::unit_exponent);
    return negative ? -magnitude : magnitude;
}

template <class T>
class ExactSum {
    using L = ExactLayout<T>;
    using Bits = typename L::Bits;
    static constexpr std::uint64_t adds_between_carries = std::uint64_t{1} << 30;

public:
    static constexpr int digit_count = L::digit_count;

    ExactSum() : digits_(digit_count, 0) {}

    void add(T x) {
        any_input_ = true;
        Bits bits;
        std::memcpy(&bits, &x, sizeof bits);
        const bool negative = (bits & L::sign_bit) != 0;
        const int biased = static_cast<int>((bits >> L::stored) & ((Bits{1} << L::exponent_bits) - 1));
        const std::uint64_t fraction = static_cast<std::uint64_t>(bits & ((Bits{1} << L::stored) - 1));
        if (biased == (1 << L::exponent_bits) - 1) {  // infinity or NaN
            if (fraction != 0) specials_.nan = true;
            else (negative ? specials_.minus_inf : specials_.plus_inf) = true;
            specials_.all_negative_zero = false;
            return;
        }
        if (!(negative && biased == 0 && fraction == 0)) specials_.all_negative_zero = false;
        const std::uint64_t m = biased == 0 ? fraction : fraction | (std::uint64_t{1} << L::stored);
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
        specials_.nan |= other.specials_.nan;
        specials_.plus_inf |= other.specials_.plus_inf;
        specials_.minus_inf |= other.specials_.minus_inf;
        specials_.all_negative_zero &= other.specials_.all_negative_zero;
        any_input_ |= other.any_input_;
        ++adds_;
    }

    T result() const {
        std::vector<std::int64_t> digits = digits_;
        ExactSpecials specials = specials_;
        specials.all_negative_zero &= any_input_;  // no input at all: +0
        int first = digit_count, last = -1;  // the non-zero digits: the rounding carries only from first
        for (int i = 0; i < digit_count; ++i) {
            if (digits[i] != 0) {
                first = first < i ? first : i;
                last = i;
            }
        }
        return round_digits<T>(digits.data(), specials, first, last);
    }

private:
    void carry() {
        carry_digits(digits_.data(), digit_count);
        adds_ = 0;
    }

    std::vector<std::int64_t> digits_;
    std::uint64_t adds_ = 0;
    ExactSpecials specials_;
    bool any_input_ = false;
};

// The exact sum of values[0, n) rounded once: ExactSum over every element.
template <class T>
T exact_sum(const T* values, std::size_t n) {
    ExactSum<T> sum;
    sum.add(values, n);
    return sum.result();
}

}  // namespace reduction
