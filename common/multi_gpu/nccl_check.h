// Error checking for NCCL and MPI calls, in the style of CUDA_CHECK (common/cuda_check.h).
//
// A failed call throws CommError with the call's text, file, line and the library's own message
// (ncclGetErrorString, MPI_Error_string). run_guarded() (common/exit_codes.h) turns it into one
// line on stderr and exit 4, like a failed CUDA call; an MPI program then calls MPI_Abort so that
// no other rank waits for this one (main.cu).
#pragma once

#include <nccl.h>

#include <stdexcept>
#include <string>

#if defined(REDUCTION_WITH_MPI)
#include <mpi.h>
#endif

namespace reduction::multi_gpu {

// A failed NCCL or MPI call: exit 4 through run_guarded's std::exception branch.
class CommError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

[[noreturn]] inline void throw_nccl_error(ncclResult_t code, const char* call, const char* file, int line) {
    const char* detail = ncclGetLastError(nullptr);  // this thread's last NCCL message, often more exact
    throw CommError(std::string("NCCL: ") + call + " failed at " + file + ":" + std::to_string(line) + ": " +
                    ncclGetErrorString(code) + (detail && *detail ? std::string(" (") + detail + ")" : std::string()));
}

#if defined(REDUCTION_WITH_MPI)
[[noreturn]] inline void throw_mpi_error(int code, const char* call, const char* file, int line) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw CommError(std::string("MPI: ") + call + " failed at " + file + ":" + std::to_string(line) + ": " + text);
}
#endif

}  // namespace reduction::multi_gpu

#define NCCL_CHECK(call)                                                                \
    do {                                                                                \
        const ncclResult_t nccl_check_status_ = (call);                                 \
        if (nccl_check_status_ != ncclSuccess)                                          \
            ::reduction::multi_gpu::throw_nccl_error(nccl_check_status_, #call, __FILE__, __LINE__);  \
    } while (0)

// MPI calls return MPI_SUCCESS or an error code once MPI_ERRORS_RETURN is set (team.cu does).
#define MPI_CHECK(call)                                                                 \
    do {                                                                                \
        const int mpi_check_status_ = (call);                                           \
        if (mpi_check_status_ != MPI_SUCCESS)                                           \
            ::reduction::multi_gpu::throw_mpi_error(mpi_check_status_, #call, __FILE__, __LINE__);    \
    } while (0)
