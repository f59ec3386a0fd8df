// CUB's device-wide sum behind the course's StepApi, so it is timed exactly like the steps.
#include "course_steps.h"

#include "cuda_check.h"

#include <cub/device/device_reduce.cuh>

#include <algorithm>

namespace reduction {
namespace {

template <class T>
std::size_t cub_temp_bytes(std::size_t n) {
    std::size_t bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
                                      static_cast<std::int64_t>(n)));
    return std::max<std::size_t>(bytes, 1);  // a null temp pointer would make the next call a query
}

std::size_t cub_scratch_bytes(ElementType type, std::size_t n, int /*block: CUB picks its own*/) {
    return dispatch_type(type, [&](auto zero) { return cub_temp_bytes<decltype(zero)>(n); });
}

// CUB's summation order is internal and undocumented. Any order of n terms has a chain of at most
// n - 1 additions, so gamma_{n-1} bounds every order; it is the honest bound for a black box.
std::size_t cub_addition_depth(std::size_t n, int) { return n - 1; }

template <class T>
void cub_reduce(const T* in, std::size_t n, T* out, T* scratch, int, cudaStream_t stream) {
    std::size_t bytes = cub_temp_bytes<T>(n);
    CUDA_CHECK(cub::DeviceReduce::Sum(scratch, bytes, in, out, static_cast<std::int64_t>(n), stream));
}

}  // namespace

const StepApi& cub_step() {
    static const StepApi cub = {"cub",           "cub::DeviceReduce::Sum (CUDA Toolkit)",
                                &cub_scratch_bytes, &cub_addition_depth,
                                &cub_reduce<std::int32_t>, &cub_reduce<float>, &cub_reduce<double>};
    return cub;
}

}  // namespace reduction
