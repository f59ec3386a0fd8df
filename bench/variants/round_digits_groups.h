// round_digits with its carry in groups, for the variants step14_rounding_groups and
// step14_rounding_groups_six_per_sm (step 14's lab notes): the carry loads four digits before it uses any
// (one wait for the GPU's loads, not one per digit), carries past the last non-zero digit without reading
// the zeros there, and keeps the highest non-zero digit in a register. The same value as round_digits; the
// helpers are common/exact_sum.h's.
#pragma once
#include "exact_sum.h"

#if defined(__CUDA_ARCH__)
#define ROUND_DIGITS_GROUPS_ROLLED _Pragma("unroll 1")
#else
#define ROUND_DIGITS_GROUPS_ROLLED
#endif

namespace reduction {

// The value of ExactLayout<T>::digit_count digits (any carries pending) and the specials, rounded once to T.
// Every non-zero digit lies in digits[first .. last]: by default anywhere; a caller that knows where they are
// (ExactSum::result, a GPU block that looks at every digit at once) saves the carry through the zeros around them.
// Changes the digits (it carries them, and turns a negative value's into its magnitude's).
template <class T>
REDUCTION_HOST_DEVICE T round_digits_groups(std::int64_t* digits, const ExactSpecials& specials, int first = 0,
                                            int last = ExactLayout<T>::digit_count - 1) {
    using L = ExactLayout<T>;
    using exact_detail::from_bits;
    constexpr int count = L::digit_count;
    if (specials.nan || (specials.plus_inf && specials.minus_inf)) return from_bits<T>(L::quiet_nan);
    if (specials.plus_inf || specials.minus_inf) return from_bits<T>(L::infinity | (specials.minus_inf ? L::sign_bit : 0));
    const T zero = from_bits<T>(specials.all_negative_zero ? L::sign_bit : 0);
    if (last < first) return zero;  // no non-zero digit
    // The carry, from `first` up: through digits[first .. last], four loaded before any is used (one wait for the
    // GPU's loads, not one per digit), then past `last`, where every digit is zero, only while what travels up is
    // neither 0 nor -1 (a negative value's sign), which the digits above would only take in turn: the carry stops
    // at `end`, which takes it. `high` follows the highest non-zero digit and its value, read no more.
    std::int64_t up = 0, high_digit = 0;
    int end = first, high = first - 1;
    const int through = last < count - 2 ? last : count - 2;  // the top digit keeps the sign: nothing carries out of it
    ROUND_DIGITS_GROUPS_ROLLED  // one group at a time (unrolled, float64's kernel holds more registers)
    for (int group = first; group <= through; group += 4) {
        std::int64_t loaded[4];
        for (int k = 0; k < 4; ++k) loaded[k] = group + k <= through ? digits[group + k] : 0;
        for (int k = 0; k < 4 && end <= through; ++k, ++end) {
            const std::int64_t digit = loaded[k] + up;
            up = digit >> 32;  // floor division: the low 32 bits stay, non-negative
            digits[end] = digit - up * (std::int64_t{1} << 32);
            if (digits[end] != 0) {
                high = end;
                high_digit = digits[end];
            }
        }
    }
    for (; end + 1 < count && up != 0 && up != -1; ++end) {  // digits[end] is zero
        const std::int64_t digit = up;
        up = digit >> 32;
        digits[end] = digit - up * (std::int64_t{1} << 32);
        if (digits[end] != 0) {
            high = end;
            high_digit = digits[end];
        }
    }
    const std::int64_t end_digit = (end <= last ? digits[end] : 0) + up;
    digits[end] = end_digit;  // digits[first .. end-1] in [0, 2^32), digits[end] signed, every other digit zero
    if (end_digit != 0) {
        high = end;
        high_digit = end_digit;
    }
    const bool negative = end_digit < 0;
    if (negative) {  // the magnitude: the complement plus one; the one carries through the zeros at the bottom
        int i = first;
        while (i < end && digits[i] == 0) ++i;
        if (i == end) {
            digits[end] = -end_digit;
        } else {
            digits[i] = (std::int64_t{1} << 32) - digits[i];
            for (++i; i < end; ++i) digits[i] = 0xffffffff - digits[i];
            digits[end] = -end_digit - 1;
        }
        high = end;  // the highest non-zero digit of the magnitude
        while (high >= first && digits[high] == 0) --high;
        if (high >= first) high_digit = digits[high];
    }
    if (high < first) return zero;
    const int top = 32 * high + 63 - exact_detail::leading_zeros(static_cast<std::uint64_t>(high_digit));
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

}  // namespace reduction
