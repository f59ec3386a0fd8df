// Runs this step's reduction through the course harness: ./step13_bulk_copies --help
#include "reduce.cuh"
#include "run_step.h"

int main(int argc, char** argv) { return reduction::run_step(argc, argv, REDUCTION_STEP_OPS(step13)); }
