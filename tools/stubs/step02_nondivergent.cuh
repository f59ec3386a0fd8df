// solution-begin: the tree with a strided index
// TODO: the tree with a strided index: in round s, thread tid works on element 2*s*tid, so the working threads are the first ones of the block
// solution-end
