// solution-begin: one level of the last warp's tree
// TODO: a helper for one level of the last warp's tree: lanes below offset add the value offset slots above, with __syncwarp() between reads and writes
// solution-end
// solution-begin: the tree, the last warp without barriers
// TODO: the tree: __syncthreads() rounds while more than one warp works, then warp 0 finishes the last 64 values with __syncwarp() only
// solution-end
