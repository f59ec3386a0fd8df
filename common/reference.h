// The CPU reference, the tolerance from the step's addition depth, the verdict on a GPU result (common/README.md).
#pragma once
#include "element_type.h"
#include "operators.h"
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace reduction {
// One chunk of [0, n) per hardware thread (the GPU tests sum 2^31 elements for every step); none below ~1M.
inline unsigned host_threads_for(std::size_t n) {
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    return static_cast<unsigned>(std::min<std::size_t>(hardware, n / (std::size_t{1} << 20) + 1));
}

// Calls body(chunk, begin, end) for each of `chunks` chunks of [0, n), concurrently; returns once all are done.
template <class Body>
void for_each_chunk(std::size_t n, unsigned chunks, Body body) {
    if (chunks <= 1) return body(0u, std::size_t{0}, n);
    std::vector<std::thread> threads;
    for (unsigned c = 0; c < chunks; ++c) threads.emplace_back(body, c, n * c / chunks, n * (c + 1) / chunks);
    for (auto& t : threads) t.join();
}

struct Reference {  // of an input of one element type, which its users know as their T
    OpKind op = OpKind::sum;    // max and min: `exact` (int32) or `sum` (floats) holds the extreme value
    std::size_t n = 0;
    std::int64_t exact = 0;     // integers: the exact sum (exact for fewer than 2^32 elements)
    long double sum = 0;        // floating point: the compensated sum
    long double abs_sum = 0;    // floating point: sum of |x_i|, the scale of the error bound
    long double positive_sum = 0;  // floating point: sum of the positive finite terms
    long double negative_sum = 0;  // floating point: sum of the negative finite terms (<= 0)
    bool has_nan = false, has_plus_inf = false, has_minus_inf = false;  // floating point: some input is NaN, +inf, -inf
    std::size_t first_non_finite = no_index;  // index of the first NaN or infinity, if any
    static constexpr std::size_t no_index = static_cast<std::size_t>(-1);
};

// Max and min: the extreme element, compared exactly; NaN inputs skipped, as the kernels' `b > a ? b : a` does.
template <class T>
Reference compute_reference(const std::vector<T>& values, OpKind op = OpKind::sum);
// Writes elements [first, first + count) of an input never held whole; called from several threads.
template <class T>
using ElementSource = std::function<void(std::size_t first, std::size_t count, T* out)>;
// compute_reference, bit for bit, of the n elements `source` regenerates a block at a time on every core.
template <class T>
Reference compute_reference(std::size_t n, const ElementSource<T>& source, OpKind op = OpKind::sum);
// The reference of an input arriving in pieces, in order (the long double sum may differ in its last bits).
template <class T>
class StreamingReference {
public:
    explicit StreamingReference(OpKind op = OpKind::sum);
    ~StreamingReference();
    void add(const T* values, std::size_t count);
    Reference result() const;
private:
    struct State;
    std::unique_ptr<State> state_;
};

struct Verdict {
    bool pass = false;
    std::string result;         // the GPU's value, printed exactly enough to compare
    std::string expected;       // the reference, in T's terms (wrapped modulo 2^32 for int32 overflow)
    double error = 0;           // |result - reference|
    double tolerance = 0;       // 0 for integers
    std::string note;           // why it failed, or how it was compared; empty when nothing to say
};

// u: 2^-24 for float32, 2^-53 for float64 (half the distance from 1 to the next value).
template <class T>
constexpr double unit_roundoff() {
    static_assert(std::is_floating_point_v<T>, "integers are compared exactly: no roundoff");
    return std::numeric_limits<T>::epsilon() / 2;
}
// gamma_d = d*u / (1 - d*u) for T's unit roundoff; infinity when d*u >= 1 (the bound says nothing).
template <class T>
double gamma_bound(std::size_t depth) {
    const double du = static_cast<double>(depth) * unit_roundoff<T>();
    return du >= 1.0 ? std::numeric_limits<double>::infinity() : du / (1.0 - du);
}
// gamma_d * abs_sum plus the reference's own error bound; 0 for integers, max and min.
template <class T>
double tolerance_for(const Reference& reference, std::size_t depth);
template <class T>
Verdict verify(T result, const Reference& reference, std::size_t depth);
}  // namespace reduction
