// Runs this step's reduction through the course harness: ./step14_exact_sum --help
// The picture of one run, from here to the printed line: common/README.md#one-run
#include "reduce.cuh"
#include "run_step.h"

int main(int argc, char** argv) { return reduction::run_step<step14::Entry>(argc, argv); }
