// Step 09's two launches, the second a programmatic dependent launch (sm_90 and later), timed by the
// course harness like every step.
#include "pdl_launches.cuh"

#include "run_step.h"

int main(int argc, char** argv) { return reduction::run_step(argc, argv, REDUCTION_STEP_API(pdl_launches)); }
