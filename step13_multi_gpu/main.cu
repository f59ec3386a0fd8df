// Runs step 13 on K GPUs, started either way:
//   mpirun -np K step13_multi_gpu --n 2^32        one process per GPU
//   step13_multi_gpu --gpus K --n 2^32             one process driving K GPUs
// It takes every option of the other steps (--help), and two of its own: --gpus K and
// --from-one-gpu. Those are taken out here; the rest goes to the course's parser.
//
// Rank 0 (GPU 0) makes the input and its reference once, with the harness; it sends every other
// GPU its shard; every GPU verifies its own copy of the total. Only rank 0 prints.
#include "reduce.cuh"

#include "device_buffer.h"
#include "device_info.h"
#include "exit_codes.h"
#include "input.h"
#include "measure.h"
#include "options.h"
#include "report.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <iostream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace reduction;
using step13::Member;
using step13::Team;

struct MultiFlags {
    int gpus = 0;                   // --gpus K; 0: not given (every visible GPU, or one per MPI rank)
    bool from_one_gpu = false;      // --from-one-gpu: the input starts on GPU 0, sending it out is timed
    std::vector<const char*> rest;  // argv without the two, for parse_options
};

MultiFlags take_multi_gpu_flags(int argc, char** argv) {
    MultiFlags flags;
    flags.rest.push_back(argv[0]);
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--from-one-gpu") {
            flags.from_one_gpu = true;
        } else if (flag == "--gpus") {
            if (i + 1 >= argc) throw UsageError("--gpus needs a value: the number of GPUs; see --help");
            const std::string text = argv[++i];
            const bool digits = !text.empty() && text.size() <= 4 && text.find_first_not_of("0123456789") == std::string::npos;
            flags.gpus = digits ? std::atoi(text.c_str()) : 0;
            if (flags.gpus < 1)
                throw UsageError("--gpus: '" + text + "' is not accepted; expected a number of GPUs from 1 to those present");
        } else {
            flags.rest.push_back(argv[i]);
        }
    }
    return flags;
}

std::string usage_text(const char* program) {
    return std::string(step13::name) + ": " + step13::change + "\n" + usage(program, Tool::step) +
           "\nmulti-GPU options:\n"
           "  --gpus K         one process drives GPUs 0 .. K-1 (default: every GPU it sees); not under mpirun\n"
           "  --from-one-gpu   the input starts on GPU 0; sending the shards to the other GPUs is timed too\n\n"
           "one process per GPU:  mpirun -np K [-x NCCL_NVLS_ENABLE] " + program + " [options]\n";
}

// What the command line asks that this program cannot do: the same answer on every rank, given
// before MPI starts, so a bad command line is exit 2 everywhere with no abort.
void check_request(const MultiFlags& flags, const Options& options) {
    if (step13::launched_by_mpi() && flags.gpus > 0)
        throw UsageError("--gpus " + std::to_string(flags.gpus) +
                         " drives K GPUs from one process, but this process was started by mpirun, which runs one "
                         "process per GPU: drop --gpus, or run without mpirun");
#if !defined(REDUCTION_WITH_MPI)
    if (step13::launched_by_mpi())
        throw UsageError("this build of step13_multi_gpu has no MPI (CMake did not find it): run it without mpirun, "
                         "with --gpus K");
#endif
    if (options.device != 0)
        throw UsageError("--device: step13_multi_gpu uses GPUs 0 .. K-1 (--gpus K), or one per MPI rank");
    if (options.flush_l2)
        throw UsageError("--flush-l2 is not supported by step13_multi_gpu: its timing is of warm caches on every GPU");
}

// NCCL's version as "2.28.9".
std::string nccl_version() {
    int code = 0;
    if (ncclGetVersion(&code) != ncclSuccess) return "unknown";
    return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
}

std::string multi_gpu_timing_text(const Options& options) {
    return "per call: median and min of " + std::to_string(options.iters) +
           " calls queued behind a gate kernel on every GPU, one event pair per GPU each, the slowest GPU's time; batch: "
           "chunks of at most 64 calls behind the gates, the slowest GPU's chunk time / count; idle: every GPU (and rank) "
           "synchronised before each call; " + std::to_string(options.warmup) + " warm-up calls first; L2 warm";
}

Stamp multi_gpu_stamp(const DeviceInfo& device, const Options& options, const Team& team, bool from_one_gpu, int argc,
                      const char* const* argv) {
    Stamp stamp = make_stamp(device, options, argc, argv);
    for (auto& [key, value] : stamp)
        if (key == "timing") value = multi_gpu_timing_text(options);
    const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
    stamp.push_back({"gpus", std::to_string(team.size())});
    stamp.push_back({"launch", team.mpi() ? "one MPI rank per GPU" : "one process driving every GPU"});
    stamp.push_back({"from_one_gpu", from_one_gpu ? "yes" : "no"});
    stamp.push_back({"nccl", nccl_version()});
    stamp.push_back({"nccl_nvls_enable", nvls ? nvls : "unset"});
    return stamp;
}

// Per GPU, on its own device: the buffers behind its Part.
template <class T>
struct GpuBuffers {
    DeviceBuffer<T> shard;                  // its shard, sent by GPU 0 (empty on GPU 0)
    DeviceBuffer<unsigned char> scratch;    // the previous step's, zero-filled once (step_api.h)
    DeviceBuffer<T> partial{1}, total{1};
};

// Reads every local GPU's total and verifies each: every GPU must hold the right total, and the
// same bits as rank 0's. The verdict of the first wrong one, or rank 0's.
template <class T>
Verdict verify_totals(const Team& team, const std::vector<step13::Part<T>>& parts, const Reference& reference,
                      std::size_t depth) {
    const auto& members = team.members();
    std::vector<T> totals(members.size());
    for (std::size_t i = 0; i < members.size(); ++i) {
        CUDA_CHECK(cudaSetDevice(members[i].device));
        CUDA_CHECK(cudaMemcpyAsync(&totals[i], parts[i].total, sizeof(T), cudaMemcpyDeviceToHost, members[i].stream));
        CUDA_CHECK(cudaStreamSynchronize(members[i].stream));
    }
    T first = totals[0];
    team.broadcast_from_leader(&first, sizeof first);  // rank 0's total, on every rank
    Verdict verdict = verify(first, reference, depth);
    for (std::size_t i = 0; i < members.size(); ++i) {
        Verdict own = verify(totals[i], reference, depth);
        if (own.pass && std::memcmp(&totals[i], &first, sizeof(T)) != 0) {
            own.pass = false;
            own.note = "GPU " + std::to_string(members[i].rank) + " holds " + own.result + ", GPU 0 " + verdict.result +
                       ": the all-reduce must leave the same total on every GPU";
        } else if (!own.pass) {
            own.note = "on GPU " + std::to_string(members[i].rank) + ": " + own.note;
        }
        if (!own.pass && verdict.pass) verdict = own;
    }
    const bool everywhere = team.all_ranks(verdict.pass);
    if (verdict.pass && !everywhere) {
        verdict.pass = false;
        verdict.note = "another rank's GPU holds a wrong total (its rank printed why)";
    }
    if (!verdict.pass && team.mpi() && !team.leads()) std::cerr << "rank " << team.members()[0].rank << ": " << verdict.note << "\n";
    return verdict;
}

template <class T>
int run_typed(Team& team, const Options& options, const MultiFlags& flags, int argc, const char* const* argv) {
    const ElementType type = element_type_of<T>();
    const StepApi& step = step13::previous_step().for_op(options.op);
    const int gpus = team.size();
    auto& members = team.members();

    std::size_t n = team.leads() ? input_count(options, type) : 0;  // a bad --input: exit 2 on rank 0
    team.broadcast_from_leader(&n, sizeof n);

    // Memory first, on every GPU: rank 0 holds the whole input, the others their shards.
    const DeviceInfo device = open_device(members[0].device);
    for (const Member& m : members) {
        const std::size_t count = step13::shard_of(n, gpus, m.rank).count;
        CUDA_CHECK(cudaSetDevice(m.device));
        const std::size_t held = m.rank == 0 ? n : count;
        require_device_memory(held * sizeof(T) + (count ? step.scratch_bytes(type, count, options.block) : 0) + 2 * sizeof(T),
                              std::string(step13::name) + " GPU " + std::to_string(m.rank) + " (device " +
                                  std::to_string(m.device) + "): " + std::to_string(count) + " " + type_name(type));
    }

    // The input, once, on GPU 0, with its reference; the reference goes to every rank.
    DeviceInput<T> whole;
    Reference reference;
    for (const Member& m : members) {
        if (m.rank != 0) continue;
        CUDA_CHECK(cudaSetDevice(m.device));
        whole = upload_input<T>(options);
        reference = whole.reference;
    }
    static_assert(std::is_trivially_copyable_v<Reference>, "the reference is sent to the other ranks as bytes");
    team.broadcast_from_leader(&reference, sizeof reference);

    std::vector<GpuBuffers<T>> buffers;
    std::vector<step13::Part<T>> parts;
    for (const Member& m : members) {
        CUDA_CHECK(cudaSetDevice(m.device));
        const std::size_t count = step13::shard_of(n, gpus, m.rank).count;
        GpuBuffers<T> b;
        if (m.rank != 0) b.shard = DeviceBuffer<T>(count);
        b.scratch = DeviceBuffer<unsigned char>(count ? step.scratch_bytes(type, count, options.block) : 0);
        if (b.scratch.bytes() > 0) CUDA_CHECK(cudaMemset(b.scratch.get(), 0, b.scratch.bytes()));
        // an empty shard's partial: the identity, written once and never again
        const T identity = step13::identity<T>(options.op);
        CUDA_CHECK(cudaMemcpy(b.partial.get(), &identity, sizeof(T), cudaMemcpyHostToDevice));
        step13::Part<T> part;
        part.input = m.rank == 0 ? whole.values.get() : b.shard.get();
        part.receive = m.rank == 0 ? nullptr : b.shard.get();
        part.count = count;
        part.scratch = reinterpret_cast<T*>(b.scratch.get());
        part.partial = b.partial.get();
        part.total = b.total.get();
        parts.push_back(part);
        buffers.push_back(std::move(b));
    }
    const T* whole_input = whole.values.get();  // null on ranks other than 0
    step13::send_shards_from_first(team, whole_input, n, parts);  // the first upload, not timed
    team.synchronize();

    // The depth of the tolerance, the same on every rank: the largest any rank computes.
    CUDA_CHECK(cudaSetDevice(members[0].device));
    std::vector<double> depth_value{static_cast<double>(step13::addition_depth(step, n, gpus, options.block))};
    team.max_over_ranks(depth_value);
    const auto depth = static_cast<std::size_t>(depth_value[0]);

    const auto call = [&] {
        if (flags.from_one_gpu) step13::send_shards_from_first(team, whole_input, n, parts);
        step13::reduce_and_combine(step, team, parts, options.block, options.op);
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
    const Verdict first = verify_totals(team, parts, reference, depth);

    Measurement m;
    m.op = op_name(options.op);
    m.step = step13::name;
    m.change = std::to_string(gpus) + (gpus == 1 ? " GPU" : " GPUs") + (flags.from_one_gpu ? " from GPU 0" : "") +
               ": a shard each, one NCCL all-reduce";
    m.type = type;
    m.n = n;
    m.block = options.block;
    m.depth = depth;
    m.time = team.time(call, options.warmup, options.iters);
    const Verdict after_timing = verify_totals(team, parts, reference, depth);
    m.verdict = first.pass ? after_timing : first;
    if (first.pass && !after_timing.pass) m.verdict.note = "right on the first run, wrong after timing: " + after_timing.note;
    const bool float_sum = type != ElementType::int32 && options.op == OpKind::sum &&
                           reference.first_non_finite == Reference::no_index;
    if (m.verdict.pass && float_sum && gamma_bound(type, depth) >= 1.0) {
        m.verified = false;
        m.verdict.note = "timed, not verified: for an addition order this deep the error bound allows any result";
    }
    // Bandwidth of the whole: n elements over the slowest GPU's time, against K GPUs' peak.
    m.peak_gbps = gpus * device.peak_gbps;
    m.gbps = bandwidth_gbps(n * sizeof(T), m.time.per_call.median_ms);
    m.percent_of_peak = 100.0 * m.gbps / m.peak_gbps;
    if (std::isfinite(m.time.batch_ms)) m.batch_gbps = bandwidth_gbps(n * sizeof(T), m.time.batch_ms);

    if (team.leads()) {
        const Stamp stamp = multi_gpu_stamp(device, options, team, flags.from_one_gpu, argc, argv);
        switch (options.format) {
            case OutputFormat::text: {
                DeviceInfo all = device;  // the K GPUs seen as one: their peaks add up
                all.name = std::to_string(gpus) + " x " + device.name;
                all.peak_gbps = m.peak_gbps;
                print_text(std::cout, m, all, input_description(options));
                const step13::Shard largest = step13::shard_of(n, gpus, 0);
                std::cout << "  gpus       " << gpus << (team.mpi() ? " MPI ranks, one GPU each" : " GPUs driven by one process")
                          << "; shards of " << largest.count << (n % gpus ? " or " + std::to_string(largest.count - 1) : std::string())
                          << " elements; combine: one ncclAllReduce of one element (NCCL " << nccl_version() << ")"
                          << (flags.from_one_gpu ? "; the input starts on GPU 0 and its shards are sent out in every call" : "")
                          << "\n";
                if (gpus == 1)
                    std::cout << "  note       one GPU only: K = 1, the all-reduce hands the partial back; "
                                 "run with --gpus K or mpirun -np K for more\n";
                break;
            }
            case OutputFormat::csv:
                std::cout << stamp_lines(stamp) << csv_header() << ",gpus,launch,from_one_gpu\n"
                          << csv_row(m) << "," << gpus << "," << team.launch_name() << "," << (flags.from_one_gpu ? 1 : 0) << "\n";
                break;
            case OutputFormat::json: std::cout << json_document(stamp, {m}) << "\n"; break;
        }
        if (!m.verdict.pass) std::cerr << step13::name << ": verification FAILED: " << m.verdict.note << "\n";
    }
    return m.verdict.pass ? exit_ok : exit_wrong_result;
}

int run(Team& team, const Options& options, const MultiFlags& flags, int argc, const char* const* argv) {
    return dispatch_type(options.type, [&](auto zero) {
        return run_typed<decltype(zero)>(team, options, flags, argc, argv);
    });
}

}  // namespace

int main(int argc, char** argv) {
    MultiFlags flags;
    Options options;
    bool proceed = false;
    const int checked = run_guarded([&] {
        flags = take_multi_gpu_flags(argc, argv);
        options = parse_options(static_cast<int>(flags.rest.size()), flags.rest.data(), Tool::step);
        if (options.help) {
            std::cout << usage_text(argv[0]);
            return static_cast<int>(exit_ok);
        }
        check_request(flags, options);
        if (options.input_path.empty() && !options.seed) options.seed = fresh_seed();  // printed, for replay
        proceed = true;
        return static_cast<int>(exit_ok);
    });
    if (!proceed) return checked;

#if defined(REDUCTION_WITH_MPI)
    if (step13::launched_by_mpi()) {
        step13::MpiSession mpi(&argc, &argv);
        const int code = run_guarded([&] {
            const std::unique_ptr<Team> team = Team::from_mpi();
            return run(*team, options, flags, argc, argv);
        });
        // A wrong result is known to every rank (they agree on the verdict); anything else may be
        // one rank's alone, and the others would wait for it: end them all.
        if (code != exit_ok && code != exit_wrong_result) mpi.fail(code);
        return code;
    }
#endif
    return run_guarded([&] {
        const int gpus = flags.gpus > 0 ? flags.gpus : step13::visible_gpus();
        const std::unique_ptr<Team> team = Team::local(gpus);
        return run(*team, options, flags, argc, argv);
    });
}
