// Runs this step's reduction through the course harness: ./step10_single_pass --help
#include "reduce.cuh"
#include "run_step.h"

int main(int argc, char** argv) { return reduction::run_step(argc, argv, REDUCTION_STEP_API(step10)); }
