// What compare measures: the selected steps (course order, CUB last) and types, each run on one
// device buffer per (type, size) through the harness's measure_step, turned into table rows.
#pragma once

#include "course_table.h"

#include "device_info.h"
#include "element_type.h"
#include "options.h"
#include "step_api.h"

#include <cstddef>
#include <string>
#include <vector>

namespace reduction::bench {

// --steps resolved with find_step, in course order with CUB last whatever order they were named
// in, so that "x previous" always compares a step with the one before it. Default: every step
// and CUB. An unknown key is a UsageError listing the valid ones.
std::vector<const StepApi*> selected_steps(const Options& options);

// --type all: int32 and float32. --sweep without --type: the same two. Otherwise the one type.
std::vector<ElementType> selected_types(const Options& options);

// Device memory for one (type, size): the input, the largest step's scratch and output, and the
// L2 flush buffer (twice the L2, as L2Flusher allocates) when --flush-l2 is on.
std::size_t device_bytes_needed(const std::vector<const StepApi*>& steps, ElementType type, std::size_t n,
                                const Options& options, const DeviceInfo& device);

struct TypeRun {
    std::vector<Row> rows;          // one per step, in the order of `steps`
    std::string input_description; // "pattern random, seed 42" or "file 'x.bin'"
    std::size_t n = 0;
};

// Prepares the input the options describe (n from --n or the file), checks device memory, uploads
// it once and measures every step on that buffer. A failed verification is reported on stderr
// and shows as a FAIL row; it does not stop the others.
TypeRun measure_steps(const std::vector<const StepApi*>& steps, ElementType type, const Options& options,
                      const DeviceInfo& device);

}  // namespace reduction::bench
