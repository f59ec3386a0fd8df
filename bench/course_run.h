// What compare measures: the selected steps (course order, CUB last) and types, each run on one
// device buffer per (type, size) through the harness's measure_step.
#pragma once

#include "device_info.h"
#include "element_type.h"
#include "measure.h"
#include "options.h"
#include "step_api.h"

#include <cstddef>
#include <string>
#include <vector>

namespace reduction::bench {

// What the command line asks compare to do, every user mistake already rejected (UsageError):
// checked before any GPU is looked for, so that a bad --input file is exit 2 on any machine.
struct ComparePlan {
    std::vector<const StepApi*> steps;  // course order, CUB last
    std::vector<ElementType> types;
    std::size_t n = 0;                  // --n, or the --input file's element count (0 for --sweep)
};
ComparePlan plan_compare(const Options& options);

// --steps resolved with find_step, in course order with CUB last whatever order they were named
// in, so that "x previous" always compares a step with the one before it. Default: every step
// and CUB. An unknown key is a UsageError listing the valid ones.
std::vector<const StepApi*> selected_steps(const Options& options);

// --type all: int32 and float32. --sweep without --type: the same two. Otherwise the one type.
std::vector<ElementType> selected_types(const Options& options);

// Device memory for one (type, size): the input, the largest step's scratch and output, and the
// L2 flush buffer (twice the L2, as L2Flusher allocates) when --flush-l2 is on.
std::size_t compare_bytes_needed(const std::vector<const StepApi*>& steps, ElementType type, std::size_t n,
                                 const Options& options, const DeviceInfo& device);

// Uploads the input the options describe once, after checking device memory, and measures every
// step on that buffer; the rows come back rated (course_table.h). A failed verification is
// reported on stderr and shows as a FAIL row; it does not stop the others.
std::vector<Measurement> measure_steps(const std::vector<const StepApi*>& steps, ElementType type,
                                       const Options& options, const DeviceInfo& device);

}  // namespace reduction::bench
