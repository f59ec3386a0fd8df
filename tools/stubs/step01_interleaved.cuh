// The assignment's code for the marked regions of step01_interleaved/reduce.cuh: tools/make_exercise
// puts each region below in place of the region of the step with the same solution-begin
// text, indented like it. The TODO lines are the task the student reads.

// solution-begin: the tree: interleaved pairs, a barrier after each round
// TODO: the tree: in round s, thread tid adds sdata[tid + s] onto sdata[tid] when tid is a multiple of 2*s; a barrier after each round
// solution-end
