// Runs this step's reduction on K GPUs through the multi-GPU harness: ./step15_multi_gpu --help
// The picture of one run: common/README.md#one-run; on K GPUs common/multi_gpu/run_multi_gpu.h runs it.
//   mpirun -np K step15_multi_gpu --n 2^32        one process per GPU
//   step15_multi_gpu --gpus K --n 2^32             one process driving K GPUs
#include "reduce.cuh"
#include "run_multi_gpu.h"

int main(int argc, char** argv) { return reduction::multi_gpu::run_multi_gpu<step15::Entry>(argc, argv); }
