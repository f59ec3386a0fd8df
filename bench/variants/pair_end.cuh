// The end of a grid through pairs, not digits (variant step14_pair_end; included inside namespace step14, before
// the exact kernel). At the end of its loop each thread holds its exact sum as high + low. The block adds those
// pairs as pairs: two_sum for the highs, two_sum for the lows and the highs' error; while no rest comes, the
// block's pair is its exact sum. A block whose threads flushed nothing and met no rest posts its pair and its
// special inputs in 5 marked slots (as step 13 posts its partials) and leaves: no flush, no atomics into the grid,
// no count. The grid's last block adds every posted pair into its threads' own with add_exact (a rest goes to its
// digits), adds its threads' pairs the same way, and, if still no rest came, rounds high + low once. Anything
// else goes through the digits as before: a block that met a rest flushes its threads' pairs, adds its digits to
// the grid's and posts a mark; the last block then flushes its own and reads the grid's digits.

constexpr unsigned int pair_slots = 5;  // high and low, 32 bits a slot, then the flags
constexpr unsigned int posted_in_digits = 1u << 8;  // flags: this block's sum is in the grid's digits

// Two exact pairs into one: high + low stays the exact sum of the four while this returns true (no rest).
__device__ __forceinline__ bool add_pair(double& high, double& low, double other_high, double other_low) {
    double error, rest_low, rest;
    high = two_sum(high, other_high, error);
    low = two_sum(two_sum(low, other_low, rest_low), error, rest);
    return rest_low == 0 && rest == 0;  // an overflow leaves a NaN or an infinity: not zero
}

// Every thread's pair added into thread 0's, and every thread's flags or-ed. Returns, to every thread, whether
// thread 0's pair is the block's exact sum: no addition left a rest, the block's digits are zero (nothing was
// flushed, or what was cancelled) and no posted sum is in the grid's digits. Every thread must call it (two barriers).
template <unsigned int Block, int Count>
__device__ __forceinline__ bool block_pair(double& high, double& low, unsigned int& flags, const std::int64_t* digits) {
    constexpr unsigned int warps = Block / 32, all_lanes = 0xffffffffu;
    __shared__ double warp_high[warps], warp_low[warps];
    __shared__ unsigned int warp_flags[warps];
    __shared__ bool block_exact;
    __shared__ unsigned int block_flags;
    const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    bool exact = true;
#pragma unroll
    for (unsigned int offset = 16; offset > 0; offset /= 2) flags |= __shfl_xor_sync(all_lanes, flags, offset);
#pragma unroll
    for (unsigned int offset = 16; offset > 0; offset /= 2) {
        const double other_high = __shfl_down_sync(all_lanes, high, offset);
        const double other_low = __shfl_down_sync(all_lanes, low, offset);
        exact &= add_pair(high, low, other_high, other_low);  // lane 0's chain adds each lane once
    }
    if (lane == 0) {
        warp_high[warp] = high;
        warp_low[warp] = low;
        warp_flags[warp] = flags | (exact ? 0u : 1u << 31);
    }
    __syncthreads();
    if (warp == 0) {
        high = lane < warps ? warp_high[lane] : 0.0;
        low = lane < warps ? warp_low[lane] : 0.0;
        const unsigned int mine = lane < warps ? warp_flags[lane] : 0u;
        exact = __all_sync(all_lanes, (mine >> 31) == 0);
#pragma unroll
        for (int base = 0; base < Count; base += 32)  // the loop's flushes are done: the barrier above
            exact &= __all_sync(all_lanes, base + static_cast<int>(lane) >= Count || digits[base + lane] == 0);
        flags = mine;
#pragma unroll
        for (unsigned int offset = 16; offset > 0; offset /= 2) flags |= __shfl_xor_sync(all_lanes, flags, offset);
        flags &= ~(1u << 31);
        exact &= (flags & posted_in_digits) == 0;
#pragma unroll
        for (unsigned int offset = warps / 2; offset > 0; offset /= 2) {
            const double other_high = __shfl_down_sync(all_lanes, high, offset);
            const double other_low = __shfl_down_sync(all_lanes, low, offset);
            exact &= add_pair(high, low, other_high, other_low);
        }
        if (lane == 0) {
            block_exact = exact;
            block_flags = flags;
        }
    }
    __syncthreads();
    flags = block_flags;
    return block_exact;
}

// Thread 0 of a block that is not the last: its pair and flags into its 5 slots, each a marked 64-bit word.
__device__ __forceinline__ void post_pair(Slot* slots, double high, double low, unsigned int flags) {
    const unsigned long long h = static_cast<unsigned long long>(__double_as_longlong(high));
    const unsigned long long l = static_cast<unsigned long long>(__double_as_longlong(low));
    const unsigned int words[pair_slots] = {static_cast<unsigned int>(h), static_cast<unsigned int>(h >> 32),
                                            static_cast<unsigned int>(l), static_cast<unsigned int>(l >> 32), flags};
#pragma unroll
    for (unsigned int w = 0; w < pair_slots; ++w) SlotRef(slots[w]).store(full | words[w], cuda::std::memory_order_relaxed);
}

// high + low, exact, rounded once to T (the special inputs and the zeros as round_digits says). float64: one
// addition. float32: the sum rounded to double by rounding to odd (the last bit set when bits were lost), then
// to float: a double holds more than two bits beyond a float's, so the second rounding is as if it were the only one.
template <class T>
__device__ __forceinline__ T round_pair(double high, double low, const reduction::ExactSpecials& specials) {
    double error;
    const double sum = two_sum(high, low, error);
    if (specials.nan || specials.plus_inf || specials.minus_inf || sum == 0) {
        std::int64_t none = 0;  // no digit: round_digits returns the special value or the zero, reading none
        return reduction::round_digits<T>(&none, specials, reduction::ExactLayout<T>::digit_count, -1);
    }
    if constexpr (sizeof(T) == 8) {
        return sum;
    } else {
        long long bits = __double_as_longlong(sum);
        if (error != 0 && (bits & 1) == 0) bits += (error > 0) == (sum > 0) ? 1 : -1;
        return __double2float_rn(__longlong_as_double(bits));
    }
}

// The end of a grid that is not one cluster, through pairs. Every thread of every block must call it.
template <unsigned int Block, class T>
__device__ __forceinline__ void end_in_pairs(ExactAccumulator<T>& acc, std::int64_t* digits, unsigned int* seen,
                                             ExactGridState<T>* grid_state, T* out, ExactPartial<T>* partial) {
    constexpr int count = reduction::ExactLayout<T>::digit_count;
    const unsigned int tid = threadIdx.x;
    Slot* const pair_slot_array = reinterpret_cast<Slot*>(grid_state + 1);
    const bool is_last = blockIdx.x == gridDim.x - 1;
    unsigned int posted_flags = 0;
    if (is_last) {  // every other block's pair into this block's threads' own, exactly
        for (unsigned int b = tid; b + 1 < gridDim.x; b += Block) {
            Slot* const slots = pair_slot_array + static_cast<std::size_t>(b) * pair_slots;
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
            const double high = __longlong_as_double(static_cast<long long>((words[1] << 32) | static_cast<unsigned int>(words[0])));
            const double low = __longlong_as_double(static_cast<long long>((words[3] << 32) | static_cast<unsigned int>(words[2])));
            posted_flags |= static_cast<unsigned int>(words[4]);
            acc.add_posted(high);
            acc.add_posted(low);
        }
        __syncwarp();
        if (posted_flags & posted_in_digits) __threadfence();  // acquire: that block's atomics, before the grid's digits are read
    }
    double high = acc.high, low = acc.low;
    unsigned int flags = acc.seen | ((acc.sign_and & 0x80000000u) != 0 ? 0u : saw_non_negative) | posted_flags;
    const bool exact = block_pair<Block, count>(high, low, flags, digits);
    if (!is_last) {
        Slot* const slots = pair_slot_array + static_cast<std::size_t>(blockIdx.x) * pair_slots;
        if (exact) {
            if (tid == 0) post_pair(slots, high, low, flags);
            return;
        }
        acc.into_digits(seen);  // each thread's own pair: the digits then hold the block's exact sum
        __syncthreads();
        for (unsigned int i = tid; i < count; i += Block) {
            const std::int64_t digit = carried_digit<count>(digits, i);
            if (digit != 0)
                atomicAdd(reinterpret_cast<unsigned long long*>(&grid_state->digits[i]), static_cast<unsigned long long>(digit));
        }
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
    if (partial != nullptr)
        for (unsigned int i = tid; i < count; i += Block) partial->digits[i] = digits[i];
    if (tid < 32) {
        int lowest, highest;
        nonzero_range<count>(digits, lowest, highest);
        if (tid == 0) {
            if (partial == nullptr) {
                *out = reduction::round_digits<T>(digits, specials_of(flags), lowest, highest);
            } else {
                partial->nan = (flags & saw_nan) != 0;
                partial->plus_inf = (flags & saw_plus_inf) != 0;
                partial->minus_inf = (flags & saw_minus_inf) != 0;
                partial->non_negative = (flags & saw_non_negative) != 0;
            }
        }
    }
}

// ---- a grid of one cluster, through pairs ----
// Every block but block 0 sends block 0 a row of three words, its pair and its flags (st.async, counted off
// block 0's `received`); block 0's first threads each add one row's pair into their own, and the block adds its
// threads' pairs as above. A block that met a rest also flushes its threads' pairs and sends its digits, each
// carried one step, counted off a second mbarrier, `received_digits`, which block 0 tells how many bytes to wait
// for once it has read the flags: only when some block sent digits, or the sum goes out unrounded.
constexpr unsigned int pair_row_words = 3;

__host__ __device__ constexpr std::size_t received_pair_bytes(unsigned int blocks) {
    return (blocks - 1) * pair_row_words * sizeof(std::int64_t);
}

// Block 0's thread 0, before the cluster's first barrier: both mbarriers, one arrival each (its own); the pairs'
// bytes expected at once, the digits' later (expect_digits).
__device__ __forceinline__ void expect_pairs(unsigned long long* received, unsigned long long* received_digits, unsigned int blocks) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(received)));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(received_digits)));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 ::"r"(shared_address(received)), "r"(static_cast<unsigned int>(received_pair_bytes(blocks))) : "memory");
#endif
}

__device__ __forceinline__ void expect_digits(unsigned long long* received_digits, unsigned int bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(received_digits)), "r"(bytes) : "memory");
#endif
}

template <unsigned int Block, class T>
__device__ __forceinline__ void end_in_cluster_pairs(ExactAccumulator<T>& acc, std::int64_t* digits, unsigned int* seen,
                                                     unsigned long long* received, unsigned long long* received_digits,
                                                     std::int64_t* rows, T* out, ExactPartial<T>* partial) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int count = reduction::ExactLayout<T>::digit_count;
    constexpr unsigned int per_thread = (count + Block - 1) / Block;
    const unsigned int tid = threadIdx.x, blocks = gridDim.x;
    std::int64_t* const pair_rows = rows;                                        // (blocks - 1) x 3 words
    std::int64_t* const digit_rows = rows + (blocks - 1) * pair_row_words;        // (blocks - 1) x row_words<T>
    unsigned int flags = acc.seen | ((acc.sign_and & 0x80000000u) != 0 ? 0u : saw_non_negative);
    if (blockIdx.x != 0) {
        double high = acc.high, low = acc.low;
        const bool exact = block_pair<Block, count>(high, low, flags, digits);
        __cluster_barrier_wait();  // block 0's mbarriers are ready (the arrival at the kernel's start)
        std::int64_t* const row = pair_rows + (blockIdx.x - 1) * pair_row_words;
        if (tid == 0) {  // a block that met a rest sends its sum as digits, below, and a pair of zeros
            send_to_block0(row, __double_as_longlong(exact ? high : 0.0), received);
            send_to_block0(row + 1, __double_as_longlong(exact ? low : 0.0), received);
            send_to_block0(row + 2, static_cast<std::int64_t>(flags | (exact ? 0u : posted_in_digits)), received);
        }
        if (exact) return;
        acc.into_digits(seen);
        __syncthreads();
        std::int64_t* const digit_row = digit_rows + (blockIdx.x - 1) * row_words<T>;
#pragma unroll
        for (unsigned int j = 0; j < per_thread; ++j) {
            const unsigned int i = tid + j * Block;
            if (i < count) send_to_block0(digit_row + i, carried_digit<count>(digits, i), received_digits);
        }
        return;
    }
    // Block 0: its own pair first, while the others may still be adding theirs; then warp 0 adds the rows' pairs
    // to it, lane 0 its own, lane k the row of block k.
    double high = acc.high, low = acc.low;
    unsigned int all_flags = flags;
    bool exact = block_pair<Block, count>(high, low, all_flags, digits);
    __shared__ bool cluster_exact;
    __shared__ unsigned int cluster_flags;
    if (threadIdx.x < 32) {
        constexpr unsigned int all_lanes = 0xffffffffu;
        const unsigned int lane = threadIdx.x;
        __cluster_barrier_wait();
        wait_for_chunk<Writers::cluster>(received, 0);  // every pair row has landed
        unsigned int lane_flags = all_flags;
        double sum_high = high, sum_low = low;
        if (lane > 0) {
            const std::int64_t* const row = pair_rows + (lane - 1) * pair_row_words;
            sum_high = lane < blocks ? __longlong_as_double(row[0]) : 0.0;
            sum_low = lane < blocks ? __longlong_as_double(row[1]) : 0.0;
            lane_flags = lane < blocks ? static_cast<unsigned int>(row[2]) : 0u;
        }
#pragma unroll
        for (unsigned int offset = cluster_blocks / 2; offset > 0; offset /= 2) {  // lanes 0 .. 15: every block
            const double other_high = __shfl_down_sync(all_lanes, sum_high, offset);
            const double other_low = __shfl_down_sync(all_lanes, sum_low, offset);
            exact &= add_pair(sum_high, sum_low, other_high, other_low);
        }
#pragma unroll
        for (unsigned int offset = 16; offset > 0; offset /= 2) lane_flags |= __shfl_xor_sync(all_lanes, lane_flags, offset);
        if (lane == 0) {
            cluster_exact = exact && (lane_flags & posted_in_digits) == 0;
            cluster_flags = lane_flags;
            high = sum_high;
            low = sum_low;
        }
    } else {
        __cluster_barrier_wait();
    }
    __syncthreads();
    all_flags = cluster_flags;
    if (cluster_exact && partial == nullptr) {
        if (tid == 0) *out = round_pair<T>(high, low, specials_of(all_flags));
        return;
    }
    // Through the digits: every thread's own pair, the rows' pairs (warp 0's lanes), and the rows of digits sent.
    if (tid > 0 && tid < blocks) {
        acc.flush(__longlong_as_double(pair_rows[(tid - 1) * pair_row_words]));
        acc.flush(__longlong_as_double(pair_rows[(tid - 1) * pair_row_words + 1]));
    }
    const bool sent_digits = tid > 0 && tid < blocks &&
                             (static_cast<unsigned int>(pair_rows[(tid - 1) * pair_row_words + 2]) & posted_in_digits) != 0;
    const int senders = __syncthreads_count(sent_digits);
    if (tid == 0) expect_digits(received_digits, static_cast<unsigned int>(senders) * count * sizeof(std::int64_t));
    acc.into_digits(seen);
    wait_for_chunk<Writers::cluster>(received_digits, 0);
    __syncthreads();  // every thread's flushes, and every row of digits
    for (unsigned int i = tid; i < count; i += Block) {
        std::int64_t sum = digits[i];
        for (unsigned int b = 0; b + 1 < blocks; ++b)
            if (static_cast<unsigned int>(pair_rows[b * pair_row_words + 2]) & posted_in_digits) sum += digit_rows[b * row_words<T> + i];
        digits[i] = sum;
    }
    __syncthreads();
    if (partial != nullptr) {
        for (unsigned int i = tid; i < count; i += Block) partial->digits[i] = digits[i];
        if (tid == 0) {
            partial->nan = (all_flags & saw_nan) != 0;
            partial->plus_inf = (all_flags & saw_plus_inf) != 0;
            partial->minus_inf = (all_flags & saw_minus_inf) != 0;
            partial->non_negative = (all_flags & saw_non_negative) != 0;
        }
    } else if (tid < 32) {
        int lowest, highest;
        nonzero_range<count>(digits, lowest, highest);
        if (tid == 0) *out = reduction::round_digits<T>(digits, specials_of(all_flags), lowest, highest);
    }
#endif
}
