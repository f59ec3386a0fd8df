// solution-begin: post the partial, or (last block) wait for all and add them
// TODO: every block but the last posts its partial with post_partial and leaves; the last block
// TODO: waits until every slot of every other block is full (add_round), each of its threads adding
// TODO: the partials tid, tid + Block, tid + 2 x Block, ... one after another, then combines the
// TODO: threads' totals with block_sum (the same fixed order on every call), writes *out and
// TODO: empties the slots (empty_slots) for the next call
static_cast<void>(tid);  // placeholder: until your code uses tid
// solution-end
