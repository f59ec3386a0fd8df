// Runs this step's reduction through the course harness: ./step07_multi_level --help
#include "reduce.cuh"
#include "run_step.h"

int main(int argc, char** argv) { return reduction::run_step(argc, argv, REDUCTION_STEP_API(step07)); }
