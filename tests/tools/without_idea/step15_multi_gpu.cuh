// step15_multi_gpu's solution without its shard reduction: tests/tools/wrong_kernels.sh puts this
// region in place of the region of reduce.cuh with the same begin text, and the host part must fail
// it. What is left is the combine alone: the partials all-reduced, no shard ever reduced into them.
// solution-begin: a shard per GPU, then one all-reduce of one element
template <class T>
void reduce_and_combine(const reduction::StepApi&, const Team& team, const std::vector<Part<T>>& parts, int,
                        reduction::OpKind op) {
    const std::vector<Member>& members = team.members();
    NCCL_CHECK(ncclGroupStart());
    for (std::size_t i = 0; i < members.size(); ++i)
        NCCL_CHECK(ncclAllReduce(parts[i].partial, parts[i].total, 1, nccl_type<T>(op), nccl_op(op), members[i].comm,
                                 members[i].stream));
    NCCL_CHECK(ncclGroupEnd());
}
// solution-end
