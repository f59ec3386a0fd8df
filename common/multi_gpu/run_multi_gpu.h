// A multi-GPU step's main(), as common/run_step.h is a single-GPU step's. The step's reduce.cuh ends with an Entry
// (see step15's): its names, PartOf<T> (input, receive, count, scratch, partial, total, combine), previous() (the
// one-GPU step each GPU runs), shard_count, depth, identity_of<T>, combine_bytes_of<T> (the combine's own memory on
// each GPU), send<T> (GPU 0's input out to the others) and run<T>.
#pragma once

#include "measure.h"
#include "multi_gpu_verify.h"
#include "options.h"
#include <functional>
#include <iostream>
#include <type_traits>

namespace reduction::multi_gpu {

// Checks the command line (Tool::multi_gpu's flags; a bad one: exit 2 on every rank, before MPI starts), makes the
// Team, returns run's code.
using MultiGpuRun = std::function<int(Team&, const Options&, int argc, const char* const* argv)>;
int run_multi_gpu_main(int argc, char** argv, const char* name, const char* change, const MultiGpuRun& run);

// Rank 0's report, the steps' with the GPUs added (CSV: gpus, launch, from_one_gpu). `device`: GPU 0's;
// `shard_counts`: every rank's elements, from the step's shard_of.
void print_multi_gpu(const Measurement& m, const DeviceInfo& device, const Options& options, const Team& team,
                     const std::vector<std::size_t>& shard_counts, int argc, const char* const* argv);

// One run of the multi-GPU step whose Entry (the struct at the end of its reduce.cuh) is given, on elements of T.
template <class Entry, class T>
int run_typed(Team& team, const Options& options, int argc, const char* const* argv) {
    using Part = typename Entry::template PartOf<T>;
    const StepApi& step = Entry::previous().for_op(options.op);
    const int gpus = team.size(), block = options.measure.block;
    auto& members = team.members();
    const InputSpec spec = team.leads() ? counted_input<T>(options.input) : options.input;  // a bad --input: exit 2
    std::size_t n = team.leads() ? spec.n : 0;
    team.broadcast_from_leader(&n, sizeof n);
    // Each member's shard and the previous step's scratch for it, asked once.
    std::vector<std::size_t> counts, scratch_bytes;
    for (const Member& m : members) {
        counts.push_back(Entry::shard_count(n, gpus, m.rank));
        scratch_bytes.push_back(counts.back() ? typed<T>(step).scratch_bytes(counts.back(), block) : 0);
    }
    // Memory first, on every GPU: rank 0 holds the whole input, the others their shards.
    const DeviceInfo device = open_device(members[0].device);
    const std::size_t combine_bytes = Entry::template combine_bytes_of<T>(options.op);
    for (std::size_t i = 0; i < members.size(); ++i) {
        const Member& m = members[i];
        CUDA_CHECK(cudaSetDevice(m.device));
        require_device_memory((m.rank == 0 ? n : counts[i]) * sizeof(T) + scratch_bytes[i] + 2 * sizeof(T) + combine_bytes,
                              std::string(Entry::step_name) + " GPU " + std::to_string(m.rank) + " (device " +
                                  std::to_string(m.device) + "): " + std::to_string(counts[i]) + " " + type_name<T>());
    }
    // The input, once, on GPU 0 (members[0] of rank 0), with its reference; the reference goes to every rank.
    DeviceInput<T> whole;
    if (team.leads()) {
        CUDA_CHECK(cudaSetDevice(members[0].device));
        whole = upload_input<T>(spec, options.op);
    }
    Reference reference = whole.reference;
    static_assert(std::is_trivially_copyable_v<Reference>, "the reference is sent to the other ranks as bytes");
    team.broadcast_from_leader(&reference, sizeof reference);
    std::vector<DeviceBuffer<T>> owned;                 // on each GPU: its shard (none on GPU 0), partial and total
    std::vector<DeviceBuffer<unsigned char>> scratch;  // the previous step's and the combine's, zero-filled once
    std::vector<Part> parts(members.size());
    for (std::size_t i = 0; i < members.size(); ++i) {
        const int rank = members[i].rank;
        auto& p = parts[i];
        CUDA_CHECK(cudaSetDevice(members[i].device));
        p.count = counts[i];
        p.receive = rank == 0 ? nullptr : owned.emplace_back(p.count).get();  // where GPU 0 sends its shard
        p.input = rank == 0 ? whole.values.get() : p.receive;
        p.scratch = reinterpret_cast<T*>(scratch.emplace_back(scratch_bytes[i]).get());
        if (scratch.back().bytes() > 0) CUDA_CHECK(cudaMemset(p.scratch, 0, scratch.back().bytes()));
        p.combine = scratch.emplace_back(combine_bytes).get();
        if (combine_bytes > 0) CUDA_CHECK(cudaMemset(p.combine, 0, combine_bytes));
        p.partial = owned.emplace_back(1).get();
        p.total = owned.emplace_back(1).get();
        // An empty shard's partial: the identity, for good; every other partial and every total: 0xFF, failing if unwritten.
        const T identity = Entry::template identity_of<T>(options.op);
        if (p.count == 0) CUDA_CHECK(cudaMemcpy(p.partial, &identity, sizeof(T), cudaMemcpyHostToDevice));
        else CUDA_CHECK(cudaMemsetAsync(p.partial, 0xFF, sizeof(T), members[i].stream));
        CUDA_CHECK(cudaMemsetAsync(p.total, 0xFF, sizeof(T), members[i].stream));
    }
    for (const auto& member : members) {  // the fills and copies above ran on stream 0: the team's streams do not wait for it
        CUDA_CHECK(cudaSetDevice(member.device));
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    Entry::send(team, whole.values.get(), n, parts);  // the first upload, not timed
    team.synchronize();
    // The depth of the tolerance, the same on every rank: the largest any rank computes.
    CUDA_CHECK(cudaSetDevice(members[0].device));
    std::vector<double> depth{static_cast<double>(Entry::depth(step, n, gpus, block))};
    team.max_over_ranks(depth);
    const auto call = [&] {
        if (options.from_one_gpu) Entry::send(team, whole.values.get(), n, parts);
        Entry::run(step, team, parts, block, options.op);
    };
    call();  // once to verify
    team.synchronize();
    const std::string change = std::to_string(gpus) + (gpus == 1 ? " GPU" : " GPUs") +
                               (options.from_one_gpu ? " from GPU 0" : "") + ": a shard each, one NCCL all-reduce";
    Measurement m = row_for<T>(options.op, Entry::step_name, change, n, block, static_cast<std::size_t>(depth[0]));
    const Verdict first = verify_totals<T>(team, parts, reference, m.depth);
    m.time = team.time(call, options.measure.warmup, options.measure.iters);
    set_verdict<T>(m, first, verify_totals<T>(team, parts, reference, m.depth), reference);
    add_bandwidth(m, gpus * device.peak_gbps);  // the whole input, the slowest GPU's time, K peaks
    if (team.leads()) {
        std::vector<std::size_t> shard_counts;
        for (int rank = 0; rank < gpus; ++rank) shard_counts.push_back(Entry::shard_count(n, gpus, rank));
        print_multi_gpu(m, device, options, team, shard_counts, argc, argv);
        if (!m.verdict.pass) std::cerr << Entry::step_name << ": verification FAILED: " << m.verdict.note << "\n";
    }
    return m.verdict.pass ? exit_ok : exit_wrong_result;
}

// A multi-GPU step's main(): `return reduction::multi_gpu::run_multi_gpu<step15::Entry>(argc, argv);`.
template <class Entry>
int run_multi_gpu(int argc, char** argv) {
    const auto run = [](Team& team, const Options& options, int ac, const char* const* av) {
        return dispatch_type(options.type, [&](auto zero) { return run_typed<Entry, decltype(zero)>(team, options, ac, av); });
    };
    return run_multi_gpu_main(argc, argv, Entry::step_name, Entry::step_change, run);
}

}  // namespace reduction::multi_gpu
