// NCCL_CHECK and MPI_CHECK, in the style of CUDA_CHECK: a failed call throws CommError (the call, file, line and the
// library's message), which run_guarded (common/exit_codes.h) turns into one line on stderr and exit 4.
#pragma once

#include <nccl.h>
#include <stdexcept>
#include <string>

#if defined(REDUCTION_WITH_MPI)
#include <mpi.h>
#endif

namespace reduction::multi_gpu {

struct CommError : std::runtime_error {
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

#define REDUCTION_COMM_CHECK(status, text, success, fail)                                            \
    do {                                                                                             \
        const auto comm_check_status_ = (status);                                                    \
        if (comm_check_status_ != (success))                                                         \
            ::reduction::multi_gpu::fail(comm_check_status_, text, __FILE__, __LINE__);              \
    } while (0)
#define NCCL_CHECK(call) REDUCTION_COMM_CHECK((call), #call, ncclSuccess, throw_nccl_error)
// MPI calls return an error code once MPI_ERRORS_RETURN is set (run_multi_gpu.cpp does).
#define MPI_CHECK(call) REDUCTION_COMM_CHECK((call), #call, MPI_SUCCESS, throw_mpi_error)
