// The associative operators a reduction can apply, each with its identity element.
//
// A reduction tree only needs an operator that is associative and has an identity: the identity
// fills the slots of threads that have no element, so the tree's shape never changes the result.
// Sum is the course's operator; Max and Min show that the same tree serves any such operator.
// Usable on the host (the reference) and on the device (the kernels).
#pragma once

#if defined(__CUDACC__)
#include <cuda/std/limits>  // numeric_limits that device code may call
#define REDUCTION_HOST_DEVICE __host__ __device__
namespace reduction::detail { using cuda::std::numeric_limits; }
#else
#include <limits>
#define REDUCTION_HOST_DEVICE
namespace reduction::detail { using std::numeric_limits; }
#endif

namespace reduction {

enum class OpKind { sum, max, min };

struct Sum {
    static constexpr OpKind kind = OpKind::sum;
    static constexpr const char* name = "sum";
    template <class T> REDUCTION_HOST_DEVICE static constexpr T identity() { return T(0); }
    template <class T> REDUCTION_HOST_DEVICE T operator()(T a, T b) const { return a + b; }
};

// The identities are the ends of T's range: -inf and +inf for floats (so that an input of only
// -inf has the maximum -inf), lowest() and max() for integers. A NaN compared with anything
// loses, as with `b > a ? b : a`.
struct Max {
    static constexpr OpKind kind = OpKind::max;
    static constexpr const char* name = "max";
    template <class T> REDUCTION_HOST_DEVICE static constexpr T identity() {
        using L = detail::numeric_limits<T>;
        if constexpr (L::has_infinity) return -L::infinity();
        else return L::lowest();
    }
    template <class T> REDUCTION_HOST_DEVICE T operator()(T a, T b) const { return b > a ? b : a; }
};

struct Min {
    static constexpr OpKind kind = OpKind::min;
    static constexpr const char* name = "min";
    template <class T> REDUCTION_HOST_DEVICE static constexpr T identity() {
        using L = detail::numeric_limits<T>;
        if constexpr (L::has_infinity) return L::infinity();
        else return L::max();
    }
    template <class T> REDUCTION_HOST_DEVICE T operator()(T a, T b) const { return b < a ? b : a; }
};

// The operator's name on the command line and in results: "sum", "max", "min".
inline const char* op_name(OpKind op) {
    switch (op) {
        case OpKind::max: return Max::name;
        case OpKind::min: return Min::name;
        case OpKind::sum: break;
    }
    return Sum::name;
}

}  // namespace reduction
