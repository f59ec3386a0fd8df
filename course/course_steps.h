// The course's steps in order, CUB and the read probe as StepApi tables, for the tests and compare.
#pragma once

#include "step_api.h"
#include <string>
#include <vector>

namespace reduction {
const std::vector<StepApi>& course_steps();

// CUB's DeviceReduce behind the same interface, the reference to beat: Sum, and Max and Min for --op.
const StepApi& cub_step();
const StepOps& cub_ops();

// CUB's reproducible float sum (determinism::gpu_to_gpu, a newer CCCL than the toolkit's, in a library of its own):
// float32 and float64 only, its int32 functions null. nullptr where the build lacks it; cub_gpu_to_gpu_missing()
// then says why (empty where it has it).
inline constexpr const char* cub_gpu_to_gpu_name = "cub_gpu_to_gpu";
inline constexpr const char* cub_gpu_to_gpu_float_only =
    "gpu_to_gpu changes only float sums: integer sums, and max and min, give the same bits on every GPU already "
    "(the cub row)";
const StepApi* cub_gpu_to_gpu_step();
std::string cub_gpu_to_gpu_missing();

// The operators of a step whose operator is a template parameter (api op in course/steps.csv), else nullptr.
const StepOps* step_ops(const StepApi& step);

// Not reductions, never verified: every input byte read once by 16-byte loads (the read ceiling), or by
// step 13's bulk copies (sm_90 and later; it throws on older GPUs). A size's probe: the faster.
const StepApi& read_probe_step();
const StepApi& read_probe_bulk_step();

bool bulk_copies_available();  // sm_90 (or later) code on an sm_90 or later GPU: step 13's test

// "step03_sequential", "step03", "03" or "3"; "cub", "cub_gpu_to_gpu" (where built), "read_probe" or
// "read_probe_bulk". nullptr if none.
const StepApi* find_step(const std::string& key);
}  // namespace reduction
