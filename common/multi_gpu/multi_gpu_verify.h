// The verdict of a multi-GPU run: every GPU must hold the right total, and the same bits as rank 0's.
#pragma once

#include "reference.h"
#include "team.h"
#include <cstring>
#include <iostream>

namespace reduction::multi_gpu {

// parts[i].total: members()[i]'s total, a T on its device. The verdict of the first wrong one, or rank 0's, on every rank.
template <class T, class Part>
Verdict verify_totals(const Team& team, const std::vector<Part>& parts, const Reference& reference, std::size_t depth) {
    const auto& members = team.members();
    std::vector<T> values(members.size());
    for (std::size_t i = 0; i < members.size(); ++i) {
        CUDA_CHECK(cudaSetDevice(members[i].device));
        CUDA_CHECK(cudaMemcpyAsync(&values[i], parts[i].total, sizeof(T), cudaMemcpyDeviceToHost, members[i].stream));
        CUDA_CHECK(cudaStreamSynchronize(members[i].stream));
    }
    T first = values[0];
    team.broadcast_from_leader(&first, sizeof first);  // rank 0's total, on every rank
    Verdict verdict = verify(first, reference, depth);
    for (std::size_t i = 0; i < members.size(); ++i) {
        Verdict own = verify(values[i], reference, depth);
        if (!own.pass) {
            own.note = "on GPU " + std::to_string(members[i].rank) + ": " + own.note;
        } else if (std::memcmp(&values[i], &first, sizeof(T)) != 0) {
            own.pass = false;
            own.note = "GPU " + std::to_string(members[i].rank) + " holds " + own.result + ", GPU 0 " + verdict.result +
                       ": the all-reduce must leave the same total on every GPU";
        }
        if (!own.pass && verdict.pass) verdict = own;
    }
    if (!team.all_ranks(verdict.pass) && verdict.pass) {  // a collective: called on every rank, whatever its verdict
        verdict.pass = false;
        verdict.note = "another rank's GPU holds a wrong total (its rank printed why)";
    }
    if (!verdict.pass && team.mpi() && !team.leads())
        std::cerr << "rank " << members[0].rank << ": " << verdict.note << "\n";
    return verdict;
}

}  // namespace reduction::multi_gpu
