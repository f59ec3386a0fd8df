// Step 08 with __reduce_add_sync as the warp sum for int32 (floats keep the shuffles).
#include "warp_sums.cuh"
#define STEP08_WARP_SUM ::variants::redux_warp_sum
#include "step08_warp_shuffle/reduce.cuh"

#include "run_step.h"

int main(int argc, char** argv) {
    reduction::StepApi step = REDUCTION_STEP_API(step08);
    step.name = "step08_reduce_add_sync";
    step.change = "step08 with __reduce_add_sync as the int32 warp sum";
    return reduction::run_step(argc, argv, step);
}
