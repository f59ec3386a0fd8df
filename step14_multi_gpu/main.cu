// Runs this step's reduction on K GPUs through the multi-GPU harness: ./step14_multi_gpu --help
//   mpirun -np K step14_multi_gpu --n 2^32        one process per GPU
//   step14_multi_gpu --gpus K --n 2^32             one process driving K GPUs
#include "reduce.cuh"
#include "run_multi_gpu.h"

int main(int argc, char** argv) { return reduction::multi_gpu::run_multi_gpu(argc, argv, REDUCTION_MULTI_GPU_STEP(step14)); }
