// The GPUs of one multi-GPU run, as this process sees them: the ranks it drives, their devices,
// streams and NCCL communicators, the few exchanges between processes, and the timing of work that
// spans every GPU. Built two ways (one process driving K GPUs, or one MPI process per GPU); used
// one way, so that the reduction has one code path whichever way it was started.
//
// Timing is common/timer.h's, on every GPU's stream at once: the time of a repetition is the
// slowest GPU's, over every process too, since the total is on every GPU only when the last one has it.
#pragma once

#include "nccl_check.h"
#include "timer.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace reduction::multi_gpu {

// One GPU of the run.
struct Member {
    int rank = 0;                  // in the communicator: 0 .. size - 1
    int device = 0;                // CUDA device index on its host
    cudaStream_t stream = nullptr; // every piece of its work goes here, in order
    ncclComm_t comm = nullptr;
};

// CUDA devices this process can see; EnvironmentError (exit 3) when there are none.
int visible_gpus();

// True when this process was started by an MPI launcher (Open MPI's, MPICH's or a PMIx one):
// only then is MPI initialised, so that the single-process form never needs a launcher.
bool launched_by_mpi();

// NCCL's version as "2.28.9", for the stamps above the CSVs; "unknown" if NCCL will not say.
std::string nccl_version();

class Team {
public:
    // One process driving GPUs 0 .. gpus - 1 through ncclCommInitAll. More GPUs than the machine
    // has: UsageError (exit 2).
    static std::unique_ptr<Team> local(int gpus);
#if defined(REDUCTION_WITH_MPI)
    // One process per GPU (MPI initialised): rank r of the host's L ranks takes local GPU r, the
    // communicator from a unique id that rank 0 broadcasts. More ranks on a host than it has GPUs:
    // EnvironmentError (exit 3).
    static std::unique_ptr<Team> from_mpi();
#endif
    ~Team();
    Team(const Team&) = delete;
    Team& operator=(const Team&) = delete;

    int size() const { return size_; }         // K: GPUs in the run, over every process
    bool mpi() const { return mpi_; }
    bool leads() const { return first_rank_ == 0; }  // drives rank 0: reads the input, prints the report
    std::vector<Member>& members() { return members_; }
    const std::vector<Member>& members() const { return members_; }
    std::string launch_name() const { return mpi_ ? "mpi" : "process"; }  // the CSV's launch column

    // Exchanges between the processes; with one process there is nobody to talk to.
    void broadcast_from_leader(void* bytes, std::size_t size) const;
    void max_over_ranks(std::vector<double>& values) const;  // element-wise, in place
    bool all_ranks(bool value) const;                         // true if true on every rank
    void barrier() const;

    void synchronize() const;  // waits for every member's stream

    // `work` enqueues one call on every member's stream; timed as reduction::time_on_device does.
    reduction::Timing time(const std::function<void()>& work, int warmup, int iters);

private:
    Team() = default;
    int size_ = 0;
    int first_rank_ = 0;
    bool mpi_ = false;
    std::vector<Member> members_;
};

#if defined(REDUCTION_WITH_MPI)
// MPI for the lifetime of main(), when launched by mpirun: MPI_Init, errors returned instead of
// fatal (MPI_CHECK reports them), MPI_Finalize on the way out. fail(code) is for a rank that cannot
// go on: MPI_Abort ends every rank, so none waits for it forever.
class MpiSession {
public:
    MpiSession(int* argc, char*** argv);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;
    [[noreturn]] void fail(int exit_code) const;
};
#endif

}  // namespace reduction::multi_gpu
