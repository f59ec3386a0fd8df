// Runs this step's reduction through the course harness: ./step09_vector_loads --help
// The picture of one run, from here to the printed line: common/README.md#one-run
#include "reduce.cuh"
#include "run_step.h"

int main(int argc, char** argv) { return reduction::run_step<step09::Entry>(argc, argv); }
