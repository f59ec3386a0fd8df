// solution-begin: the block's chunks through the ring
// TODO: thread 0 initialises the mbarriers (init_ready) and asks for the first `stages` chunks of
// TODO: the block's run (copy_chunk, buffer s gets chunk first + s); after a barrier, for each
// TODO: chunk c of the run: wait_for_chunk on buffer c % stages, phase (c / stages) % 2; add its
// TODO: vectors (thread tid takes tid, tid + Block, ...); a barrier; then thread 0 calls
// TODO: release_buffer() and copies chunk c + stages, if the run has it, into the same buffer
(void)ring, (void)ready, (void)body, (void)first, (void)count;  // placeholder: the loop uses them
// solution-end
// solution-begin: from bulk_min_elements on, the bulk path's kernel and grid
// TODO: when takes_bulk_path(n), launch kernel_for_block<Op, T, false, true>(threads) with
// TODO: bulk_grid(n, block) blocks
const Kernel<T> kernel = one_tile ? kernel_for_block<Op, T, true>(threads) : kernel_for_block<Op, T>(threads);
const unsigned int blocks = grid;
// solution-end
