// The assignment's code for the marked regions of step12_small_n/reduce.cuh: tools/make_exercise
// puts each region below in place of the region of the step with the same solution-begin
// text, indented like it. The TODO lines are the task the student reads.

// solution-begin: one tile: all loads at once, trees, straight to *out
// TODO: with OneTile the grid is one block and the input one tile: combine one_tile_sum over the
// TODO: block with block_reduce, let thread 0 write it to *out, and return: no loop, no slots
// solution-end

// solution-begin: one tile or less: small_block threads, the OneTile kernel
// TODO: when grid == 1, launch small_block(n, block) threads of kernel_for_block<Op, T, true>
const int threads = block;
const Kernel<T> kernel = kernel_for_block<Op, T>(threads);
// solution-end
