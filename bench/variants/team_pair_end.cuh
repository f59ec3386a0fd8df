// Step 14 variant: every grid that is not one cluster ends through pairs, in teams. The grid is cut into teams of
// at most Block + 1 blocks; every block but a team's last posts its pair, as in the step; a team's last block
// reads its team's pairs (one per thread, as the step's last block reads a grid's), adds them to its own and
// posts the team's pair in a slot of the teams'; the grid's last block reads its team's pairs and the other
// teams', then rounds once. A grid of at most Block + 1 blocks is one team: the step's end exactly.
// Included in the step's reduce.cuh before its kernel (bench/variants.toml: step14_team_pairs).

#include "bench/variants/most_blocks.h"

// One block's (or team's) pair and flags from its 5 marked slots, waited for, then the slots emptied.
__device__ __forceinline__ void take_pair(Slot* slots, double& high, double& low, unsigned int& flags) {
    Slot words[pair_slots];
    bool all_marked;
    do {
        all_marked = true;
#pragma unroll
        for (unsigned int w = 0; w < pair_slots; ++w) {
            words[w] = SlotRef(slots[w]).load(cuda::std::memory_order_relaxed);
            all_marked &= (words[w] & full) != 0;
        }
    } while (!all_marked);
#pragma unroll
    for (unsigned int w = 0; w < pair_slots; ++w) SlotRef(slots[w]).store(0, cuda::std::memory_order_relaxed);
    high = __longlong_as_double(static_cast<long long>((words[1] << 32) | static_cast<unsigned int>(words[0])));
    low = __longlong_as_double(static_cast<long long>((words[3] << 32) | static_cast<unsigned int>(words[2])));
    flags = static_cast<unsigned int>(words[4]);
}

template <unsigned int Block, class T>
__device__ __forceinline__ void end_in_team_pairs(ExactAccumulator<T>& acc, std::int64_t* digits, unsigned int* seen,
                                                  ExactGridState<T>* grid_state, T* out, ExactPartial<T>* partial) {
    constexpr int count = reduction::ExactLayout<T>::digit_count;
    const unsigned int tid = threadIdx.x, block = blockIdx.x;
    const unsigned int at_most = (gridDim.x + Block) / (Block + 1);      // teams of at most Block + 1 blocks
    const unsigned int team = (gridDim.x + at_most - 1) / at_most;       // blocks per team, the last team fewer
    const unsigned int teams = (gridDim.x + team - 1) / team;
    const unsigned int team_first = block / team * team;
    const unsigned int team_end = min(team_first + team, gridDim.x);
    const bool team_last = block == team_end - 1, grid_last = block == gridDim.x - 1;
    Slot* const block_slots = reinterpret_cast<Slot*>(grid_state + 1);                       // a block's 5
    Slot* const team_slots = block_slots + static_cast<std::size_t>(gridDim.x) * pair_slots;  // a team's 5
    unsigned int posted_flags = 0;
    if (team_last) {  // the team's other blocks' pairs (and, in the grid's last block, the other teams') into its own
        double high, low;
        unsigned int flags;
        if (team_first + tid < block) {
            take_pair(block_slots + static_cast<std::size_t>(team_first + tid) * pair_slots, high, low, flags);
            posted_flags |= flags;
            acc.add_posted(high);
            acc.add_posted(low);
        }
        if (grid_last)
            for (unsigned int t = tid; t + 1 < teams; t += Block) {
                take_pair(team_slots + static_cast<std::size_t>(t) * pair_slots, high, low, flags);
                posted_flags |= flags;
                acc.add_posted(high);
                acc.add_posted(low);
            }
        __syncwarp();
        if (posted_flags & posted_in_digits) __threadfence();  // acquire: those atomics, before the grid's digits
    }
    double high = acc.high, low = acc.low;
    unsigned int flags = acc.flags() | posted_flags;
    const bool exact = block_pair<Block, count>(high, low, flags, digits);
    if (!grid_last) {
        Slot* const slots = team_last ? team_slots + static_cast<std::size_t>(block / team) * pair_slots
                                      : block_slots + static_cast<std::size_t>(block) * pair_slots;
        if (exact) {
            if (tid == 0) post_pair(slots, high, low, flags);
            return;
        }
        acc.into_digits(seen);  // each thread's own pair: the digits then hold the block's (or team's) exact sum
        __syncthreads();
        add_to_grid<Block, count>(digits, grid_state->digits);
        __syncthreads();  // every thread's atomics, before thread 0's release
        if (tid == 0) {
            __threadfence();
            post_pair(slots, 0.0, 0.0, flags | posted_in_digits);
        }
        return;
    }
    if (exact && partial == nullptr) {
        if (tid == 0) *out = round_pair<T>(high, low, specials_of(flags));
        return;
    }
    // Through the digits: this block's threads' pairs (which hold every posted pair), and the grid's digits.
    acc.into_digits(seen);
    __syncthreads();
    for (unsigned int i = tid; i < count; i += Block)
        digits[i] += static_cast<std::int64_t>(atomicExch(reinterpret_cast<unsigned long long*>(&grid_state->digits[i]), 0ull));
    __syncthreads();
    digits_out<Block>(digits, flags, out, partial);
}
