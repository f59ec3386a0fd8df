// Step 12 with the warp trees of step 11 (five rounds of a shuffle and an addition) for every type:
// what the warp instruction for 32-bit integers gives, apart from step 12's other changes.
#define STEP12_NO_WARP_INSTRUCTION
#include "step12_small_n/reduce.cuh"

#include "run_step.h"

int main(int argc, char** argv) {
    reduction::StepApi step = REDUCTION_STEP_API(step12);
    step.name = "step12_shuffle_warps";
    step.change = "step12 with shuffles for the warp trees of every type";
    return reduction::run_step(argc, argv, step);
}
