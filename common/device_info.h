// The GPU as the harness needs it: name, versions, L2 size, and the peak bandwidth GB/s figures are compared with.
#pragma once
#include "cuda_check.h"
#include <cstddef>
#include <cstdio>

namespace reduction {
struct DeviceInfo {
    int index = 0;
    std::string name;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    std::size_t l2_bytes = 0;
    double peak_gbps = 0;           // from the memory clock and bus width
    int driver_version = 0, runtime_version = 0;  // e.g. 13000 for 13.0
};

// Peak DRAM GB/s: two transfers per memory clock (DDR, kHz from the attribute API in CUDA 13) x the bus width.
inline double theoretical_peak_gbps(int memory_clock_khz, int bus_width_bits) {
    return 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e9;
}

inline std::string cuda_version_text(int version) {  // "13.0" from 13000
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

// Why no CUDA device can be used, in words a student can act on; "" when one can. driver_version 0: no driver.
inline std::string no_device_reason(cudaError_t status, int count, int driver_version, int runtime_version) {
    if (status == cudaSuccess && count > 0) return "";
    if (driver_version == 0) return "no NVIDIA driver is installed (libcuda not found)";
    if (status == cudaErrorInsufficientDriver || driver_version < runtime_version)
        return "the NVIDIA driver is too old: it supports CUDA " + cuda_version_text(driver_version) +
               ", this program uses the CUDA " + cuda_version_text(runtime_version) +
               " runtime; install a driver that supports CUDA " + cuda_version_text(runtime_version) + " or newer";
    if (status == cudaSuccess || status == cudaErrorNoDevice)
        return "the NVIDIA driver (CUDA " + cuda_version_text(driver_version) + ") sees no GPU";
    return std::string("no usable CUDA device (") + cudaGetErrorName(status) + ": " + cudaGetErrorString(status) + ")";
}

// no_device_reason for this machine, the device count in *count: the one place a program first touches the GPU.
inline std::string cuda_device_problem(int* count = nullptr) {
    int found = 0, driver_version = 0, runtime_version = 0;
    const cudaError_t status = cudaGetDeviceCount(&found);
    if (status != cudaSuccess) found = 0;
    if (cudaDriverGetVersion(&driver_version) != cudaSuccess) driver_version = 0;
    if (cudaRuntimeGetVersion(&runtime_version) != cudaSuccess) runtime_version = 0;
    cudaGetLastError();  // a failed query must not stay behind as the next check's error
    if (count) *count = found;
    return no_device_reason(status, found, driver_version, runtime_version);
}

// Selects device `index` and reads it. No device or driver: EnvironmentError; an index past the last: UsageError.
inline DeviceInfo open_device(int index) {
    int count = 0, clock_khz = 0, bus_bits = 0;
    const std::string problem = cuda_device_problem(&count);
    if (!problem.empty()) throw EnvironmentError(problem + ": running the course needs an NVIDIA GPU and its driver");
    if (index >= count)
        throw UsageError("--device " + std::to_string(index) + ": this machine has " + std::to_string(count) +
                         " CUDA device(s), numbered from 0");
    CUDA_CHECK(cudaSetDevice(index));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, index));
    CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, index));
    DeviceInfo info{index, prop.name, prop.major, prop.minor, prop.multiProcessorCount,
                    static_cast<std::size_t>(prop.l2CacheSize), theoretical_peak_gbps(clock_khz, bus_bits)};
    CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
    CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
    return info;
}

// Throws EnvironmentError naming the bytes needed when the device has fewer free.
inline void require_device_memory(std::size_t bytes_needed, const std::string& purpose) {
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes_needed <= free_bytes) return;
    char text[256];
    std::snprintf(text, sizeof text,
                  "%s needs %zu bytes (%.2f GiB) of device memory; the GPU has %zu bytes (%.2f GiB) free",
                  purpose.c_str(), bytes_needed, bytes_needed / 1073741824.0, free_bytes, free_bytes / 1073741824.0);
    throw EnvironmentError(text);
}
}  // namespace reduction
