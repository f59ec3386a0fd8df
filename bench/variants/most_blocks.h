// The most blocks of any grid step 14 launches: every SM full of blocks, or one cluster; the slots of a variant
// whose every grid ends through pairs are sized for it. Asked once per process, of the current device.
// Included in the step's reduce.cuh after cluster_blocks (bench/variants.toml).
#pragma once

inline unsigned int most_blocks() {
    static const unsigned int most = [] {
        int device = 0, sms = 0, per_sm = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, device));
        return std::max(static_cast<unsigned int>(sms * per_sm), cluster_blocks);
    }();
    return most;
}
