// CUB's device-wide sum (and max and min, for --op) behind the course's StepApi, timed exactly like
// the steps. CUB asks for its temporary storage in two calls: a size query, then the reduction.
// The query is host work (it reads the device's properties), so it belongs to scratch_bytes, which
// the harness calls once, outside the timed region; reduce is then the single CUB call, given the
// capacity that scratch_bytes reported for this n.
#include "course_steps.h"

#include "cuda_check.h"

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <tuple>

namespace reduction {
namespace {

// What scratch_bytes reported, by (operator, type, n): reduce looks it up instead of asking CUB
// again. `bytes` given: remembered; absent: recalled.
std::size_t temp_capacity(OpKind op, ElementType type, std::size_t n, std::optional<std::size_t> bytes = std::nullopt) {
    static std::mutex mutex;
    static std::map<std::tuple<OpKind, ElementType, std::size_t>, std::size_t> capacities;
    const std::lock_guard<std::mutex> lock(mutex);
    if (bytes) return capacities[{op, type, n}] = *bytes;
    const auto it = capacities.find({op, type, n});
    if (it == capacities.end()) throw std::logic_error("cub: reduce was called for an n whose scratch_bytes was never asked for");
    return it->second;
}

// One CUB call: a size query when temp is null, the reduction otherwise. Max and min go through
// DeviceReduce::Reduce with the course's operator and identity: DeviceReduce::Max starts from
// numeric_limits::lowest() (-FLT_MAX, not -inf) and keeps a NaN once it meets one, so on inputs of
// only -inf, or with a NaN, it answers another question than the steps and the reference.
template <class Op, class T>
cudaError_t cub_device_reduce(void* temp, std::size_t& bytes, const T* in, T* out, std::size_t n, cudaStream_t stream) {
    const auto count = static_cast<std::int64_t>(n);
    if constexpr (Op::kind == OpKind::sum) return cub::DeviceReduce::Sum(temp, bytes, in, out, count, stream);
    else return cub::DeviceReduce::Reduce(temp, bytes, in, out, count, Op{}, Op::template identity<T>(), stream);
}

// The type CUB runs on for elements of type T: as the steps, a sum of int32 runs on uint32
// (wrapping is defined); max and min compare, so int32 stays signed.
template <class Op, class T>
using cub_type_t = std::conditional_t<Op::kind == OpKind::sum, kernel_type_t<T>, T>;

template <class Op>
std::size_t cub_scratch_bytes(ElementType type, std::size_t n, int /*block: CUB picks its own*/) {
    const std::size_t bytes = dispatch_type(type, [&](auto zero) {
        using K = cub_type_t<Op, decltype(zero)>;
        std::size_t query = 0;
        CUDA_CHECK((cub_device_reduce<Op, K>(nullptr, query, nullptr, nullptr, n, nullptr)));
        return std::max<std::size_t>(query, 1);  // a null temp pointer would make the next call a query
    });
    return temp_capacity(Op::kind, type, n, bytes);
}

// CUB's summation order is internal. Any order of n terms has a chain of at most n - 1 additions,
// so gamma_{n-1} bounds every order: the honest bound for a black box. compare also checks CUB's
// float sums against the sharper any-order bound of any_order_bound.h.
std::size_t cub_addition_depth(std::size_t n, int) { return n - 1; }

// The element type whose kernel type is K (uint32 is how int32 is summed).
template <class K>
constexpr ElementType element_type_of_kernel_type() {
    if constexpr (std::is_same_v<K, std::uint32_t>) return ElementType::int32;
    else return element_type_of<K>();
}

// K is the type CUB runs on (cub_type_t): int32 arrives as uint32 for a sum, as for the steps.
template <class Op, class K>
void cub_reduce(const K* in, std::size_t n, K* out, K* scratch, int, cudaStream_t stream) {
    std::size_t capacity = temp_capacity(Op::kind, element_type_of_kernel_type<K>(), n);
    CUDA_CHECK((cub_device_reduce<Op, K>(scratch, capacity, in, out, n, stream)));
}

template <class Op>
StepApi cub_api(const char* change) {
    return {"cub",
            change,
            &cub_scratch_bytes<Op>,
            &cub_addition_depth,
            int32_entry<Op, &cub_reduce<Op, std::uint32_t>, &cub_reduce<Op, std::int32_t>>(),
            &cub_reduce<Op, float>,
            &cub_reduce<Op, double>};
}

}  // namespace

const StepOps& cub_ops() {
    static const StepOps ops = {cub_api<Sum>("cub::DeviceReduce::Sum (CUDA Toolkit)"),
                                cub_api<Max>("cub::DeviceReduce::Reduce with max (CUDA Toolkit)"),
                                cub_api<Min>("cub::DeviceReduce::Reduce with min (CUDA Toolkit)")};
    return ops;
}

const StepApi& cub_step() { return cub_ops().sum; }

}  // namespace reduction
