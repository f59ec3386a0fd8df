// Step 09's two launches, the second a programmatic dependent launch (sm_90 on, else exit 3; bench/README.md).
#include "bench/ablation/lab.h"  // with the step's own includes
#include "block_sizes.h"

#include <nv/target>

namespace pdl_launches {

inline constexpr const char* name = "step09_pdl";
inline constexpr const char* change = "step09's two launches, the second a programmatic dependent launch";

// Step 09's kernel with the two PDL lines first; its loop and block tree are called, not copied.
template <unsigned int Block, class T>
__global__ void reduce_pdl_kernel(const T* in, std::size_t n, T* partials) {
    NV_IF_TARGET(NV_PROVIDES_SM_90, (cudaGridDependencySynchronize();))        // before the first read of `in`
    NV_IF_TARGET(NV_PROVIDES_SM_90, (cudaTriggerProgrammaticLaunchCompletion();))  // the dependent may be placed now
    __shared__ T warp_sums[32];  // one slot per warp: at most 1024 / 32
    const T sum = step09::block_sum<Block>(step09::thread_sum<Block>(in, n), warp_sums);
    if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

template <class T>
void reduce(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    static const int capability = 10 * lab::device_attribute(cudaDevAttrComputeCapabilityMajor) +
                                  lab::device_attribute(cudaDevAttrComputeCapabilityMinor);
    if (capability < 90)
        throw reduction::EnvironmentError(std::string(name) + ": programmatic dependent launch needs compute capability 9.0 or "
            "later; this GPU has " + std::to_string(capability / 10) + "." + std::to_string(capability % 10));
    const step09::Kernel<T> kernel = reduction::kernel_for_block_size(
        block, name, [](auto b) -> step09::Kernel<T> { return reduce_pdl_kernel<decltype(b)::value, T>; });
    const unsigned int grid = step09::grid_for(n, block);  // step 09's grid: the partials fit its scratch
    kernel<<<grid, block, 0, stream>>>(in, n, scratch);  // ordinary: after the previous call has read the partials
    CUDA_CHECK_LAUNCH();
    cudaLaunchAttribute programmatic{};
    programmatic.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    programmatic.val.programmaticStreamSerializationAllowed = 1;
    const cudaLaunchConfig_t config = lab::launch_config(1, block, stream, programmatic);  // one block adds the partials
    CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, static_cast<const T*>(scratch), static_cast<std::size_t>(grid), out));
}

// As the harness calls it: step 09's Entry (its bookkeeping, unchanged) with this variant's names and reduce.
struct Entry : step09::Entry {
    static constexpr const char *step_name = name, *step_change = change;
    template <class Op, class K>
    static void run(const K* in, std::size_t n, K* out, K* w, int b, cudaStream_t s) { reduce(in, n, out, w, b, s); }
};

}  // namespace pdl_launches
