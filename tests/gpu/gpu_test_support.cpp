#include "gpu_test_support.h"

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <thread>

namespace reduction::test {
namespace {
std::string& reason_storage() {
    static std::string reason;
    return reason;
}
}  // namespace

std::string usable_gpu_problem() { return cuda_device_problem(); }  // names a missing or too old driver

std::uint64_t test_seed() {
    if (const char* text = std::getenv("REDUCTION_TEST_SEED")) return std::strtoull(text, nullptr, 10);
    return fresh_seed();
}

void mark_skipped(const std::string& reason) {
    std::string& all = reason_storage();
    all += (all.empty() ? "" : "; ") + reason;
}

bool skipped_for_resources() { return !reason_storage().empty(); }
std::string skip_reason() { return reason_storage(); }

std::size_t free_device_bytes() {
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return free_bytes;
}

std::vector<cudaKernelNodeParams> kernel_nodes(cudaGraph_t graph) {
    std::size_t count = 0;
    CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
    std::vector<cudaGraphNode_t> nodes(count);
    CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &count));
    std::vector<cudaKernelNodeParams> kernels;
    for (cudaGraphNode_t node : nodes) {
        cudaGraphNodeType type{};
        CUDA_CHECK(cudaGraphNodeGetType(node, &type));
        if (type != cudaGraphNodeTypeKernel) continue;
        CUDA_CHECK(cudaGraphKernelNodeGetParams(node, &kernels.emplace_back()));
    }
    cudaGraphDestroy(graph);
    return kernels;
}

bool finishes_within(double seconds) {
    cudaEvent_t done{};
    CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventRecord(done, cudaStream_t{}));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    cudaError_t status = cudaEventQuery(done);
    while (status == cudaErrorNotReady && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        status = cudaEventQuery(done);
    }
    if (status == cudaErrorNotReady) return false;  // the event is leaked: the GPU is stuck anyway
    cudaEventDestroy(done);
    CUDA_CHECK(status);  // a fault in the queued work
    return true;
}

std::string hex_bytes(const void* value, std::size_t size) {
    // little-endian: the last byte in memory is the most significant digit
    const auto* bytes = static_cast<const unsigned char*>(value);
    std::string text = "0x";
    char digits[3];
    for (std::size_t k = size; k-- > 0;) {
        std::snprintf(digits, sizeof digits, "%02x", bytes[k]);
        text += digits;
    }
    return text;
}

template <class T>
std::string exact_value(T value) {
    std::ostringstream out;
    out.precision(std::numeric_limits<T>::max_digits10);
    if constexpr (sizeof(T) == 1) out << static_cast<int>(value);  // a byte, not a character
    else out << value;
    out << " (bytes " << hex_bytes(&value, sizeof(T)) << ")";
    return out.str();
}

template std::string exact_value<std::uint8_t>(std::uint8_t);
template std::string exact_value<std::int32_t>(std::int32_t);
template std::string exact_value<float>(float);
template std::string exact_value<double>(double);

}  // namespace reduction::test
