// NCCL_CHECK and MPI_CHECK, in the style of CUDA_CHECK: a failed call throws a runtime_error (the call, file, line and
// the library's message), which run_guarded (common/exit_codes.h) turns into one line on stderr and exit 4.
#pragma once

#include <nccl.h>
#include <stdexcept>
#include <string>
#if defined(REDUCTION_WITH_MPI)
#include <mpi.h>
#endif

namespace reduction::multi_gpu {

inline void nccl_check(ncclResult_t code, const char* call, const char* file, int line) {
    if (code == ncclSuccess) return;
    const char* detail = ncclGetLastError(nullptr);  // this thread's last NCCL message, often more exact
    throw std::runtime_error(std::string("NCCL: ") + call + " failed at " + file + ":" + std::to_string(line) + ": " +
                             ncclGetErrorString(code) + (detail && *detail ? std::string(" (") + detail + ")" : ""));
}
#define NCCL_CHECK(call) ::reduction::multi_gpu::nccl_check((call), #call, __FILE__, __LINE__)

#if defined(REDUCTION_WITH_MPI)
// MPI calls return an error code once MPI_ERRORS_RETURN is set (run_multi_gpu.cpp does).
inline void mpi_check(int code, const char* call, const char* file, int line) {
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw std::runtime_error(std::string("MPI: ") + call + " failed at " + file + ":" + std::to_string(line) + ": " + text);
}
#define MPI_CHECK(call) ::reduction::multi_gpu::mpi_check((call), #call, __FILE__, __LINE__)
#endif

}  // namespace reduction::multi_gpu
