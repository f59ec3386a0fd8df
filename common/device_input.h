// The input of a run, on the device, with its reference, and the measurement settings the
// command line asks for: what run_step and the comparison both need before measuring.
#pragma once

#include "device_buffer.h"
#include "device_info.h"
#include "host_input.h"
#include "measure.h"
#include "options.h"
#include "reference.h"
#include "timer.h"

#include <cstddef>
#include <memory>
#include <string>

namespace reduction {

template <class T>
struct DeviceInput {
    std::size_t n = 0;
    std::string description;  // "pattern random, seed 42" or "file 'data.bin'"
    Reference reference;
    DeviceBuffer<T> values;
};

// Generates (or takes the file's) values, computes the reference, copies them to the device and
// frees the host copy: big inputs should not be held twice. Check device memory before calling.
template <class T>
DeviceInput<T> upload_input(InputPlan<T>& plan);

MeasureSettings measure_settings(const Options& options);

// An L2 flusher when --flush-l2 asks for one, otherwise nullptr (warm L2).
std::unique_ptr<L2Flusher> l2_flusher(const Options& options, const DeviceInfo& device);

}  // namespace reduction
