// solution-begin: the grid-stride loop
// TODO: a grid-stride loop: each thread adds many elements, several independent coalesced loads per iteration, then the tail up to n
T sum = T(0);  // placeholder
// solution-end
// solution-begin: the grid of the first launch
// TODO: the grid of the first launch: as many blocks as fit on the GPU at once (occupancy API), never more than the input needs
inline unsigned int grid_for(std::size_t n, int block) {
    (void)n, (void)block;
    return 1;  // placeholder: a single block
}
// solution-end
// solution-begin: the launch plan
// TODO: the launch plan: one launch of grid_for(n, block) blocks writes one partial per block, a second one-block launch adds them into out
(void)in, (void)n, (void)out, (void)scratch, (void)block, (void)stream;
// solution-end
