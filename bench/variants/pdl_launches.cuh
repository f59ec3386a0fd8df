// Step 09's two launches with programmatic dependent launch (PDL, compute capability 9.0 on): the
// second may start before the first has finished, and waits inside the kernel instead of in the
// stream. The kernel is step 09's with two calls first:
//   cudaGridDependencySynchronize()  waits until every grid this one depends on programmatically
//       has completed, its memory visible (griddepcontrol.wait); nothing to wait for in a grid
//       launched the ordinary way.
//   cudaTriggerProgrammaticLaunchCompletion()  lets the dependent launch be scheduled once every
//       block has called it or exited (griddepcontrol.launch_dependents); no memory visibility,
//       the wait gives that. It matters only before a launch made with the attribute below.
// The first launch is ordinary: it overwrites the partials the previous call's second launch read,
// so the stream must order it. The second carries cudaLaunchAttributeProgrammaticStreamSerialization:
// its one block can be placed as soon as every block of the first has triggered, and sits in the
// wait until the partials are complete. What that can save: the gap between the launches, a few
// microseconds, a large share of a call at 2^20; whether the driver overlaps them on the legacy
// default stream, which the harness uses, is part of what the measurement shows.
// Below compute capability 9.0: exit 3 (the sm_75 and sm_80 code compiles the calls to nothing).
#include "block_sizes.h"
#include "cuda_check.h"
#include "exit_codes.h"

#include <nv/target>

#include <cstddef>
#include <string>

namespace pdl_launches {

inline constexpr const char* name = "step09_pdl";
inline constexpr const char* change = "step09's two launches, the second a programmatic dependent launch";

// Step 09's kernel with the two PDL lines first; its loop and block tree are called, not copied.
template <unsigned int Block, class T>
__global__ void reduce_pdl_kernel(const T* in, std::size_t n, T* partials) {
    NV_IF_TARGET(NV_PROVIDES_SM_90, (cudaGridDependencySynchronize();))        // before the first read of `in`
    NV_IF_TARGET(NV_PROVIDES_SM_90, (cudaTriggerProgrammaticLaunchCompletion();))  // the dependent may be placed now
    __shared__ T warp_sums[32];  // one slot per warp: at most 1024 / 32
    T sum = step09::thread_sum<Block>(in, n);
    sum = step09::block_sum<Block>(sum, warp_sums);
    if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

template <class T>
using Kernel = void (*)(const T*, std::size_t, T*);

// The runtime block size picks its compile-time instantiation.
template <class T>
Kernel<T> kernel_for_block(int block) {
    return reduction::kernel_for_block_size(block, "step09_pdl",
                                            [](auto b) -> Kernel<T> { return reduce_pdl_kernel<decltype(b)::value, T>; });
}

// PDL needs compute capability 9.0 or later on the current device; below it, exit 3 with a line.
inline void require_pdl() {
    static const int capability = [] {
        int device = 0, major = 0, minor = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
        return major * 10 + minor;
    }();
    if (capability < 90)
        throw reduction::EnvironmentError(std::string(name) +
                                          ": programmatic dependent launch needs compute capability 9.0 or later; this GPU has " +
                                          std::to_string(capability / 10) + "." + std::to_string(capability % 10));
}

template <class T>
void reduce(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    require_pdl();
    const Kernel<T> kernel = kernel_for_block<T>(block);
    const unsigned int grid = step09::grid_for(n, block);  // step 09's grid: the partials fit its scratch
    kernel<<<grid, block, 0, stream>>>(in, n, scratch);  // ordinary: after the previous call has read the partials
    CUDA_CHECK_LAUNCH();

    cudaLaunchAttribute programmatic{};
    programmatic.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    programmatic.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(1);  // one block adds the partials, as in step 09
    config.blockDim = dim3(static_cast<unsigned int>(block));
    config.dynamicSmemBytes = 0;
    config.stream = stream;
    config.attrs = &programmatic;
    config.numAttrs = 1;
    const T* partials = scratch;
    CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, partials, static_cast<std::size_t>(grid), out));
}

// Step 09's bookkeeping, unchanged.

template <class T>
std::size_t scratch_bytes(std::size_t n, int block) { return step09::scratch_bytes<T>(n, block); }

inline std::size_t addition_depth(std::size_t n, int block) { return step09::addition_depth(n, block); }

}  // namespace pdl_launches
