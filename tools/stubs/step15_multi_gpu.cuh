// solution-begin: a shard per GPU, then one all-reduce of one element
// TODO: reduce_and_combine(step, team, parts, block, op): on each GPU of team.members() with a
// TODO: non-empty shard, run typed<T>(step).reduce into parts[i].partial on that member's stream;
// TODO: then, inside ncclGroupStart()/ncclGroupEnd(), one ncclAllReduce of one element per member
// TODO: from parts[i].partial into parts[i].total (nccl_type<T>(op), nccl_op(op), its comm and stream)
template <class T>
void reduce_and_combine(const reduction::StepApi&, const Team&, const std::vector<Part<T>>&, int, reduction::OpKind) {}
// solution-end
