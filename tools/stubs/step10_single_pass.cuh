// The assignment's code for the marked regions of step10_single_pass/reduce.cuh: tools/make_exercise
// puts each region below in place of the region of the step with the same solution-begin
// text, indented like it. The TODO lines are the task the student reads.

// solution-begin: the last block combines the posted partials
// TODO: the last block combines; the others post their partial in their slots and leave
// solution-end

// solution-begin: one launch, with the slots in the scratch
// TODO: one launch, with the slots in the scratch
// solution-end
