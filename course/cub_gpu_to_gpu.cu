// CUB's reproducible float sum, determinism::gpu_to_gpu (course/README.md): compiled against a newer CCCL than the
// toolkit's, into a shared library whose symbols are hidden but sums(), so that no inline function of this CCCL
// merges with the toolkit's copy that the rest of the program uses (course/CMakeLists.txt).
#include "cub_gpu_to_gpu.h"
#include <cub/device/device_reduce.cuh>
#include <cuda/execution>        // require, determinism
#include <cuda/memory_resource>  // get_memory_resource, the resource concept
#include <cuda/std/execution>    // env, prop
#include <cuda/std/functional>   // plus
#include <cuda/stream_ref>
#include <cstdint>
#include <new>

namespace reduction::gpu_to_gpu {
namespace {
// Only the env overload of Reduce takes a determinism, and it has no temporary-storage arguments: it asks the env's
// memory resource. This one hands out the caller's scratch and never allocates, so the call can be timed like the
// steps. With no scratch (the size query) it records the bytes asked and throws: CUB catches that, returns
// cudaErrorMemoryAllocation and runs nothing.
class ScratchResource {
public:
    struct Request {
        bool made = false;
        std::size_t bytes = 0;
    };
    ScratchResource(void* scratch, std::size_t capacity, Request* request)
        : scratch_(scratch), capacity_(capacity), request_(request) {}

    void* allocate_sync(std::size_t bytes, std::size_t alignment) {
        *request_ = {true, bytes};
        if (!scratch_ || bytes > capacity_ || reinterpret_cast<std::uintptr_t>(scratch_) % alignment != 0)
            throw std::bad_alloc();
        return scratch_;
    }
    void deallocate_sync(void*, std::size_t, std::size_t) noexcept {}  // the scratch stays the caller's
    void* allocate(cuda::stream_ref, std::size_t bytes, std::size_t alignment) { return allocate_sync(bytes, alignment); }
    void deallocate(cuda::stream_ref, void*, std::size_t, std::size_t) noexcept {}

    bool operator==(const ScratchResource& other) const { return scratch_ == other.scratch_; }
    bool operator!=(const ScratchResource& other) const { return !(*this == other); }

private:
    void* scratch_;
    std::size_t capacity_;
    Request* request_;  // CUB copies the resource: what it asked is written outside it
};
static_assert(cuda::mr::resource<ScratchResource>);

template <class T>
cudaError_t sum(void* scratch, std::size_t& bytes, const T* in, T* out, std::size_t n, cudaStream_t stream) {
    ScratchResource::Request request;
    const auto env = cuda::std::execution::env{
        cuda::stream_ref{stream}, cuda::execution::require(cuda::execution::determinism::gpu_to_gpu),
        cuda::std::execution::prop{cuda::mr::get_memory_resource, ScratchResource{scratch, bytes, &request}}};
    // CUB finds this resource in the env: had the query missed it, CUB would fall back to cudaMallocAsync silently
    using found = cuda::std::remove_cvref_t<decltype(cuda::mr::get_memory_resource(env))>;
    static_assert(cuda::std::is_same_v<found, ScratchResource>);
    cudaError_t status = cudaErrorUnknown;
    try {
        status = cub::DeviceReduce::Reduce(in, out, static_cast<std::int64_t>(n), cuda::std::plus<>{}, T{0}, env);
    } catch (...) {  // nothing may leave the library but a cudaError_t
        return cudaErrorUnknown;
    }
    if (scratch) return status;
    if (!request.made) return status == cudaSuccess ? cudaErrorUnknown : status;  // failed before it asked
    bytes = request.bytes;
    return cudaSuccess;
}
}  // namespace

Sums sums() { return {&sum<float>, &sum<double>, CCCL_VERSION}; }
}  // namespace reduction::gpu_to_gpu
