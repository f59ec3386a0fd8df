// Run-time block size -> kernel and resident grid, for the benchmark variants and the read probe (not the steps).
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

// pick(integral_constant<unsigned, B>{}) for B == block; any other: invalid_argument "<who>: block must be ...".
template <class Pick>
auto kernel_for_block_size(int block, const char* who, const Pick& pick) {
    return detail::pick_for_block(block, who, pick, std::integer_sequence<unsigned int, 32, 64, 128, 256, 512, 1024>{});
}

template <class Kernel>  // blocks of `kernel` the whole current GPU holds at once
unsigned int resident_blocks(Kernel kernel, int block, std::size_t shared_bytes = 0) {
    int device = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, shared_bytes));
    return static_cast<unsigned int>(sms * per_sm);
}

template <class Value>  // value(block) for every block size, indexed by log2_exact(block)
std::array<unsigned int, 11> per_block_size(const Value& value) {
    std::array<unsigned int, 11> table{};
    for (int b = 32; b <= 1024; b *= 2) table[log2_exact(b)] = value(b);
    return table;
}
}  // namespace reduction
