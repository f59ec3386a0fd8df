// CUB's DeviceReduce behind the course's StepApi (course/README.md): the reference every step is timed against;
// and its reproducible float sum (determinism::gpu_to_gpu), from a library of its own (cub_gpu_to_gpu.h).
#include "course_steps.h"
#include "cuda_check.h"
#include <cub/device/device_reduce.cuh>
#if REDUCTION_HAS_GPU_TO_GPU
#include "cub_gpu_to_gpu.h"
#endif
#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

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
std::size_t any_order_depth(std::size_t n, int) { return n - 1; }

template <class Op, class T>
constexpr TypedFns<T> cub_fns() {
    using K = kernel_type_t<T, Op>;
    return typed_fns<T, K, &cub_reduce<Op, K>, &cub_scratch_bytes<Op, K>>();
}

template <class Op>
StepApi cub_api(const char* change) {
    return {"cub", change, &any_order_depth, cub_fns<Op, std::int32_t>(), cub_fns<Op, float>(), cub_fns<Op, double>()};
}

#if REDUCTION_HAS_GPU_TO_GPU
// cub_gpu_to_gpu, timed like cub: scratch_bytes asks the size (outside the timed region), reduce is the one call,
// given that capacity.
struct GpuToGpu {};  // its key in temp_capacity, apart from cub's sums

const gpu_to_gpu::Sums& gpu_to_gpu_sums() {
    static const gpu_to_gpu::Sums sums = gpu_to_gpu::sums();
    return sums;
}

template <class T>
gpu_to_gpu::SumFn<T> gpu_to_gpu_sum() {
    if constexpr (std::is_same_v<T, float>) return gpu_to_gpu_sums().float32;
    else return gpu_to_gpu_sums().float64;
}

template <class T>
std::size_t gpu_to_gpu_scratch_bytes(std::size_t n, int /*block: CUB picks its own*/) {
    std::size_t query = 0;
    CUDA_CHECK(gpu_to_gpu_sum<T>()(nullptr, query, nullptr, nullptr, n, nullptr));
    return temp_capacity<GpuToGpu, T>(n, std::max<std::size_t>(query, 1));  // a null scratch would make reduce a query
}

template <class T>
void gpu_to_gpu_reduce(const T* in, std::size_t n, T* out, T* scratch, int, cudaStream_t stream) {
    std::size_t capacity = temp_capacity<GpuToGpu, T>(n);
    CUDA_CHECK(gpu_to_gpu_sum<T>()(scratch, capacity, in, out, n, stream));
}
#endif
}  // namespace

const StepOps& cub_ops() {
    static const StepOps ops = {cub_api<Sum>("cub::DeviceReduce::Sum (CUDA Toolkit)"),
                                cub_api<Max>("cub::DeviceReduce::Reduce with max (CUDA Toolkit)"),
                                cub_api<Min>("cub::DeviceReduce::Reduce with min (CUDA Toolkit)")};
    return ops;
}

const StepApi& cub_step() { return cub_ops().sum; }

// Its int32 functions are null: an integer sum gives the same bits on every GPU already, and CUB answers the request
// with the code of the cub row (course_steps.h).
const StepApi* cub_gpu_to_gpu_step() {
#if REDUCTION_HAS_GPU_TO_GPU
    static const std::string change = [] {  // the version its headers are: CCCL_VERSION 3005000 is CCCL 3.5
        const int version = gpu_to_gpu_sums().cccl_version;
        return "cub::DeviceReduce::Reduce, determinism::gpu_to_gpu (CCCL " + std::to_string(version / 1000000) + "." +
               std::to_string(version / 1000 % 1000) + ")";
    }();
    static const StepApi api = {cub_gpu_to_gpu_name, change.c_str(), &any_order_depth, {nullptr, nullptr},
                                {&gpu_to_gpu_reduce<float>, &gpu_to_gpu_scratch_bytes<float>},
                                {&gpu_to_gpu_reduce<double>, &gpu_to_gpu_scratch_bytes<double>}};
    return &api;
#else
    return nullptr;
#endif
}

std::string cub_gpu_to_gpu_missing() {
#if REDUCTION_HAS_GPU_TO_GPU
    return "";
#else
    return "headers of a CCCL with determinism::gpu_to_gpu not found at " REDUCTION_GPU_TO_GPU_CCCL
           "; tools/install_prerequisites.sh fetches them";
#endif
}
}  // namespace reduction
