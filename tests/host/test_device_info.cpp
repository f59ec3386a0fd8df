// The two pure functions of device_info: the peak bandwidth that "% of peak" divides by, and the
// version text of the driver and runtime. Everything else there needs a GPU.
#include "../catch.h"
#include "device_info.h"
#include "host_test_support.h"

using namespace reduction;

TEST_CASE("theoretical peak bandwidth from memory clock and bus width", "[device_info]") {
    // H100 SXM: HBM3 at 2619 MHz on a 5120-bit bus, two transfers per clock
    CHECK(test::close_to(theoretical_peak_gbps(2619000, 5120), 3352.32, 1e-12));
    // A100 40GB: HBM2 at 1215 MHz, 5120 bits
    CHECK(test::close_to(theoretical_peak_gbps(1215000, 5120), 1555.2, 1e-12));
    // a 384-bit GDDR bus at 10501 MHz (as the attribute reports it)
    CHECK(test::close_to(theoretical_peak_gbps(10501000, 384), 1008.096, 1e-12));
    // proportional to each factor
    CHECK(test::close_to(theoretical_peak_gbps(2619000, 2560), 3352.32 / 2, 1e-12));
    CHECK(theoretical_peak_gbps(0, 5120) == 0);
}

TEST_CASE("CUDA version text", "[device_info]") {
    test::check_each<int>(cuda_version_text, {{13000, "13.0"}, {12040, "12.4"}, {12080, "12.8"}, {11080, "11.8"},
                                              {13010, "13.1"}, {12090, "12.9"}});
}

TEST_CASE("why no CUDA device can be used", "[device_info]") {
    // a usable device: no reason
    CHECK(no_device_reason(cudaSuccess, 1, 13000, 13000).empty());
    // no driver at all: cudaDriverGetVersion gives 0 and the runtime says "insufficient driver"
    CHECK(no_device_reason(cudaErrorInsufficientDriver, 0, 0, 13000) ==
          "no NVIDIA driver is installed (libcuda not found)");
    // a driver too old for the runtime: both versions named
    const std::string old = no_device_reason(cudaErrorInsufficientDriver, 0, 12040, 13000);
    CHECK(old.find("too old") != std::string::npos);
    CHECK(old.find("CUDA 12.4") != std::string::npos);
    CHECK(old.find("CUDA 13.0 runtime") != std::string::npos);
    CHECK(old.find("insufficient") == std::string::npos);
    // a driver but no GPU
    CHECK(no_device_reason(cudaErrorNoDevice, 0, 13000, 13000) == "the NVIDIA driver (CUDA 13.0) sees no GPU");
    CHECK(no_device_reason(cudaSuccess, 0, 13000, 13000) == "the NVIDIA driver (CUDA 13.0) sees no GPU");
    // anything else: the runtime's own words
    CHECK(no_device_reason(cudaErrorUnknown, 0, 13000, 13000).find("cudaErrorUnknown") != std::string::npos);
}
