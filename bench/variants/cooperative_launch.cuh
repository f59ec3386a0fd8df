// Step 10's own kernel and grid as a cooperative launch (cudaLaunchKernelEx with
// cudaLaunchAttributeCooperative). Step 10's last block waits for every other block's slot, which
// ends only if those blocks get to run while it spins. A plain launch does not promise that; a
// cooperative launch is the documented way to have it: the runtime refuses a grid larger than
// cudaOccupancyMaxActiveBlocksPerMultiprocessor x SMs (cudaErrorCooperativeLaunchTooLarge), and
// all its blocks run together, which grid.sync() relies on. The same kernel, grid, slots and
// order of additions: the same bits for a float sum. What it costs: whatever the driver does to
// check and place a cooperative grid.
//
// Step 10 sizes its grid from the occupancy of its float64 instantiation (the most shared
// memory); here every call checks it against the instantiation it launches, so "step 10's grid
// always fits at once" is tested on every type and block size, and a grid that does not fit is
// reported in one line instead of being shrunk in silence.
#include "block_sizes.h"
#include "cuda_check.h"
#include "exit_codes.h"
#include "launch_math.h"

#include <array>
#include <cstddef>
#include <string>

namespace cooperative_launch {

inline constexpr const char* name = "step10_cooperative";
inline constexpr const char* change = "step10's kernel as a cooperative launch: every block resident, as documented";

// Without cooperative launches there is nothing to measure (exit 3).
inline void require_cooperative_launch() {
    static const bool supported = [] {
        int device = 0, flag = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&flag, cudaDevAttrCooperativeLaunch, device));
        return flag != 0;
    }();
    if (!supported)
        throw reduction::EnvironmentError(std::string(name) +
                                          ": this GPU does not support cooperative launches (cudaDevAttrCooperativeLaunch is 0)");
}

// Blocks of step 10's kernel for T that the GPU holds at once, per block size; asked once per type.
template <class T>
unsigned int co_resident_blocks(int block) {
    static const std::array<unsigned int, 11> limits =
        reduction::per_block_size([](int b) { return reduction::resident_blocks(step10::kernel_for_block<T>(b), b); });
    return limits[reduction::log2_exact(block)];
}

template <class T>
void reduce(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    require_cooperative_launch();
    const step10::Kernel<T> kernel = step10::kernel_for_block<T>(block);
    const unsigned int grid = step10::grid_for(n, block);
    const unsigned int fits = co_resident_blocks<T>(block);
    if (grid > fits)  // step 10's sizing is wrong for this instantiation: say so, never shrink the grid
        throw reduction::CudaError(cudaErrorCooperativeLaunchTooLarge,
                                   std::string(name) + ": step 10's grid of " + std::to_string(grid) + " blocks of " +
                                       std::to_string(block) + " threads is larger than the " + std::to_string(fits) +
                                       " that fit on this GPU at once for " + std::to_string(sizeof(T)) +
                                       "-byte elements");
    step10::Slot* slots = reinterpret_cast<step10::Slot*>(scratch);  // the scratch is 256-byte aligned (cudaMalloc)

    cudaLaunchAttribute cooperative{};
    cooperative.id = cudaLaunchAttributeCooperative;
    cooperative.val.cooperative = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(static_cast<unsigned int>(block));
    config.stream = stream;
    config.attrs = &cooperative;
    config.numAttrs = 1;
    CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, in, n, out, slots));  // one launch, as step 10
}

// Step 10's bookkeeping, unchanged.
template <class T>
std::size_t scratch_bytes(std::size_t n, int block) { return step10::scratch_bytes<T>(n, block); }

inline std::size_t addition_depth(std::size_t n, int block) { return step10::addition_depth(n, block); }

}  // namespace cooperative_launch
