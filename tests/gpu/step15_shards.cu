// The split of n elements over K GPUs (step15::shard_of), checked on the host, no GPU needed: for
// every n up to 64 and K up to 9, and for n past 2^32, the shards follow each other in rank order,
// together cover [0, n) exactly once, differ in size by at most one element, and the empty ones
// (n < K) come last. A wrong split sums some elements twice or never, or reads past the input.
//
// Built against one step15 reduce.cuh (STEP15_HEADER), so that a changed copy can be checked too.
#include STEP15_HEADER

#include <cstddef>
#include <cstdio>
#include <vector>

namespace {

int check_split(std::size_t n, int gpus) {
    std::size_t next = 0, smallest = n, largest = 0, previous_count = n;
    for (int rank = 0; rank < gpus; ++rank) {
        const step15::Shard shard = step15::shard_of(n, gpus, rank);
        const bool follows = shard.begin == next, not_growing = shard.count <= previous_count;
        if (!follows || !not_growing) {
            std::printf("FAIL  n=%zu K=%d rank %d: shard [%zu, %zu) %s\n", n, gpus, rank, shard.begin,
                        shard.begin + shard.count,
                        !follows ? "does not begin where the shard before it ended" : "is larger than the shard before it");
            return 1;
        }
        next += shard.count;
        previous_count = shard.count;
        smallest = std::min(smallest, shard.count);
        largest = std::max(largest, shard.count);
    }
    if (next != n || largest - smallest > 1) {
        std::printf("FAIL  n=%zu K=%d: the shards cover %zu elements, sizes %zu to %zu (expected n, at most one apart)\n",
                    n, gpus, next, smallest, largest);
        return 1;
    }
    return 0;
}

}  // namespace

int main() {
    int failures = 0;
    for (std::size_t n = 1; n <= 64; ++n)
        for (int gpus = 1; gpus <= 9; ++gpus) failures += check_split(n, gpus);
    for (int gpus = 1; gpus <= 9; ++gpus) failures += check_split((std::size_t{1} << 33) + 5, gpus);
    std::printf("%s: %d splits failed\n", failures == 0 ? "ok" : "FAIL", failures);
    return failures == 0 ? 0 : 1;
}
