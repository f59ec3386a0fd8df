// CUB's DeviceReduce behind the course's StepApi (course/README.md): the reference every step is timed against.
#include "course_steps.h"
#include "cuda_check.h"
#include <cub/device/device_reduce.cuh>
#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>

namespace reduction {
namespace {
// CUB, timed exactly like the steps: its size query is host work, so scratch_bytes, called outside the timed
// region, asks it and reduce recalls the answer. Its type: the steps' kernel_type_t (uint32 for a sum of int32).
// What scratch_bytes reported for (Op, K, n): `bytes` given, remembered; absent, recalled for reduce.
template <class Op, class K>
std::size_t temp_capacity(std::size_t n, std::optional<std::size_t> bytes = std::nullopt) {
    static std::mutex mutex;
    static std::map<std::size_t, std::size_t> capacities;
    const std::lock_guard<std::mutex> lock(mutex);
    if (bytes) capacities[n] = *bytes;
    if (!capacities.count(n)) throw std::logic_error("cub: reduce was called for an n whose scratch_bytes was never asked for");
    return capacities[n];
}

// One CUB call: a size query when temp is null. Max and min use Reduce with the course's identity:
// DeviceReduce::Max starts from -FLT_MAX, not -inf, and keeps NaNs (course/README.md).
template <class Op, class K>
cudaError_t cub_device_reduce(void* temp, std::size_t& bytes, const K* in, K* out, std::size_t n, cudaStream_t stream) {
    const auto count = static_cast<std::int64_t>(n);
    if constexpr (Op::kind == OpKind::sum) return cub::DeviceReduce::Sum(temp, bytes, in, out, count, stream);
    else return cub::DeviceReduce::Reduce(temp, bytes, in, out, count, Op{}, Op::template identity<K>(), stream);
}

template <class Op, class K>
std::size_t cub_scratch_bytes(std::size_t n, int /*block: CUB picks its own*/) {
    std::size_t query = 0;
    CUDA_CHECK((cub_device_reduce<Op, K>(nullptr, query, nullptr, nullptr, n, nullptr)));
    return temp_capacity<Op, K>(n, std::max<std::size_t>(query, 1));  // a null temp would make reduce a query
}

template <class Op, class K>
void cub_reduce(const K* in, std::size_t n, K* out, K* scratch, int, cudaStream_t stream) {
    std::size_t capacity = temp_capacity<Op, K>(n);
    CUDA_CHECK((cub_device_reduce<Op, K>(scratch, capacity, in, out, n, stream)));
}

// CUB's summation order is internal; any order of n terms has a chain of at most n - 1 additions, so
// gamma_{n-1} bounds every order (compare also checks float sums against any_order_bound.h).
template <class Op, class T>
constexpr TypedFns<T> cub_fns() {
    using K = kernel_type_t<T, Op>;
    return typed_fns<T, K, &cub_reduce<Op, K>, &cub_scratch_bytes<Op, K>>();
}

template <class Op>
StepApi cub_api(const char* change) {
    return {"cub", change, [](std::size_t n, int) { return n - 1; }, cub_fns<Op, std::int32_t>(), cub_fns<Op, float>(),
            cub_fns<Op, double>()};
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
