#include "device_info.h"

#include "cuda_check.h"
#include "errors.h"

#include <cstdio>

namespace reduction {

double theoretical_peak_gbps(int memory_clock_khz, int bus_width_bits) {
    return 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e9;
}

std::string cuda_version_text(int version) {
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

DeviceInfo open_device(int index) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0)
        throw EnvironmentError(std::string("no usable CUDA device (") +
                               (status != cudaSuccess ? cudaGetErrorString(status) : "no device found") +
                               "): running the course needs an NVIDIA GPU and its driver");
    if (index >= count)
        throw UsageError("--device " + std::to_string(index) + ": this machine has " + std::to_string(count) +
                         " CUDA device(s), numbered from 0");
    CUDA_CHECK(cudaSetDevice(index));
    DeviceInfo info;
    info.index = index;
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
    info.name = prop.name;
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    info.sm_count = prop.multiProcessorCount;
    info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    info.total_memory = prop.totalGlobalMem;
    int clock_khz = 0, bus_bits = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, index));
    CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, index));
    info.peak_gbps = theoretical_peak_gbps(clock_khz, bus_bits);
    CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
    CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
    return info;
}

void require_device_memory(std::size_t bytes_needed, const std::string& purpose) {
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes_needed > free_bytes) {
        char text[256];
        std::snprintf(text, sizeof text, "%s needs %zu bytes (%.2f GiB) of device memory; the GPU has %zu bytes (%.2f GiB) free",
                      purpose.c_str(), bytes_needed, bytes_needed / 1073741824.0, free_bytes, free_bytes / 1073741824.0);
        throw EnvironmentError(text);
    }
}

std::string describe(const DeviceInfo& device) {
    char text[512];
    std::snprintf(text, sizeof text, "%s (sm_%d%d, %d SMs, %zu MiB L2, %.0f GB/s peak), driver %s, runtime %s",
                  device.name.c_str(), device.cc_major, device.cc_minor, device.sm_count, device.l2_bytes >> 20,
                  device.peak_gbps, cuda_version_text(device.driver_version).c_str(),
                  cuda_version_text(device.runtime_version).c_str());
    return text;
}

}  // namespace reduction
