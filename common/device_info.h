// What the harness needs to know about the GPU: name, versions, size of L2, and the theoretical
// peak memory bandwidth that GB/s figures are compared with.
#pragma once

#include <cstddef>
#include <string>

namespace reduction {

struct DeviceInfo {
    int index = 0;
    std::string name;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    std::size_t l2_bytes = 0;
    std::size_t total_memory = 0;
    double peak_gbps = 0;           // from the memory clock and bus width
    int driver_version = 0;         // e.g. 13000 for 13.0
    int runtime_version = 0;
};

// Selects device `index` and reads its properties. No device or no driver: EnvironmentError;
// an index past the last device: UsageError.
DeviceInfo open_device(int index);

// Peak DRAM bandwidth in GB/s: two transfers per memory clock (DDR) times the bus width.
// CUDA 13 removed memoryClockRate from cudaDeviceProp; the attribute API still reports it (kHz).
double theoretical_peak_gbps(int memory_clock_khz, int bus_width_bits);

// "13.0" from 13000.
std::string cuda_version_text(int version);

// Throws EnvironmentError naming the bytes needed when the device has fewer free.
void require_device_memory(std::size_t bytes_needed, const std::string& purpose);

// One line: "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 50 MiB L2, 3352 GB/s peak), driver 13.0, runtime 13.0"
std::string describe(const DeviceInfo& device);

}  // namespace reduction
