// Step 09's two launches captured once into a CUDA graph and replayed per call, timed by the course
// harness like every step.
#include "graph_replay.cuh"

#include "run_step.h"

int main(int argc, char** argv) { return reduction::run_step(argc, argv, REDUCTION_STEP_API(graph_replay)); }
