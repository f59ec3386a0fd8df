// solution-begin: the tree: interleaved pairs, a barrier after each round
// TODO: the tree: in round s, thread tid adds sdata[tid + s] onto sdata[tid] when tid is a multiple of 2*s; a barrier after each round
// solution-end
