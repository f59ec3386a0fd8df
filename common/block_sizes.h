// The block sizes a kernel is instantiated for (32, 64, ..., 1024), for the code around the steps:
// the benchmark variants and the read probe. Each step writes its own kernel_for_block switch and
// its own resident-grid loop, since they are part of its lesson; the code that only reuses or varies
// a step calls these instead of copying them once more.
#pragma once

#include "cuda_check.h"
#include "launch_math.h"

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace reduction {

using BlockSizes = std::integer_sequence<unsigned int, 32, 64, 128, 256, 512, 1024>;

namespace detail {
template <class Pick, unsigned int First, unsigned int... Rest>
auto pick_for_block(int block, const char* who, const Pick& pick, std::integer_sequence<unsigned int, First, Rest...>) {
    if (block == static_cast<int>(First)) return pick(std::integral_constant<unsigned int, First>{});
    if constexpr (sizeof...(Rest) > 0) {
        return pick_for_block(block, who, pick, std::integer_sequence<unsigned int, Rest...>{});
    } else {
        throw std::invalid_argument(std::string(who) + ": block must be 32, 64, 128, 256, 512 or 1024");
    }
}
}  // namespace detail

// pick(std::integral_constant<unsigned int, B>{}) for the B in BlockSizes equal to `block`, e.g. a
// kernel instantiated for it:
//   kernel_for_block_size(block, "my_variant", [](auto b) { return &my_kernel<decltype(b)::value, T>; })
// Any other block: std::invalid_argument "<who>: block must be 32, 64, 128, 256, 512 or 1024".
template <class Pick>
auto kernel_for_block_size(int block, const char* who, const Pick& pick) {
    return detail::pick_for_block(block, who, pick, BlockSizes{});
}

// Blocks of `kernel` that the whole current GPU holds at once with `block` threads and
// `shared_bytes` of dynamic shared memory: SM count x the occupancy API's resident blocks per SM.
template <class Kernel>
unsigned int resident_blocks(Kernel kernel, int block, std::size_t shared_bytes = 0) {
    int device = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, shared_bytes));
    return static_cast<unsigned int>(sms * per_sm);
}

// value(block) for every block size, indexed by log2_exact(block): a table asked once and kept, e.g.
//   static const auto grids = per_block_size([](int b) { return resident_blocks(kernel_for(b), b); });
//   grids[log2_exact(block)]
template <class Value>
std::array<unsigned int, 11> per_block_size(const Value& value) {
    std::array<unsigned int, 11> table{};
    for (int b = 32; b <= 1024; b *= 2) table[log2_exact(b)] = value(b);
    return table;
}

}  // namespace reduction
