// solution-begin: the tree with sequential addressing
// TODO: sequential addressing: fold the upper half of the active values onto the lower half, halving s each round
// solution-end
