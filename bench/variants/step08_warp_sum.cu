// Step 08 with another warp sum; everything else is step 08's. One source, two programs: CMake
// defines which warp sum this one is built with (CMakeLists.txt).
//   STEP08_CG_REDUCE        step08_cg_reduce: cooperative_groups::reduce
//   STEP08_REDUCE_ADD_SYNC  step08_reduce_add_sync: __reduce_add_sync for int32 (floats keep the shuffles)
#include "warp_sums.cuh"
#if defined(STEP08_CG_REDUCE)
#define STEP08_WARP_SUM ::variants::cg_warp_sum
#define VARIANT_NAME "step08_cg_reduce"
#define VARIANT_CHANGE "step08 with cooperative_groups::reduce as the warp sum"
#elif defined(STEP08_REDUCE_ADD_SYNC)
#define STEP08_WARP_SUM ::variants::redux_warp_sum
#define VARIANT_NAME "step08_reduce_add_sync"
#define VARIANT_CHANGE "step08 with __reduce_add_sync as the int32 warp sum"
#else
#error "define STEP08_CG_REDUCE or STEP08_REDUCE_ADD_SYNC"
#endif
#include "step08_warp_shuffle/reduce.cuh"

#include "run_step.h"

int main(int argc, char** argv) {
    reduction::StepApi step = REDUCTION_STEP_API(step08);
    step.name = VARIANT_NAME;
    step.change = VARIANT_CHANGE;
    return reduction::run_step(argc, argv, step);
}
