// solution-begin: the 16-byte vector and its load
// TODO: a 16-byte vector of T and its one-instruction load
// solution-end
// solution-begin: head, whole vectors, tail
// TODO: add this thread's elements to sum: the scalar head up to the first 16-byte boundary,
// TODO: its whole vectors (loads_per_iteration in flight per iteration), the scalar tail
// solution-end
