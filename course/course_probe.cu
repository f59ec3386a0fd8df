// The read probe behind the course's StepApi (course/README.md): every input byte read once, no sum, in step 12's
// loop or step 13's bulk copies.
#include "course_steps.h"
#include "step13_bulk_copies/reduce.cuh"  // the read probe's bulk pattern: its ring, copies and waits
#include "read_probe.cuh"
#include "block_sizes.h"
#include "cuda_check.h"
#include "exit_codes.h"
#include "launch_math.h"
#include <algorithm>
#include <array>

namespace reduction {
namespace {
constexpr unsigned int probe_loads_per_iteration = 4;
using step13::vector_bytes;  // 16: the widest load one thread can issue

// The read ceiling in step 12's loop (read_probe.cuh): one byte written only if the XOR of the words read matches
// the sentinel, which the compiler cannot know it never does.
template <unsigned int Block>
__global__ void read_probe_kernel(const unsigned char* bytes, std::size_t count, unsigned int sentinel, unsigned char* out) {
    const std::size_t head = step13::head_elements(bytes, count);  // the bytes before the first 16-byte boundary
    const std::size_t vectors = (count - head) / vector_bytes;
    const std::size_t tail_begin = head + vectors * vector_bytes;
    const uint4* body = reinterpret_cast<const uint4*>(bytes + head);
    const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * Block + threadIdx.x;
    unsigned int mixed = 0;
    if (thread < head) mixed ^= bytes[thread];
    if (thread < count - tail_begin) mixed ^= bytes[tail_begin + thread];
    const std::size_t tile = probe_loads_per_iteration * Block;
    mixed ^= probe::mix_run<probe_loads_per_iteration, Block>(body, static_cast<std::size_t>(blockIdx.x) * tile + threadIdx.x,
                                                               vectors, static_cast<std::size_t>(gridDim.x) * tile);
    if (mixed == sentinel) *out = 1;
}

// Step 13's bulk pattern alone: thread 0 waits for each chunk and asks for the one `stages` ahead; no thread
// reads shared memory. Block 0 loads the bytes before the first 16-byte boundary and after the last chunk.
__global__ void read_probe_bulk_kernel(const unsigned char* bytes, std::size_t count, unsigned int sentinel,
                                       unsigned char* out) {
    using namespace step13;
    __shared__ alignas(128) unsigned char ring[stages][chunk_bytes];
    __shared__ alignas(8) unsigned long long ready[stages];
    const std::size_t head = head_elements(bytes, count);
    const std::size_t chunks = (count - head) / chunk_bytes;
    const unsigned char* body = bytes + head;
    const std::size_t share = chunks / gridDim.x, bigger = chunks % gridDim.x;
    const std::size_t first = blockIdx.x * share + (blockIdx.x < bigger ? blockIdx.x : bigger);
    const std::size_t runs = share + (blockIdx.x < bigger ? 1 : 0);
    unsigned int mixed = 0;
    if (blockIdx.x == 0) {
        for (std::size_t i = threadIdx.x; i < head; i += blockDim.x) mixed ^= bytes[i];
        for (std::size_t i = head + chunks * chunk_bytes + threadIdx.x; i < count; i += blockDim.x) mixed ^= bytes[i];
    }
    if (threadIdx.x == 0) {
        init_ready(ready);
        for (unsigned int s = 0; s < stages && s < runs; ++s) copy_chunk(ring[s], body + (first + s) * chunk_bytes, &ready[s]);
        for (std::size_t c = 0; c < runs; ++c) {
            const unsigned int s = c % stages;
            wait_for_chunk(&ready[s], (c / stages) % 2);
            if (c + stages < runs) copy_chunk(ring[s], body + (first + c + stages) * chunk_bytes, &ready[s]);
        }
    }
    if (mixed == sentinel) *out = 1;
}

using ProbeKernel = void (*)(const unsigned char*, std::size_t, unsigned int, unsigned char*);

template <bool Bulk>
ProbeKernel probe_kernel(int block) {
    const auto loop = [](auto b) -> ProbeKernel { return read_probe_kernel<decltype(b)::value>; };
    return Bulk ? read_probe_bulk_kernel : kernel_for_block_size(block, "read_probe", loop);
}

template <bool Bulk, class T>
void read_probe(const T* in, std::size_t n, T* out, T*, int block, cudaStream_t stream) {
    if (Bulk && !step13::bulk_copies_available())
        throw EnvironmentError("read_probe_bulk: bulk copies need a GPU of sm_90 or later, and code built for it");
    const std::size_t count = n * sizeof(T);
    // the loop: enough blocks for every load; the bulk pattern: at least one, at most one per chunk
    const std::size_t wanted = Bulk ? std::max<std::size_t>(1, count / step13::chunk_bytes)
                                    : ceil_div(count, probe_loads_per_iteration * block * vector_bytes);
    static const std::array<unsigned int, 11> resident =  // SM count x resident blocks per SM, as the steps' grids
        per_block_size([](int b) { return resident_blocks(probe_kernel<Bulk>(b), b); });
    const auto grid = static_cast<unsigned int>(std::min<std::size_t>(resident[log2_exact(block)], wanted));
    probe_kernel<Bulk>(block)<<<grid, block, 0, stream>>>(reinterpret_cast<const unsigned char*>(in), count, probe::sentinel,
                                                          reinterpret_cast<unsigned char*>(out));
    CUDA_CHECK_LAUNCH();
}

// Not a reduction: no scratch, and no additions to bound.
std::size_t none(std::size_t, int) { return 0; }

template <bool Bulk>
const StepApi& probe_api(const char* name, const char* change) {
    static const StepApi api = {name, change, &none, {&read_probe<Bulk, std::int32_t>, &none},
                                {&read_probe<Bulk, float>, &none}, {&read_probe<Bulk, double>, &none}};
    return api;
}
}  // namespace

const StepApi& read_probe_step() {
    return probe_api<false>("read_probe", "16-byte loads of the whole buffer, no arithmetic: the read ceiling");
}

const StepApi& read_probe_bulk_step() {
    return probe_api<true>("read_probe_bulk",
                           "bulk copies (TMA) of each block's contiguous run into shared memory, no arithmetic");
}

bool bulk_copies_available() {
    int device = 0;
    if (cudaGetDevice(&device) == cudaSuccess) return step13::bulk_copies_available();
    cudaGetLastError();  // no GPU (compare says so later, once): no bulk copies either
    return false;
}
}  // namespace reduction
