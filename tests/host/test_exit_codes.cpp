// run_guarded: every kind of failure becomes the exit code the README documents.
#include "../catch.h"
#include "exit_codes.h"
#include "measure.h"

#include <limits>
#include <new>
#include <stdexcept>
#include <vector>

using namespace reduction;

namespace {

template <class Exception>
int exit_code_of(const Exception& exception) {
    return run_guarded([&]() -> int { throw exception; });
}

}  // namespace

TEST_CASE("each failure maps to its documented exit code", "[exit_codes]") {
    CHECK(run_guarded([] { return static_cast<int>(exit_ok); }) == 0);
    CHECK(run_guarded([] { return static_cast<int>(exit_wrong_result); }) == 1);
    CHECK(exit_code_of(UsageError("bad flag")) == 2);
    CHECK(exit_code_of(EnvironmentError("no GPU")) == 3);
    CHECK(exit_code_of(CudaError(cudaErrorNoDevice, "cudaGetDeviceCount")) == 3);
    CHECK(exit_code_of(CudaError(cudaErrorMemoryAllocation, "cudaMalloc")) == 3);
    CHECK(exit_code_of(CudaError(cudaErrorIllegalAddress, "cudaStreamSynchronize")) == 4);
    CHECK(exit_code_of(std::bad_alloc()) == 3);
    CHECK(exit_code_of(std::length_error("vector")) == 3);
}

TEST_CASE("device bytes needed saturate instead of wrapping", "[exit_codes]") {
    const std::size_t huge = std::size_t{1} << 62;  // --n 2^62 int32: 2^64 bytes, past size_t
    DeviceInfo device;
    device.l2_bytes = 32;
    MeasureSettings settings;
    CHECK(device_bytes_needed<std::int32_t>(0, huge, settings, device) == std::numeric_limits<std::size_t>::max());
    CHECK(device_bytes_needed<std::int32_t>(0, 1000, settings, device) == 4000 + 4);  // the input and the output
    CHECK(device_bytes_needed<std::int32_t>(96, 1000, settings, device) == 4000 + 4 + 96);  // and the scratch
    settings.flush_l2 = true;  // the flush buffer: twice the L2
    CHECK(device_bytes_needed<std::int32_t>(0, 1000, settings, device) == 4000 + 4 + 64);
    CHECK(device_bytes_needed<std::int32_t>(0, huge, settings, device) == std::numeric_limits<std::size_t>::max());
}
