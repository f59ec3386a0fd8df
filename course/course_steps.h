// The course's steps, in order, and CUB's DeviceReduce::Sum, as StepApi tables: what the GPU tests
// and the comparison iterate over.
#pragma once

#include "step_api.h"

#include <string>
#include <vector>

namespace reduction {

const std::vector<StepApi>& course_steps();

// CUB's cub::DeviceReduce::Sum behind the same interface: the reference to beat.
const StepApi& cub_step();

// CUB's DeviceReduce::Sum, Max and Min (cub_step() is its sum), for --op.
const StepOps& cub_ops();

// The operators of a step whose operator is a template parameter (api op in course/steps.csv);
// nullptr for a step that only sums.
const StepOps* step_ops(const StepApi& step);

// Not a reduction: reads every byte of the input once with 16-byte loads and adds nothing. Its
// time is the read ceiling a reduction can approach; its output is not a sum and is not verified.
const StepApi& read_probe_step();

// The read probe's other pattern, step 13's: each block's contiguous run read by bulk copies into
// shared memory, no arithmetic. Needs sm_90 (it throws elsewhere). The probe of a size is the
// faster of the two.
const StepApi& read_probe_bulk_step();

// Whether this GPU and build have bulk copies (sm_90 code on an sm_90 GPU): step 13's test, which
// read_probe_bulk needs.
bool bulk_copies_available();

// The step named `key`: "step03_sequential", "step03", "03" or "3"; "cub" for CUB. nullptr if none.
const StepApi* find_step(const std::string& key);

}  // namespace reduction
