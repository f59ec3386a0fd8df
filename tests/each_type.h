// The element-type loop the host and GPU tests share: one section per type, so that a failure names its type
// and the other types still run.
#pragma once

#include "catch.h"

#include <cstdint>

namespace reduction::test {
// check(T{}) for T = int32, float32 and float64.
template <class Check>
void for_each_type(Check&& check) {
    SECTION("int32") { check(std::int32_t{}); }
    SECTION("float32") { check(float{}); }
    SECTION("float64") { check(double{}); }
}

// check(T{}) for the floating-point types alone, float32 and float64.
template <class Check>
void for_each_float_type(Check&& check) {
    SECTION("float32") { check(float{}); }
    SECTION("float64") { check(double{}); }
}

// Check<T>{}() for every type: a check written as a class template.
template <template <class> class Check>
void for_each_type() {
    for_each_type([](auto zero) { Check<decltype(zero)>{}(); });
}
}  // namespace reduction::test
