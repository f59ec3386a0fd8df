// Two other ways to add a warp's values, for step 08's benchmark. Each has the shape of
// step08::warp_sum (template <unsigned int Lanes, class T> T f(T)), so that defining
// STEP08_WARP_SUM as its name before including step08's reduce.cuh swaps it into the same kernel.
#pragma once

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cstdint>
#include <type_traits>

namespace variants {

// cooperative_groups::reduce over the whole warp. It combines all 32 lanes (lanes past `Lanes`
// hold zeros in step 08's kernel) and leaves the result in every lane.
template <unsigned int Lanes, class T>
__device__ __forceinline__ T cg_warp_sum(T value) {
    namespace cg = cooperative_groups;
    const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    return cg::reduce(warp, value, cg::plus<T>());
}

// The same shuffle tree as step 08, for the types __reduce_add_sync does not take.
template <unsigned int Lanes, class T>
__device__ __forceinline__ T shuffle_warp_sum(T value) {
#pragma unroll
    for (unsigned int offset = Lanes / 2; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
    return value;
}

// __reduce_add_sync (sm_80 and later): one instruction adds 32 ints or unsigned ints in hardware.
// Floats and doubles have no such instruction and keep the shuffle tree, as does code compiled for
// an older GPU (the build also makes sm_75 code).
template <unsigned int Lanes, class T>
__device__ __forceinline__ T redux_warp_sum(T value) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    if constexpr (std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t>) {
        return __reduce_add_sync(0xffffffffu, value);
    } else {
        return shuffle_warp_sum<Lanes>(value);
    }
#else
    return shuffle_warp_sum<Lanes>(value);
#endif
}

}  // namespace variants
