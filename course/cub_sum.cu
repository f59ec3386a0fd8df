// CUB's device-wide sum behind the course's StepApi, so it is timed exactly like the steps.
//
// CUB asks for its temporary storage in two calls: a size query, then the reduction. The query is
// host work (it reads the device's properties), so it belongs to scratch_bytes, which the harness
// calls once when it allocates the scratch, outside the timed region. reduce is then the single
// cub::DeviceReduce::Sum call, given the capacity that scratch_bytes reported for this n.
#include "course_steps.h"

#include "cuda_check.h"

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace reduction {
namespace {

// What scratch_bytes reported, by (type, n): reduce looks it up instead of asking CUB again.
class TempCapacities {
public:
    void remember(ElementType type, std::size_t n, std::size_t bytes) {
        const std::lock_guard<std::mutex> lock(mutex_);
        bytes_[{type, n}] = bytes;
    }
    std::size_t recall(ElementType type, std::size_t n) const {
        const std::lock_guard<std::mutex> lock(mutex_);
        const auto it = bytes_.find({type, n});
        if (it == bytes_.end())
            throw std::logic_error("cub: reduce was called for an n whose scratch_bytes was never asked for");
        return it->second;
    }

private:
    mutable std::mutex mutex_;
    std::map<std::pair<ElementType, std::size_t>, std::size_t> bytes_;
};

TempCapacities& capacities() {
    static TempCapacities instance;
    return instance;
}

template <class T>
std::size_t cub_temp_bytes(std::size_t n) {
    std::size_t bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
                                      static_cast<std::int64_t>(n)));
    return std::max<std::size_t>(bytes, 1);  // a null temp pointer would make the next call a query
}

std::size_t cub_scratch_bytes(ElementType type, std::size_t n, int /*block: CUB picks its own*/) {
    const std::size_t bytes = dispatch_type(type, [&](auto zero) { return cub_temp_bytes<kernel_type_t<decltype(zero)>>(n); });
    capacities().remember(type, n, bytes);
    return bytes;
}

// CUB's summation order is internal and undocumented. Any order of n terms has a chain of at most
// n - 1 additions, so gamma_{n-1} bounds every order; it is the honest bound for a black box.
std::size_t cub_addition_depth(std::size_t n, int) { return n - 1; }

// The element type whose kernel type is K (uint32 is how int32 is summed).
template <class K>
constexpr ElementType element_type_of_kernel_type() {
    if constexpr (std::is_same_v<K, std::uint32_t>) return ElementType::int32;
    else return element_type_of<K>();
}

// T is the kernel type (int32 arrives as uint32, as for the steps: wrapping is defined).
template <class T>
void cub_reduce(const T* in, std::size_t n, T* out, T* scratch, int, cudaStream_t stream) {
    std::size_t capacity = capacities().recall(element_type_of_kernel_type<T>(), n);
    CUDA_CHECK(cub::DeviceReduce::Sum(scratch, capacity, in, out, static_cast<std::int64_t>(n), stream));
}

}  // namespace

const StepApi& cub_step() {
    static const StepApi cub = {"cub",
                                "cub::DeviceReduce::Sum (CUDA Toolkit)",
                                &cub_scratch_bytes,
                                &cub_addition_depth,
                                &reduce_as_kernel_type<std::int32_t, &cub_reduce<std::uint32_t>>,
                                &cub_reduce<float>,
                                &cub_reduce<double>};
    return cub;
}

}  // namespace reduction
