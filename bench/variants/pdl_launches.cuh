// Step 09's two launches with programmatic dependent launch (PDL, compute capability 9.0 and
// later): the second launch may start before the first has finished, and waits inside the kernel
// for the first one's results instead of in the stream.
//
// The kernel is step 09's with two lines added at its start:
//   cudaGridDependencySynchronize()            blocks the thread until every grid this one depends
//       on programmatically has completed, with all its memory operations performed and visible to
//       this grid (PTX griddepcontrol.wait). In a grid launched the ordinary way (the first launch)
//       it has nothing to wait for: the stream already ran everything before it to completion.
//   cudaTriggerProgrammaticLaunchCompletion()  lets the dependent launch be scheduled once every
//       block of this grid has called it or exited (griddepcontrol.launch_dependents). It promises
//       no memory visibility; the wait above gives that. It affects only a launch made with the
//       attribute below, so in the second launch, whose successor (the next call's first launch) is
//       an ordinary one, it does nothing.
// The first launch is ordinary: it overwrites the partials that the previous call's second launch
// read, so it must wait for that launch to complete, as the stream makes it. The second carries
// cudaLaunchAttributeProgrammaticStreamSerialization = 1 (cudaLaunchKernelEx): once every block of
// the first launch has started and triggered, the one block of the second can be placed on an SM
// as soon as one is free, and sits in the wait until the partials are complete. What that can
// save: the gap between the two launches, a few microseconds, which at 2^20 is a large share of
// the call. Whether the driver overlaps on the legacy default stream, which the harness uses, is
// part of what the measurement shows.
//
// A GPU below compute capability 9.0 has no PDL: exit 3. The two calls exist only in code for
// sm_90 and later (the build also makes sm_75 and sm_80 code, where they compile to nothing).
#pragma once

#include "step09_vector_loads/reduce.cuh"

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

// ---- bookkeeping: step 09's, unchanged ----

template <class T>
std::size_t scratch_bytes(std::size_t n, int block) { return step09::scratch_bytes<T>(n, block); }

inline std::size_t addition_depth(std::size_t n, int block) { return step09::addition_depth(n, block); }

}  // namespace pdl_launches
