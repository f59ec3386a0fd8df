// The assignment's code for the marked regions of step02_nondivergent/reduce.cuh: tools/make_exercise
// puts each region below in place of the region of the step with the same solution-begin
// text, indented like it. The TODO lines are the task the student reads.

// solution-begin: the tree with a strided index
// TODO: the tree with a strided index: in round s, thread tid works on element 2*s*tid, so the working threads are the first ones of the block
// solution-end
