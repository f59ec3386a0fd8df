// What a multi-GPU run prints, on the leading rank: the one-GPU steps' table, CSV or JSON
// (common/report.h), with the run's GPUs in the stamp, a line of their own in the table and three
// more CSV columns (gpus, launch, from_one_gpu).
#pragma once

#include "device_info.h"
#include "measure.h"
#include "options.h"
#include "team.h"

#include <cstddef>

namespace reduction::multi_gpu {

struct MultiGpuRunShape {
    std::size_t n = 0;              // elements in all
    std::size_t largest_shard = 0;  // rank 0's: the others hold as many or one fewer
    bool from_one_gpu = false;
};

// `device` is GPU 0's: the text shows the K GPUs as one, their peaks added.
void print_multi_gpu(const reduction::Measurement& m, const reduction::DeviceInfo& device,
                     const reduction::Options& options, const Team& team, const MultiGpuRunShape& shape, int argc,
                     const char* const* argv);

}  // namespace reduction::multi_gpu
