// The assignment's code for the marked regions of step12_small_n/reduce.cuh: tools/make_exercise
// puts each region below in place of the region of the step with the same solution-begin
// text, indented like it. The TODO lines are the task the student reads.

// solution-begin: a grid of one block writes its result and stops
// TODO: a grid of one block has nobody to wait for: thread 0 writes sum to *out, every thread returns
// solution-end

// solution-begin: one tile or less: one block of just enough warps
// TODO: one block of small_block(n, block) threads when grid == 1, else block threads
const int threads = block;
// solution-end
