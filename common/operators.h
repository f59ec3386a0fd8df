// The associative operators, each with the identity that fills idle threads' slots; host and device alike.
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

// Identities: -inf / +inf for floats, lowest() / max() for integers; a NaN compared with anything loses.
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
    return op == OpKind::max ? Max::name : op == OpKind::min ? Min::name : Sum::name;
}
}  // namespace reduction
