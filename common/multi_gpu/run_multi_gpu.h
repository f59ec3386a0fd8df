// Everything a multi-GPU step's main() does, as common/run_step.h does for one GPU: the steps'
// command line plus --gpus K and --from-one-gpu; the Team (one process driving K GPUs, or one MPI
// rank per GPU: `mpirun -np K step14_multi_gpu`); the input and its reference made once on GPU 0,
// every other GPU sent its shard; one call verified on every GPU; the calls timed on every GPU at
// once (team.h); the report on rank 0. The step's reduce.cuh provides, in its namespace:
//   name, change                                   as every step (common/step_api.h)
//   const StepOps& previous_step()                 the single-GPU reduction each GPU runs
//   Shard shard_of(n, gpus, rank)                  rank's elements: .begin, .count
//   Part<T>                                        one GPU's buffers: input, receive, count, scratch, partial, total
//   T identity<T>(op)                              the partial of a GPU with an empty shard
//   send_shards_from_first<T>(team, whole, n, parts)         GPU 0's input out to the other GPUs
//   reduce_and_combine<T>(step, team, parts, block, op)      one call: partials, then the all-reduce
//   std::size_t addition_depth(step, n, gpus, block)         the longest chain of additions
#pragma once

#include "multi_gpu_verify.h"
#include "team.h"

#include "device_buffer.h"
#include "device_info.h"
#include "exit_codes.h"
#include "input.h"
#include "measure.h"
#include "options.h"
#include "step_api.h"

#include <functional>
#include <iostream>
#include <string>
#include <type_traits>
#include <vector>

namespace reduction::multi_gpu {

struct MultiFlags {
    int gpus = 0;               // --gpus K; 0: not given (every visible GPU, or one per MPI rank)
    bool from_one_gpu = false;  // --from-one-gpu: the input starts on GPU 0, sending it out is timed
};

// One run on the GPUs of `team`; returns the exit code.
using MultiGpuRun =
    std::function<int(Team& team, const Options& options, const MultiFlags& flags, int argc, const char* const* argv)>;

// Parses and checks the command line (a bad one is exit 2 on every rank, before MPI starts), then
// makes the Team and hands it to `run`. `name` and `change` are the step's.
int run_multi_gpu_main(int argc, char** argv, const char* name, const char* change, const MultiGpuRun& run);

// What rank 0 prints: the steps' text, CSV or JSON (common/report.h), with the GPUs in the stamp, a
// line of their own in the text and three more CSV columns (gpus, launch, from_one_gpu). `device`
// is GPU 0's; `largest_shard` rank 0's (the others hold as many or one fewer).
void print_multi_gpu(const Measurement& m, const DeviceInfo& device, const Options& options, const MultiFlags& flags,
                     const Team& team, std::size_t largest_shard, int argc, const char* const* argv);

// A multi-GPU step's calls for element type T; Part is its Part<T>.
template <class T, class PartType>
struct TypedCalls {
    using Part = PartType;
    T (*identity)(OpKind op);
    void (*send_shards_from_first)(const Team& team, const T* whole, std::size_t n, const std::vector<Part>& parts);
    void (*reduce_and_combine)(const StepApi& step, const Team& team, const std::vector<Part>& parts, int block, OpKind op);
};

// A multi-GPU step as the harness sees it; `typed(T{})` gives its TypedCalls for T.
template <class Typed>
struct MultiGpuStep {
    const char* name;
    const char* change;
    const StepOps& previous;
    std::size_t (*shard_count)(std::size_t n, int gpus, int rank);
    std::size_t (*addition_depth)(const StepApi& step, std::size_t n, int gpus, int block);
    Typed typed;
};

template <class Typed>
MultiGpuStep<Typed> multi_gpu_step(const char* name, const char* change, const StepOps& previous,
                                   std::size_t (*shard_count)(std::size_t, int, int),
                                   std::size_t (*addition_depth)(const StepApi&, std::size_t, int, int), Typed typed) {
    return {name, change, previous, shard_count, addition_depth, typed};
}

namespace detail {

// Per GPU, on its own device: the buffers behind its Part.
template <class T>
struct GpuBuffers {
    DeviceBuffer<T> shard;                  // its shard, sent by GPU 0 (empty on GPU 0)
    DeviceBuffer<unsigned char> scratch;    // the previous step's, zero-filled once (step_api.h)
    DeviceBuffer<T> partial{1}, total{1};
};

template <class T, class Step>
int run_typed(const Step& multi, Team& team, const Options& options, const MultiFlags& flags, int argc,
              const char* const* argv) {
    const auto calls = multi.typed(T{});
    using Part = typename decltype(calls)::Part;
    const ElementType type = element_type_of<T>();
    const StepApi& step = multi.previous.for_op(options.op);
    const int gpus = team.size(), block = options.measure.block;
    auto& members = team.members();
    const auto shard_count = [&](std::size_t n, int rank) { return multi.shard_count(n, gpus, rank); };

    std::size_t n = team.leads() ? input_count(options.input, type) : 0;  // a bad --input: exit 2 on rank 0
    team.broadcast_from_leader(&n, sizeof n);

    // Memory first, on every GPU: rank 0 holds the whole input, the others their shards.
    const DeviceInfo device = open_device(members[0].device);
    for (const Member& m : members) {
        const std::size_t count = shard_count(n, m.rank);
        CUDA_CHECK(cudaSetDevice(m.device));
        const std::size_t held = m.rank == 0 ? n : count;
        require_device_memory(held * sizeof(T) + (count ? step.scratch_bytes(type, count, block) : 0) + 2 * sizeof(T),
                              std::string(multi.name) + " GPU " + std::to_string(m.rank) + " (device " +
                                  std::to_string(m.device) + "): " + std::to_string(count) + " " + type_name(type));
    }

    // The input, once, on GPU 0, with its reference; the reference goes to every rank.
    DeviceInput<T> whole;
    if (team.leads()) {  // members[0] is rank 0
        CUDA_CHECK(cudaSetDevice(members[0].device));
        whole = upload_input<T>(options.input, options.op);
    }
    Reference reference = whole.reference;
    static_assert(std::is_trivially_copyable_v<Reference>, "the reference is sent to the other ranks as bytes");
    team.broadcast_from_leader(&reference, sizeof reference);

    std::vector<GpuBuffers<T>> buffers;
    std::vector<Part> parts;
    std::vector<const T*> totals;
    for (const Member& m : members) {
        CUDA_CHECK(cudaSetDevice(m.device));
        const std::size_t count = shard_count(n, m.rank);
        GpuBuffers<T> b;
        if (m.rank != 0) b.shard = DeviceBuffer<T>(count);
        b.scratch = DeviceBuffer<unsigned char>(count ? step.scratch_bytes(type, count, block) : 0);
        if (b.scratch.bytes() > 0) CUDA_CHECK(cudaMemset(b.scratch.get(), 0, b.scratch.bytes()));
        // an empty shard's partial: the identity, written once and never again
        const T identity = calls.identity(options.op);
        CUDA_CHECK(cudaMemcpy(b.partial.get(), &identity, sizeof(T), cudaMemcpyHostToDevice));
        Part part;
        part.input = m.rank == 0 ? whole.values.get() : b.shard.get();
        part.receive = m.rank == 0 ? nullptr : b.shard.get();
        part.count = count;
        part.scratch = reinterpret_cast<T*>(b.scratch.get());
        part.partial = b.partial.get();
        part.total = b.total.get();
        parts.push_back(part);
        totals.push_back(part.total);
        buffers.push_back(std::move(b));
    }
    const T* whole_input = whole.values.get();  // null on ranks other than 0
    calls.send_shards_from_first(team, whole_input, n, parts);  // the first upload, not timed
    team.synchronize();

    // The depth of the tolerance, the same on every rank: the largest any rank computes.
    CUDA_CHECK(cudaSetDevice(members[0].device));
    std::vector<double> depth_value{static_cast<double>(multi.addition_depth(step, n, gpus, block))};
    team.max_over_ranks(depth_value);

    const auto call = [&] {
        if (flags.from_one_gpu) calls.send_shards_from_first(team, whole_input, n, parts);
        calls.reduce_and_combine(step, team, parts, block, options.op);
    };

    // Once to verify, with every total (and every partial that will be written) set to 0xFF
    // bytes first: a GPU that never writes cannot pass with an old value.
    for (std::size_t i = 0; i < members.size(); ++i) {
        CUDA_CHECK(cudaSetDevice(members[i].device));
        CUDA_CHECK(cudaMemsetAsync(parts[i].total, 0xFF, sizeof(T), members[i].stream));
        if (parts[i].count > 0) CUDA_CHECK(cudaMemsetAsync(parts[i].partial, 0xFF, sizeof(T), members[i].stream));
    }
    call();
    team.synchronize();

    Measurement m;
    m.op = op_name(options.op);
    m.step = multi.name;
    m.change = std::to_string(gpus) + (gpus == 1 ? " GPU" : " GPUs") + (flags.from_one_gpu ? " from GPU 0" : "") +
               ": a shard each, one NCCL all-reduce";
    m.type = type;
    m.n = n;
    m.block = block;
    m.depth = static_cast<std::size_t>(depth_value[0]);
    const Verdict first = verify_totals(team, totals, reference, m.depth);
    m.time = team.time(call, options.measure.warmup, options.measure.iters);
    set_verdict(m, first, verify_totals(team, totals, reference, m.depth), reference);
    // Bandwidth of the whole: n elements over the slowest GPU's time, against K GPUs' peak.
    add_bandwidth(m, n * sizeof(T), gpus * device.peak_gbps);

    if (team.leads()) {
        print_multi_gpu(m, device, options, flags, team, shard_count(n, 0), argc, argv);
        if (!m.verdict.pass) std::cerr << multi.name << ": verification FAILED: " << m.verdict.note << "\n";
    }
    return m.verdict.pass ? exit_ok : exit_wrong_result;
}

}  // namespace detail

template <class Typed>
int run_multi_gpu(int argc, char** argv, const MultiGpuStep<Typed>& multi) {
    return run_multi_gpu_main(argc, argv, multi.name, multi.change,
                              [&](Team& team, const Options& options, const MultiFlags& flags, int run_argc,
                                  const char* const* run_argv) {
                                  return dispatch_type(options.type, [&](auto zero) {
                                      return detail::run_typed<decltype(zero)>(multi, team, options, flags, run_argc, run_argv);
                                  });
                              });
}

}  // namespace reduction::multi_gpu

// The MultiGpuStep of the multi-GPU step in namespace `ns`, e.g. REDUCTION_MULTI_GPU_STEP(step14).
#define REDUCTION_MULTI_GPU_STEP(ns)                                                                           \
    ::reduction::multi_gpu::multi_gpu_step(                                                                    \
        ns::name, ns::change, ns::previous_step(),                                                             \
        [](std::size_t n, int gpus, int rank) { return ns::shard_of(n, gpus, rank).count; }, &ns::addition_depth, \
        [](auto zero) {                                                                                        \
            using T = decltype(zero);                                                                          \
            return ::reduction::multi_gpu::TypedCalls<T, ns::Part<T>>{&ns::identity<T>, &ns::send_shards_from_first<T>, \
                                                                      &ns::reduce_and_combine<T>};             \
        })
