// solution-begin: the warp's tree as one instruction
// TODO: one_instruction is true for a 32-bit integer when Lanes > 1, in code for sm_80 and later
// TODO: (__CUDA_ARCH__ >= 800; sm_75 has no REDUX): warp_instruction then does the whole tree
constexpr bool one_instruction = false;
// solution-end
// solution-begin: thread 0's tree over the warps' results
// TODO: thread 0 alone reads the warps' results and adds them with tree_reduce, a few additions in
// TODO: registers, instead of warp 0's shuffles below
if (warp == 0) {
    value = lane < warps ? warp_results[lane] : Op::template identity<T>();
    value = warp_reduce<Op, warps>(value);
}
// solution-end
// solution-begin: one tile: all loads at once, trees, straight to *out
// TODO: with OneTile the grid is one block and the input one tile: combine one_tile_sum over the
// TODO: block with block_reduce, let thread 0 write it to *out, and return: no loop, no slots
// solution-end
// solution-begin: one tile or less: small_block threads, the OneTile kernel
// TODO: when grid == 1, launch small_block(n, block) threads of kernel_for_block<Op, T, true>
const int threads = block;
const Kernel<T> kernel = kernel_for_block<Op, T>(threads);
// solution-end
// solution-begin: the warp whole again before the second tree
// TODO: every lane of the last block left its spin loop on its own; say that the warp is whole
// TODO: again (one call) before block_reduce, so that its shuffles need no path for a split warp
// solution-end
