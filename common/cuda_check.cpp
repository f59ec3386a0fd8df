#include "cuda_check.h"

namespace reduction {

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
    throw CudaError(code, std::string(call) + " failed at " + file + ":" + std::to_string(line) +
                              ": " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")");
}

}  // namespace reduction
