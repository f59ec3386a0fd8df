// Step 08 with cooperative_groups::reduce as the warp sum; everything else is step 08's.
#include "warp_sums.cuh"
#define STEP08_WARP_SUM ::variants::cg_warp_sum
#include "step08_warp_shuffle/reduce.cuh"

#include "run_step.h"

int main(int argc, char** argv) {
    reduction::StepApi step = REDUCTION_STEP_API(step08);
    step.name = "step08_cg_reduce";
    step.change = "step08 with cooperative_groups::reduce as the warp sum";
    return reduction::run_step(argc, argv, step);
}
