// Step 10's own kernel, grid and slots as a cooperative launch: every block resident, as documented (bench/README.md).
#include "bench/ablation/lab.h"  // with the step's own includes
#include "block_sizes.h"

namespace cooperative_launch {

inline constexpr const char* name = "step10_cooperative";
inline constexpr const char* change = "step10's kernel as a cooperative launch: every block resident, as documented";

template <class T>
void reduce(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    static const bool supported = lab::device_attribute(cudaDevAttrCooperativeLaunch) != 0;
    if (!supported)  // nothing to measure: exit 3
        throw reduction::EnvironmentError(std::string(name) +
                                          ": this GPU does not support cooperative launches (cudaDevAttrCooperativeLaunch is 0)");
    const step10::Kernel<T> kernel = step10::kernel_for_block<T>(block);
    const unsigned int grid = step10::grid_for(n, block);
    static const std::array<unsigned int, 11> limits =  // step 10 sizes for float64: checked for T, reported, never shrunk
        reduction::per_block_size([](int b) { return reduction::resident_blocks(step10::kernel_for_block<T>(b), b); });
    const unsigned int fits = limits[reduction::log2_exact(block)];
    if (grid > fits)
        throw reduction::CudaError(cudaErrorCooperativeLaunchTooLarge, std::string(name) + ": step 10's grid of " +
            std::to_string(grid) + " blocks of " + std::to_string(block) + " threads is larger than the " + std::to_string(fits) +
            " that fit on this GPU at once for " + std::to_string(sizeof(T)) + "-byte elements");
    cudaLaunchAttribute cooperative{};
    cooperative.id = cudaLaunchAttributeCooperative;
    cooperative.val.cooperative = 1;
    const cudaLaunchConfig_t config = lab::launch_config(grid, block, stream, cooperative);
    CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, in, n, out, reinterpret_cast<step10::Slot*>(scratch)));  // 256-byte aligned
}

// As the harness calls it: step 10's Entry (its bookkeeping, unchanged) with this variant's names and reduce.
struct Entry : step10::Entry {
    static constexpr const char *step_name = name, *step_change = change;
    template <class Op, class K>
    static void run(const K* in, std::size_t n, K* out, K* w, int b, cudaStream_t s) { reduce(in, n, out, w, b, s); }
};

}  // namespace cooperative_launch
