// THE WRONG FORM, kept to be looked at and tested, not a step of the course.
//
// Step 05's kernel with the last warp unrolled the classic pre-Volta way: through a `volatile`
// pointer and with no __syncwarp() between the levels. It relied on the 32 lanes of a warp running
// in lock-step, so that every lane's read of a level happened before any lane's write. Since Volta
// (sm_70) the lanes of a warp are scheduled independently: nothing orders one lane's write of
// v[tid] against another lane's read of the same slot. That is a data race even on the runs where
// the sum comes out right, and `volatile` does not help: it keeps each access in memory, it does
// not order the accesses of different lanes.
//
// tests/race_demo.sh runs compute-sanitizer's racecheck on this program and expects it to report
// hazards, and on step05_warp_unroll, the correct form, and expects none:
//   compute-sanitizer --tool racecheck ./build/bin/step05_volatile_race_demo --n 4097 --iters 1 --warmup 0
#include "exit_codes.h"
#include "reduce.cuh"  // step 05: its launch arithmetic is reused, only the kernel differs
#include "run_step.h"

#include <string>

namespace step05_volatile_race_demo {

inline constexpr const char* name = "step05_volatile_race_demo";
inline constexpr const char* change = "WRONG FORM: last warp through a volatile pointer, no __syncwarp() (a data race)";

// What differs from step 05 is the kernel below and the first level it runs; the depth is step 05's
// (its Entry, at the end), the scratch holds the first level's partials before step 05's own.

// Step 05's kernel except the last warp. Every lane of warp 0 adds at every level (the classic
// code has no `if (tid < offset)`): lanes past the offset compute values nobody reads, which is
// why the classic form needs at least 64 threads (a read reaches sdata[tid + 32]).
template <class T>
__global__ void reduce_volatile_race_kernel(const T* in, std::size_t n, T* partials) {
    T* sdata = dynamic_shared<T>();
    const unsigned int tid = threadIdx.x;
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * (2 * blockDim.x) + tid;
    T sum = i < n ? in[i] : T(0);
    if (i + blockDim.x < n) sum += in[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        // WRONG since Volta: lane k writes v[k] while lane k - offset may still be reading it.
        volatile T* v = sdata;
        v[tid] += v[tid + 32];
        v[tid] += v[tid + 16];
        v[tid] += v[tid + 8];
        v[tid] += v[tid + 4];
        v[tid] += v[tid + 2];
        v[tid] += v[tid + 1];
    }
    if (tid == 0) partials[blockIdx.x] = sdata[0];
}

// The first level with the kernel above (the race is there), the levels after it by step 05's own
// reduce, on the partials: the same launches and additions as step 05, so its depth holds.
template <class T>
std::size_t scratch_bytes(std::size_t n, int block) {
    const std::size_t blocks = reduction::ceil_div(n, 2 * block);
    return blocks * sizeof(T) + step05::scratch_bytes<T>(blocks, block);
}

template <class T>
void reduce(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    if (block < 64)
        throw reduction::UsageError(std::string(name) + ": --block must be at least 64 (the classic unroll reads 32 slots past the last lane)");
    const std::size_t blocks = reduction::ceil_div(n, 2 * block);  // < 2^31 for any n that fits on a GPU
    T* const partials = blocks == 1 ? out : scratch;
    reduce_volatile_race_kernel<<<static_cast<unsigned int>(blocks), block, block * sizeof(T), stream>>>(in, n, partials);
    CUDA_CHECK_LAUNCH();
    if (blocks > 1) step05::reduce(partials, blocks, out, scratch + blocks, block, stream);
}

// As the harness calls it: step 05's Entry with this program's names, scratch and reduce.
struct Entry : step05::Entry {
    static constexpr const char *step_name = name, *step_change = change;
    template <class K>
    static std::size_t scratch(std::size_t n, int block) { return scratch_bytes<K>(n, block); }
    template <class Op, class K>
    static void run(const K* in, std::size_t n, K* out, K* w, int b, cudaStream_t s) { reduce(in, n, out, w, b, s); }
};

}  // namespace step05_volatile_race_demo

int main(int argc, char** argv) { return reduction::run_step<step05_volatile_race_demo::Entry>(argc, argv); }
