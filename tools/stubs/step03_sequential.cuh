// The assignment's code for the marked regions of step03_sequential/reduce.cuh: tools/make_exercise
// puts each region below in place of the region of the step with the same solution-begin
// text, indented like it. The TODO lines are the task the student reads.

// solution-begin: the tree with sequential addressing
// TODO: sequential addressing: fold the upper half of the active values onto the lower half, halving s each round
// solution-end
