// step12_small_n's solution without its one-tile path: tests/tools/wrong_kernels.sh puts these regions
// in place of the regions of reduce.cuh with the same begin texts (the others keep the solution), and
// the host part must fail it. What is left is step 11's path for every n, with step 12's warp trees.
// solution-begin: one tile: all loads at once, trees, straight to *out
// solution-end
// solution-begin: one tile or less: small_block threads, the OneTile kernel
const int threads = block;
const Kernel<T> kernel = kernel_for_block<Op, T>(threads);
// solution-end
