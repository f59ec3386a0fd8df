// The rounding as common/exact_sum.h had it before its carry loaded four digits at a time (step 14's lab
// notes): for the variant step14_rounding_first, which rounds with it. The helpers are exact_sum.h's.
#pragma once
#include "exact_sum.h"

namespace reduction {

// The value of ExactLayout<T>::digit_count digits (any carries pending) and the specials, rounded once to T.
// Every non-zero digit lies in digits[first .. last]: by default anywhere; a caller that knows where they are
// (ExactSum::result, a GPU block that looks at every digit at once) saves the carry through the zeros around them.
// Changes the digits (it carries them, and turns a negative value's into its magnitude's).
template <class T>
REDUCTION_HOST_DEVICE T round_digits_first(std::int64_t* digits, const ExactSpecials& specials, int first = 0,
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

}  // namespace reduction
