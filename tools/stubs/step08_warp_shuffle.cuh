// The assignment's code for the marked regions of step08_warp_shuffle/reduce.cuh: tools/make_exercise
// puts each region below in place of the region of the step with the same solution-begin
// text, indented like it. The TODO lines are the task the student reads.

// solution-begin: one shuffle, for every type
// TODO: read another lane's register with __shfl_down_sync (promote types under 32 bits)
// solution-end

// solution-begin: the block's sum with shuffles
// TODO: a shuffle tree per warp, warp sums through shared memory, one barrier, one more shuffle tree
static_cast<void>(warps + lane + warp);  // placeholder: until your code uses them
// solution-end
