// Step 10's loop with atomicAdd of the block partials instead of the last-block pass, timed by the
// course harness like every step.
#include "atomic_partials.cuh"

#include "run_step.h"

int main(int argc, char** argv) { return reduction::run_step(argc, argv, REDUCTION_STEP_API(atomic_partials)); }
