// Step 14 variant: every grid that is not one cluster ends through pairs, one block included. Each block posts
// its pair and flags in 3 words and counts itself done (as the digits' end counts); the block that counts last
// reads every block's words, each thread 4 blocks' at once, adds them exactly and rounds the grid's pair once.
// Included in the step's reduce.cuh before its kernel (bench/variants.toml: step14_counted_pairs).

constexpr unsigned int counted_pair_words = 3;  // high, low, flags

#include "bench/variants/most_blocks.h"

template <unsigned int Block, class T>
__device__ __forceinline__ void end_in_counted_pairs(ExactAccumulator<T>& acc, std::int64_t* digits, unsigned int* seen,
                                                     ExactGridState<T>* grid_state, T* out, ExactPartial<T>* partial,
                                                     bool* last) {
    constexpr int count = reduction::ExactLayout<T>::digit_count;
    constexpr unsigned int group = 4;  // blocks whose words a thread of the last block loads before it adds any
    using WordRef = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;
    const unsigned int tid = threadIdx.x;
    unsigned long long* const words = reinterpret_cast<unsigned long long*>(grid_state + 1);
    double high = acc.high, low = acc.low;
    unsigned int flags = acc.seen | ((acc.sign_and & 0x80000000u) != 0 ? 0u : saw_non_negative);
    bool exact = block_pair<Block, count>(high, low, flags, digits);
    if (gridDim.x > 1) {
        if (!exact) {  // the block's exact sum into the grid's digits; it posts a pair of zeros, marked
            acc.into_digits(seen);
            __syncthreads();
            for (unsigned int i = tid; i < count; i += Block) {
                const std::int64_t digit = carried_digit<count>(digits, i);
                if (digit != 0)
                    atomicAdd(reinterpret_cast<unsigned long long*>(&grid_state->digits[i]), static_cast<unsigned long long>(digit));
            }
            high = 0;
            low = 0;
            flags |= posted_in_digits;
            __syncthreads();  // every thread's atomics, before thread 0's release
        }
        if (tid == 0) {
            unsigned long long* const own = words + static_cast<std::size_t>(blockIdx.x) * counted_pair_words;
            WordRef(own[0]).store(static_cast<unsigned long long>(__double_as_longlong(high)), cuda::std::memory_order_relaxed);
            WordRef(own[1]).store(static_cast<unsigned long long>(__double_as_longlong(low)), cuda::std::memory_order_relaxed);
            WordRef(own[2]).store(flags, cuda::std::memory_order_relaxed);
            // Release: the words and the block's digits before the count. Acquire: the last block sees every block's.
            cuda::atomic_ref<unsigned int, cuda::thread_scope_device> blocks_done(grid_state->blocks_done);
            *last = blocks_done.fetch_add(1u, cuda::std::memory_order_acq_rel) == gridDim.x - 1;
        }
        __syncthreads();
        if (!*last) return;
        if (tid == 0) grid_state->blocks_done = 0;  // for the next call
        if (!exact) {  // its digits are in the grid's now
            for (unsigned int i = tid; i < count; i += Block) digits[i] = 0;
            __syncthreads();
        }
        acc.high = 0;
        acc.low = 0;
        flags = 0;
        for (unsigned int first = tid; first < gridDim.x; first += group * Block) {
            unsigned long long posted[group][counted_pair_words];
#pragma unroll
            for (unsigned int k = 0; k < group; ++k)
#pragma unroll
                for (unsigned int w = 0; w < counted_pair_words; ++w)
                    posted[k][w] = first + k * Block < gridDim.x
                                       ? WordRef(words[static_cast<std::size_t>(first + k * Block) * counted_pair_words + w])
                                             .load(cuda::std::memory_order_relaxed)
                                       : 0;
#pragma unroll
            for (unsigned int k = 0; k < group; ++k)
#pragma unroll
                for (unsigned int w = 0; w < counted_pair_words; ++w)
                    if (first + k * Block < gridDim.x)
                        WordRef(words[static_cast<std::size_t>(first + k * Block) * counted_pair_words + w])
                            .store(0, cuda::std::memory_order_relaxed);
#pragma unroll
            for (unsigned int k = 0; k < group; ++k) {
                acc.add_posted(__longlong_as_double(static_cast<long long>(posted[k][0])));
                acc.add_posted(__longlong_as_double(static_cast<long long>(posted[k][1])));
                flags |= static_cast<unsigned int>(posted[k][2]);
            }
        }
        high = acc.high;
        low = acc.low;
        exact = block_pair<Block, count>(high, low, flags, digits);
    }
    if (exact && partial == nullptr) {
        if (tid == 0) *out = round_pair<T>(high, low, specials_of(flags));
        return;
    }
    end_in_digits<Block>(acc, digits, seen, flags, grid_state, out, partial);
}
