// The read probe's loop: every 16-byte vector of a range read once and XOR-mixed, L loads in flight per thread.
// The course's read_probe (course_steps.cu) and the lab's read patterns (bench/ablation/read_patterns.cu) run it.
#pragma once
#include <cstddef>
#include <cuda_runtime.h>

namespace reduction::probe {
// The value a probe compares its mix with before writing one byte: any value, as long as the compiler cannot know
// the mix never equals it, so no load can be removed and almost no store happens.
inline constexpr unsigned int sentinel = 0x9E3779B9u;

__device__ __forceinline__ unsigned int mix(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

// The bits of body[i + k Block], k < Loads, mixed: from i on by `step` while all Loads are before `end`, then
// those that are. One thread's share of a grid-stride loop (step = grid x Loads x Block) or of a contiguous run.
template <unsigned int Loads, unsigned int Block>
__device__ __forceinline__ unsigned int mix_run(const uint4* body, std::size_t i, std::size_t end, std::size_t step) {
    unsigned int mixed = 0;
    for (; i + (Loads - 1) * Block < end; i += step) {
        uint4 v[Loads];
#pragma unroll
        for (unsigned int k = 0; k < Loads; ++k) v[k] = __ldg(body + i + k * Block);
#pragma unroll
        for (unsigned int k = 0; k < Loads; ++k) mixed ^= mix(v[k]);
    }
#pragma unroll
    for (unsigned int k = 0; k < Loads; ++k)
        if (i + k * Block < end) mixed ^= mix(__ldg(body + i + k * Block));
    return mixed;
}
}  // namespace reduction::probe
