// Everything a step's main() does: parse the command line, prepare and check the input, run,
// verify, time and report. A step only passes its entry points (REDUCTION_STEP_API).
#pragma once

#include "step_api.h"

namespace reduction {

int run_step(int argc, const char* const* argv, const StepApi& step);

}  // namespace reduction
