// solution-begin: the first add, during the load
// TODO: each thread adds two elements, blockDim.x apart, while loading (the second one may be past n): a block covers 2*blockDim.x elements
sdata[tid] = T(0);  // placeholder
// solution-end
// solution-begin: the grid
// TODO: the grid: every block covers 2*block elements
const std::size_t blocks = 1;  // placeholder: a single block
// solution-end
