// The course's steps in order (from course/steps.csv) and CUB's DeviceReduce (sum, and max and min for --op)
// behind the StepApi, CUB timed exactly like the steps: its size query is host work, so scratch_bytes, called
// outside the timed region, asks it and reduce recalls the answer (course/README.md).
#include "course_steps.h"

#include "course_step_list.h"  // generated from course/steps.csv: the steps' headers and the two lists below
#include "cuda_check.h"

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace reduction {
namespace {

// The type CUB runs on: as for the steps, a sum of int32 runs on uint32; max and min compare, so int32 stays.
template <class Op, class T>
using cub_type_t = std::conditional_t<Op::kind == OpKind::sum, kernel_type_t<T>, T>;

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

template <class Op>
std::size_t cub_scratch_bytes(ElementType type, std::size_t n, int /*block: CUB picks its own*/) {
    return dispatch_type(type, [&](auto zero) {
        using K = cub_type_t<Op, decltype(zero)>;
        std::size_t query = 0;
        CUDA_CHECK((cub_device_reduce<Op, K>(nullptr, query, nullptr, nullptr, n, nullptr)));
        return temp_capacity<Op, K>(n, std::max<std::size_t>(query, 1));  // a null temp would make reduce a query
    });
}

template <class Op, class K>
void cub_reduce(const K* in, std::size_t n, K* out, K* scratch, int, cudaStream_t stream) {
    std::size_t capacity = temp_capacity<Op, K>(n);
    CUDA_CHECK((cub_device_reduce<Op, K>(scratch, capacity, in, out, n, stream)));
}

// CUB's summation order is internal; any order of n terms has a chain of at most n - 1 additions, so
// gamma_{n-1} bounds every order (compare also checks float sums against any_order_bound.h).
template <class Op>
StepApi cub_api(const char* change) {
    return {"cub", change, &cub_scratch_bytes<Op>, [](std::size_t n, int) { return n - 1; },
            int32_entry<Op, &cub_reduce<Op, std::uint32_t>, &cub_reduce<Op, std::int32_t>>(), &cub_reduce<Op, float>,
            &cub_reduce<Op, double>};
}

}  // namespace

const std::vector<StepApi>& course_steps() {
    static const std::vector<StepApi> steps = {REDUCTION_COURSE_STEP_APIS};
    return steps;
}

const StepOps* step_ops(const StepApi& step) {
    static const std::vector<std::pair<std::string, StepOps>> steps_ops = {REDUCTION_COURSE_STEP_OPS};
    if (&step == &cub_step()) return &cub_ops();
    for (const auto& [name, ops] : steps_ops)
        if (name == step.name) return &ops;
    return nullptr;
}

const StepApi* find_step(const std::string& key) {
    if (key == "cub") return &cub_step();
    std::string prefix = key;
    if (prefix.rfind("step", 0) != 0) prefix = "step" + std::string(key.size() == 1 ? "0" : "") + key;
    for (const StepApi& step : course_steps())
        if (const std::string name = step.name; name == prefix || name.rfind(prefix + "_", 0) == 0) return &step;
    return nullptr;
}

const StepOps& cub_ops() {
    static const StepOps ops = {cub_api<Sum>("cub::DeviceReduce::Sum (CUDA Toolkit)"),
                                cub_api<Max>("cub::DeviceReduce::Reduce with max (CUDA Toolkit)"),
                                cub_api<Min>("cub::DeviceReduce::Reduce with min (CUDA Toolkit)")};
    return ops;
}

const StepApi& cub_step() { return cub_ops().sum; }

}  // namespace reduction
