// What compare measures: the selected steps (course order, CUB last) and types, each run on one
// device buffer per (type, size) through the harness's measure_step.
#pragma once

#include "device_info.h"
#include "element_type.h"
#include "measure.h"
#include "options.h"
#include "step_api.h"

#include <cstddef>
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

// Uploads the input once, after checking device memory, and measures every step on that buffer;
// the rows come back rated (course_table.h). A failed verification is reported on stderr and
// shows as a FAIL row; it does not stop the others.
std::vector<Measurement> measure_steps(const std::vector<const StepApi*>& steps, ElementType type, const InputSpec& input,
                                       OpKind op, const MeasureSettings& settings, const DeviceInfo& device);

}  // namespace reduction::bench
