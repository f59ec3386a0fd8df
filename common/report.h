// Output of measurements: a readable block (default), CSV rows, or one JSON record.
#pragma once

#include "device_info.h"
#include "measure.h"

#include <cstddef>
#include <iosfwd>
#include <string>

namespace reduction {

// "16777216 (2^24)" for powers of two, "1000003" otherwise.
std::string count_text(std::size_t n);

// "64.0 MiB, larger than the 50 MiB L2": whether repetitions can be served from L2.
std::string footprint_text(std::size_t bytes, std::size_t l2_bytes);

void print_text(std::ostream& out, const Measurement& m, const DeviceInfo& device, const std::string& input_description);

std::string csv_header();
std::string csv_row(const Measurement& m);

std::string json_record(const Measurement& m, const DeviceInfo& device, const std::string& input_description);

const char* status_text(const Measurement& m);  // "PASS" or "FAIL"

}  // namespace reduction
