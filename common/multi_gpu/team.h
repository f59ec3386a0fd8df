// The GPUs of a multi-GPU run as this process sees them, the exchanges between processes and the timing
// of work on every GPU. Built two ways: K GPUs in one process, or one MPI rank per GPU.
#pragma once

#include "nccl_check.h"
#include "timer.h"
#include <memory>

namespace reduction::multi_gpu {

struct Member {  // one GPU of the run
    int rank = 0;                  // in the communicator: 0 .. size - 1
    int device = 0;                // CUDA device index on its host
    cudaStream_t stream = nullptr; // every piece of its work goes here, in order
    ncclComm_t comm = nullptr;
};

int visible_gpus();         // CUDA devices this process sees; none: EnvironmentError (exit 3)
bool launched_by_mpi();     // started by an MPI launcher: only then is MPI initialised
std::string nccl_version(); // "2.28.9", or "unknown" if NCCL will not say

class Team {
public:
    // One process driving GPUs 0 .. K - 1, K = `asked` (--gpus), or every GPU it sees for 0; more than the machine
    // has: UsageError (exit 2).
    static std::unique_ptr<Team> local(int asked);
#if defined(REDUCTION_WITH_MPI)
    // One MPI rank per GPU, a host's rank r on its GPU r; too many ranks: EnvironmentError (exit 3).
    static std::unique_ptr<Team> from_mpi();
#endif
    ~Team();
    Team(const Team&) = delete;
    Team& operator=(const Team&) = delete;
    int size() const { return size_; }               // K: GPUs in the run, over every process
    bool mpi() const { return mpi_; }
    bool leads() const { return first_rank_ == 0; }  // drives rank 0: reads the input, prints the report
    const std::vector<Member>& members() const { return members_; }
    // Exchanges of a few bytes between the processes; with one process there is nobody to talk to.
    void broadcast_from_leader(void* bytes, std::size_t size) const;
    void max_over_ranks(std::vector<double>& values) const;  // element-wise, in place
    bool all_ranks(bool value) const;                         // true if true on every rank
    void synchronize() const;                                 // waits for every member's stream
    // `work` enqueues one call on every member's stream; timed as reduction::time_on_device does.
    reduction::Timing time(const std::function<void()>& work, int warmup, int iters);

private:
    Team(int size, int first_rank, bool mpi) : size_(size), first_rank_(first_rank), mpi_(mpi) {}
    int size_, first_rank_;
    bool mpi_;
    std::vector<Member> members_;
};

}  // namespace reduction::multi_gpu
