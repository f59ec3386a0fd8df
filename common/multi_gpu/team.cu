#include "team.h"
#include "device_info.h"
#include <cstdlib>
#include <exception>
#include <unistd.h>

namespace reduction::multi_gpu {

int visible_gpus() {
    int count = 0;
    const std::string problem = reduction::cuda_device_problem(&count);
    if (!problem.empty())
        throw reduction::EnvironmentError(problem + ": the multi-GPU step needs NVIDIA GPUs and their driver");
    return count;
}

std::string nccl_version() {
    int code = 0;
    if (ncclGetVersion(&code) != ncclSuccess) return "unknown";
    return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
}

bool launched_by_mpi() {  // Open MPI's, MPICH's or a PMIx launcher
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
        if (std::getenv(name)) return true;
    return false;
}

std::unique_ptr<Team> Team::local(int asked) {
    const int count = visible_gpus();
    const int gpus = asked > 0 ? asked : count;  // where the GPU count is resolved: --gpus K, or every GPU
    if (gpus > count)
        throw reduction::UsageError("--gpus " + std::to_string(gpus) + ": this machine has " + std::to_string(count) +
                                    " CUDA device(s); ask for at most " + std::to_string(count));
    std::unique_ptr<Team> team(new Team(gpus, 0, false));
    std::vector<ncclComm_t> comms(static_cast<std::size_t>(gpus), nullptr);
    NCCL_CHECK(ncclCommInitAll(comms.data(), gpus, nullptr));  // no device list: devices 0 .. gpus - 1
    for (int d = 0; d < gpus; ++d) team->members_.push_back(Member{d, d, nullptr, comms[d]});  // owned from here
    for (Member& m : team->members_) {
        CUDA_CHECK(cudaSetDevice(m.device));
        CUDA_CHECK(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking));
    }
    return team;
}

#if defined(REDUCTION_WITH_MPI)
std::unique_ptr<Team> Team::from_mpi() {
    int rank = 0, ranks = 0, local_rank = 0, local_ranks = 0;
    MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &ranks));
    MPI_Comm host = MPI_COMM_NULL;  // the ranks that share this host's memory, hence its GPUs
    MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host));
    MPI_CHECK(MPI_Comm_rank(host, &local_rank));
    MPI_CHECK(MPI_Comm_size(host, &local_ranks));
    MPI_Comm_free(&host);
    const int count = visible_gpus();
    if (local_ranks > count) {
        char name[256] = {};
        gethostname(name, sizeof name - 1);
        throw reduction::EnvironmentError("rank " + std::to_string(rank) + ": " + std::to_string(local_ranks) +
                                          " ranks share host '" + name + "', which has " + std::to_string(count) +
                                          " CUDA device(s); start at most one rank per GPU");
    }
    std::unique_ptr<Team> team(new Team(ranks, rank, true));
    CUDA_CHECK(cudaSetDevice(local_rank));
    ncclUniqueId id{};
    if (rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
    MPI_CHECK(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD));
    ncclComm_t comm = nullptr;
    NCCL_CHECK(ncclCommInitRank(&comm, ranks, id, rank));
    team->members_.push_back(Member{rank, local_rank, nullptr, comm});
    CUDA_CHECK(cudaStreamCreateWithFlags(&team->members_.back().stream, cudaStreamNonBlocking));
    return team;
}
#endif

Team::~Team() {
    // After a failure abort, as the other GPUs may never answer; else finalize every comm in one group, then free.
    const bool failing = std::uncaught_exceptions() > 0;
    if (!failing && ncclGroupStart() == ncclSuccess) {
        for (const Member& m : members_)
            if (m.comm) ncclCommFinalize(m.comm);
        ncclGroupEnd();
    }
    for (const Member& m : members_) {
        if (m.comm) failing ? ncclCommAbort(m.comm) : ncclCommDestroy(m.comm);
        if (m.stream) {
            cudaSetDevice(m.device);
            cudaStreamDestroy(m.stream);
        }
    }
}

void Team::broadcast_from_leader([[maybe_unused]] void* bytes, [[maybe_unused]] std::size_t size) const {
#if defined(REDUCTION_WITH_MPI)
    if (mpi_) MPI_CHECK(MPI_Bcast(bytes, static_cast<int>(size), MPI_BYTE, 0, MPI_COMM_WORLD));  // a few bytes
#endif
}

void Team::max_over_ranks([[maybe_unused]] std::vector<double>& values) const {
#if defined(REDUCTION_WITH_MPI)
    if (mpi_ && !values.empty())
        MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_MAX,
                                MPI_COMM_WORLD));
#endif
}

bool Team::all_ranks(bool value) const {
    int all = value ? 1 : 0;
#if defined(REDUCTION_WITH_MPI)
    if (mpi_) MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
#endif
    return all != 0;
}

void Team::synchronize() const {
    for (const Member& m : members_) {
        CUDA_CHECK(cudaSetDevice(m.device));
        CUDA_CHECK(cudaStreamSynchronize(m.stream));
    }
}

reduction::Timing Team::time(const std::function<void()>& work, int warmup, int iters) {
    std::vector<reduction::TimedStream> streams;
    for (const Member& m : members_) streams.push_back({m.device, m.stream});
    reduction::AcrossRanks ranks;
#if defined(REDUCTION_WITH_MPI)
    if (mpi_)
        ranks = {[] { MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)); },
                 [this](std::vector<double>& values) { max_over_ranks(values); }};
#endif
    return reduction::time_on_device(work, warmup, iters, streams, nullptr, ranks);
}

}  // namespace reduction::multi_gpu
