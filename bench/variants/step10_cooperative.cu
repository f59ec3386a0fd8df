// Step 10's kernel and grid as a cooperative launch (the documented guarantee that all its blocks
// are resident together), timed by the course harness like every step.
#include "cooperative_launch.cuh"

#include "run_step.h"

int main(int argc, char** argv) { return reduction::run_step(argc, argv, REDUCTION_STEP_API(cooperative_launch)); }
