// Step 12's own promise, seen from outside: an input of one tile or less (4,096 four-byte elements
// at block 256) is one launch of one block of just enough warps, one thread per 16 four-byte
// elements rounded up to a power of two of at least 32 and at most the block; one element more is
// the single-pass kernel of step 11 again. The launch is read from a CUDA graph captured around the
// call: the kernel node's grid and block. A step 12 that sends every input down step 11's path
// sums right, and only this test (or a stopwatch) sees it.
#include "../catch.h"
#include "gpu_test_support.h"
#include "step_under_test.h"

#include <string>
#include <vector>

namespace {

using namespace reduction;

struct Launch {
    unsigned int grid = 0, block = 0;
    int kernels = 0;
};

Launch captured_launch(std::size_t n, int block) {
    const StepApi& step = test::step_under_test();
    DeviceBuffer<std::int32_t> in(n), out(1);
    CUDA_CHECK(cudaMemset(in.get(), 0, in.bytes()));
    DeviceBuffer<unsigned char> scratch(test::scratch_bytes<std::int32_t>(step, n, block));
    if (scratch.bytes() > 0) CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
    CUDA_CHECK(cudaDeviceSynchronize());  // the fills, on stream 0, which `stream` below does not wait for
    auto* scratch_t = reinterpret_cast<std::int32_t*>(scratch.get());
    const test::NonBlockingStream stream;
    {
        const test::HangGuard guard(std::string(step.name) + " int32 n=" + std::to_string(n) + " block=" +
                                        std::to_string(block) + ", the uncaptured first call",
                                    n * sizeof(std::int32_t));
        typed<std::int32_t>(step).reduce(in.get(), n, out.get(), scratch_t, block, stream);  // first-call set-up, uncaptured
        CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    cudaGraph_t graph = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    typed<std::int32_t>(step).reduce(in.get(), n, out.get(), scratch_t, block, stream);
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    Launch launch;
    for (const cudaKernelNodeParams& params : test::kernel_nodes(graph)) {
        launch.grid = params.gridDim.x;
        launch.block = params.blockDim.x;
        ++launch.kernels;
    }
    return launch;
}

}  // namespace

TEST_CASE("step12: an input of one tile is one block of just enough warps", "[gpu][step12]") {
    struct Case {
        std::size_t n;
        int block;
        unsigned int threads;  // of the one block; 0: not one tile (more than one block)
    };
    const Case cases[] = {{1, 256, 32},     {33, 256, 32},     {512, 256, 32},    {513, 256, 64},
                          {1000, 256, 64},  {2048, 256, 128},  {4096, 256, 256},  {4096, 1024, 256},
                          {16384, 1024, 1024}, {1024, 64, 64}, {4097, 256, 0},   {2049, 128, 0}};
    for (const Case& c : cases) {
        const Launch launch = captured_launch(c.n, c.block);
        INFO("step12 int32 n=" << c.n << " block=" << c.block << ": " << launch.kernels << " launch(es), the last "
                               << launch.grid << " block(s) of " << launch.block << " threads");
        CHECK(launch.kernels == 1);
        if (c.threads > 0) {
            CHECK(launch.grid == 1u);
            CHECK(launch.block == c.threads);
        } else {
            CHECK(launch.grid > 1u);
            CHECK(launch.block == static_cast<unsigned int>(c.block));
        }
    }
}
