// Step 15 — K GPUs: each sums its shard with the previous step's kernel, one NCCL all-reduce of
// the K partials gives every GPU the total.
//
// What changed since the previous step: nothing inside a GPU. The input is cut into K shards, one
// per GPU (n / K elements each, the first n % K one more); every GPU reduces its shard to one
// partial with the previous step's reduction, on its own stream; then one ncclAllReduce of one
// element adds the K partials and leaves the sum on every GPU. A GPU whose shard is empty (n < K)
// launches nothing: its partial holds the operator's identity, which changes no total. A float sum
// must stay exact across GPUs too: there each partial is the previous step's integer digits, not
// yet rounded; the all-reduce adds them as integers and every GPU rounds the total once, so the
// bits are the same for every K.
//
// Why it should help: each GPU reads only its 1/K of the bytes, at its own memory bandwidth, and
// the K GPUs read at once: K times the bandwidth of one. The combine moves one value per GPU: it
// costs the latency of one collective (microseconds; the lesson measures it), whatever n is.
//
// What to expect: at large n (2^28 and beyond) close to K times the previous step's speed; at
// small n slower than one GPU, since the combine's microseconds are more than the whole reduction on
// one GPU takes (a few microseconds at 2^20). With --from-one-gpu, where the input starts on GPU 0 and must
// first be sent to the others, no speed-up at all: sending a byte over NVLink is slower than
// reading it from GPU 0's own memory.
//
// Which GPU runs what is the business of team.h (one process driving K GPUs, or one MPI rank per
// GPU); this file is the same for both.
#pragma once

// The one-GPU step every GPU runs on its shard: this step's previous in course/steps.csv, whose
// header and namespace the build passes (cmake/steps.cmake); step 14's when built without them.
#ifndef REDUCTION_PREVIOUS_STEP_HEADER
#define REDUCTION_PREVIOUS_STEP_HEADER "step14_exact_sum/reduce.cuh"
#define REDUCTION_PREVIOUS_STEP_NS step14
#endif
#include REDUCTION_PREVIOUS_STEP_HEADER

#include "nccl_check.h"
#include "operators.h"
#include "step_api.h"
#include "team.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

// The single-GPU reduction every GPU runs on its shard: the course's previous step.
namespace previous = REDUCTION_PREVIOUS_STEP_NS;

namespace step15 {

using reduction::multi_gpu::Member;  // the harness (common/multi_gpu/team.h): one GPU of the team
using reduction::multi_gpu::Team;    // every GPU of this run, its communicator and streams

inline constexpr const char* name = "step15_multi_gpu";
inline constexpr const char* change = "K GPUs: a shard each, one NCCL all-reduce of the partials";

// Sum, max and min of the previous step, as the harness sees a step (common/step_api.h). A template, so
// that only a program that calls it compiles the previous step's kernels (tests/gpu/step15_shards.cu
// includes this file for shard_of alone).
template <class Previous = previous::Entry>
const reduction::StepOps& previous_step() {
    static const reduction::StepOps ops = reduction::step_ops<Previous>();
    return ops;
}

// Elements [begin, begin + count) of n go to rank `rank` of `gpus`: n / gpus each, the first
// n % gpus ranks one more. For n < gpus the last gpus - n ranks get none.
struct Shard {
    std::size_t begin = 0;
    std::size_t count = 0;
};
inline Shard shard_of(std::size_t n, int gpus, int rank) {
    const std::size_t k = static_cast<std::size_t>(gpus), r = static_cast<std::size_t>(rank);
    const std::size_t base = n / k, extra = n % k;
    return Shard{r * base + std::min(r, extra), base + (r < extra ? 1 : 0)};
}

// The partials' type as NCCL adds them: the type the kernels computed them in (common/step_api.h's
// kernel_type_t: an int32 sum runs on uint32, whose addition wraps modulo 2^32 by definition; max
// and min compare, so they keep the signed type).
template <class K>
constexpr ncclDataType_t nccl_type_of() {
    if constexpr (std::is_same_v<K, std::uint32_t>) return ncclUint32;
    else if constexpr (std::is_same_v<K, std::int32_t>) return ncclInt32;
    else if constexpr (std::is_same_v<K, float>) return ncclFloat32;
    else return ncclFloat64;
}
template <class T>
ncclDataType_t nccl_type(reduction::OpKind op) {
    using reduction::kernel_type_t;  // max and min share one kernel type: T's
    return op == reduction::OpKind::sum ? nccl_type_of<kernel_type_t<T, reduction::Sum>>()
                                        : nccl_type_of<kernel_type_t<T, reduction::Max>>();
}

inline ncclRedOp_t nccl_op(reduction::OpKind op) {
    switch (op) {
        case reduction::OpKind::max: return ncclMax;
        case reduction::OpKind::min: return ncclMin;
        case reduction::OpKind::sum: break;
    }
    return ncclSum;
}

// The operator's identity: the partial of a GPU with an empty shard.
template <class T>
T identity(reduction::OpKind op) {
    switch (op) {
        case reduction::OpKind::max: return reduction::Max::identity<T>();
        case reduction::OpKind::min: return reduction::Min::identity<T>();
        case reduction::OpKind::sum: break;
    }
    return reduction::Sum::identity<T>();
}

// A float sum's partial: the previous step's exact sum of the shard, unrounded (its integer digits
// and counts of special inputs, int64 words that add as integers).
template <class T>
using ExactPartial = previous::ExactPartial<T>;

// The combine's own memory on each GPU, zero-filled once: for a float sum, this GPU's exact partial
// and the all-reduced one (two separate buffers: an empty shard's partial must stay zero).
template <class T>
std::size_t combine_bytes(reduction::OpKind op) {
    if constexpr (std::is_floating_point_v<T>) return op == reduction::OpKind::sum ? 2 * sizeof(ExactPartial<T>) : 0;
    else return 0;
}

// What one GPU works on, on its own device: its shard, the previous step's scratch, its partial
// and its copy of the total, and the combine's memory. `receive` is where its shard arrives from
// GPU 0 (null on GPU 0, whose shard is the head of the whole input).
template <class T>
struct Part {
    const T* input = nullptr;
    T* receive = nullptr;
    std::size_t count = 0;
    T* scratch = nullptr;
    T* partial = nullptr;
    T* total = nullptr;
    unsigned char* combine = nullptr;  // combine_bytes<T>(op)
};

// A float sum, exact on any K: every GPU's partial is its shard's digits, the all-reduce adds them as
// int64 words, and every GPU rounds the sum once (the previous step's rounding, the CPU's code).
template <class T>
void reduce_and_combine_exact(const Team& team, const std::vector<Part<T>>& parts, int block) {
    const std::vector<Member>& members = team.members();
    constexpr std::size_t words = sizeof(ExactPartial<T>) / sizeof(std::int64_t);
    static_assert(sizeof(ExactPartial<T>) == words * sizeof(std::int64_t), "int64 words only: added word by word");
    const auto own = [&](std::size_t i) { return reinterpret_cast<ExactPartial<T>*>(parts[i].combine); };
    for (std::size_t i = 0; i < members.size(); ++i) {
        if (parts[i].count == 0) continue;  // an empty shard: its partial stays zero, no digit and no special
        CUDA_CHECK(cudaSetDevice(members[i].device));
        previous::reduce_to_partial(parts[i].input, parts[i].count, own(i), parts[i].scratch, block, members[i].stream);
    }
    NCCL_CHECK(ncclGroupStart());
    for (std::size_t i = 0; i < members.size(); ++i)
        NCCL_CHECK(ncclAllReduce(own(i), own(i) + 1, words, ncclInt64, ncclSum, members[i].comm, members[i].stream));
    NCCL_CHECK(ncclGroupEnd());
    for (std::size_t i = 0; i < members.size(); ++i) {
        CUDA_CHECK(cudaSetDevice(members[i].device));
        previous::round_partial(own(i) + 1, parts[i].total, members[i].stream);
    }
}

// solution-begin: a shard per GPU, then one all-reduce of one element
// One call: every GPU reduces its shard to its partial, then the partials are combined on all GPUs.
template <class T>
void reduce_and_combine(const reduction::StepApi& step, const Team& team, const std::vector<Part<T>>& parts, int block,
                        reduction::OpKind op) {
    if constexpr (std::is_floating_point_v<T>)
        if (op == reduction::OpKind::sum) return reduce_and_combine_exact(team, parts, block);
    const std::vector<Member>& members = team.members();
    for (std::size_t i = 0; i < members.size(); ++i) {
        if (parts[i].count == 0) continue;  // an empty shard: the partial keeps the identity
        CUDA_CHECK(cudaSetDevice(members[i].device));
        reduction::typed<T>(step).reduce(parts[i].input, parts[i].count, parts[i].partial, parts[i].scratch, block,
                                         members[i].stream);
    }
    // Queued behind each GPU's kernel on the same stream, so it reads the finished partial. One
    // thread may drive several communicators: a group makes the K calls one collective, not K
    // calls each waiting for the others.
    NCCL_CHECK(ncclGroupStart());
    for (std::size_t i = 0; i < members.size(); ++i)
        NCCL_CHECK(ncclAllReduce(parts[i].partial, parts[i].total, 1, nccl_type<T>(op), nccl_op(op), members[i].comm,
                                 members[i].stream));
    NCCL_CHECK(ncclGroupEnd());
}
// solution-end

// --from-one-gpu, and the first upload: GPU 0 sends every other GPU its shard of `whole` (held by
// rank 0 only). Point-to-point NCCL, so that one process or K processes take the same path; over
// NVLink it is a peer-to-peer copy. Each receive is queued on its GPU's stream, before that GPU's
// reduction of the same call.
template <class T>
void send_shards_from_first(const Team& team, const T* whole, std::size_t n, const std::vector<Part<T>>& parts) {
    const int gpus = team.size();
    if (gpus == 1) return;
    const std::vector<Member>& members = team.members();
    NCCL_CHECK(ncclGroupStart());
    for (std::size_t i = 0; i < members.size(); ++i) {
        const Member& m = members[i];
        if (m.rank == 0) {
            for (int r = 1; r < gpus; ++r) {
                const Shard s = shard_of(n, gpus, r);
                if (s.count > 0)
                    NCCL_CHECK(ncclSend(whole + s.begin, s.count * sizeof(T), ncclUint8, r, m.comm, m.stream));
            }
        } else if (parts[i].count > 0) {
            NCCL_CHECK(ncclRecv(parts[i].receive, parts[i].count * sizeof(T), ncclUint8, 0, m.comm, m.stream));
        }
    }
    NCCL_CHECK(ncclGroupEnd());
}

// ---------------------------------------------------------------------------------------------
// Bookkeeping

// The longest chain of additions: the previous step's within the largest shard (asked of the
// current device), then the combine. NCCL may add the K partials along a ring (or, inside one
// node, a chain), one after another: K - 1 additions, never more. A tree would need only
// ceil(log2 K), but NCCL picks its algorithm at run time and we cannot see which, so the bound
// takes the longer one. (A float sum is exact, but the harness's check of it is this tolerance:
// its bits are tested against the CPU's exact sum in tests/gpu/step15_cases.cu.)
inline std::size_t addition_depth(const reduction::StepApi& step, std::size_t n, int gpus, int block) {
    std::size_t local = 0;
    for (int r : {0, gpus - 1}) {  // the only two shard sizes: the first's and the last's
        const std::size_t count = shard_of(n, gpus, r).count;
        if (count > 0) local = std::max(local, step.addition_depth(count, block));
    }
    return local + static_cast<std::size_t>(gpus - 1);
}

// This step as the harness calls it (common/multi_gpu/run_multi_gpu.h): its names, its shards, the previous
// step it runs on each, and its functions for the element type T.
struct Entry {
    static constexpr const char* step_name = name;
    static constexpr const char* step_change = change;
    template <class T>
    using PartOf = Part<T>;
    template <class Previous = previous::Entry>  // a template for the reason previous_step is
    static const reduction::StepOps& previous() { return previous_step<Previous>(); }
    static std::size_t shard_count(std::size_t n, int gpus, int rank) { return shard_of(n, gpus, rank).count; }
    static std::size_t depth(const reduction::StepApi& step, std::size_t n, int gpus, int block) {
        return addition_depth(step, n, gpus, block);
    }
    template <class T>
    static T identity_of(reduction::OpKind op) { return identity<T>(op); }
    template <class T>
    static std::size_t combine_bytes_of(reduction::OpKind op) { return combine_bytes<T>(op); }
    template <class T>
    static void send(const Team& team, const T* whole, std::size_t n, const std::vector<Part<T>>& parts) {
        send_shards_from_first(team, whole, n, parts);
    }
    template <class T>
    static void run(const reduction::StepApi& step, const Team& team, const std::vector<Part<T>>& parts, int block,
                    reduction::OpKind op) {
        reduce_and_combine(step, team, parts, block, op);
    }
};

}  // namespace step15
