// Step 14 variant: every grid that is not one cluster ends through pairs, in teams. The grid is cut into teams of
// at most Block + 1 blocks; every block but a team's last posts its pair, as in the step; a team's last block
// reads its team's pairs (one per thread, as the step's last block reads a grid's), adds them to its own and
// posts the team's pair in a slot of the teams'; the grid's last block reads its team's pairs and the other
// teams', then rounds once. A grid of at most Block + 1 blocks is one team: the step's end exactly.
// Included in the step's reduce.cuh before its kernel (bench/variants.toml: step14_team_pairs).

#include "bench/variants/most_blocks.h"

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
    if (!grid_last) {  // a team's last block posts the team's sum, in the teams' slots
        post_block_sum<Block>(acc, digits, seen, exact, high, low, flags, grid_state->digits,
                              team_last ? team_slots + static_cast<std::size_t>(block / team) * pair_slots
                                        : block_slots + static_cast<std::size_t>(block) * pair_slots);
        return;
    }
    if (exact && partial == nullptr) {
        if (tid == 0) *out = round_pair<T>(high, low, specials_of(flags));
        return;
    }
    end_in_digits<Block>(acc, digits, seen, flags, grid_state, out, partial);
}
