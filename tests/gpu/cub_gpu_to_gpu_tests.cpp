// compare's row cub_gpu_to_gpu (course_cub.cu, course/cub_gpu_to_gpu.cu): CUB's reproducible float sum, called as
// compare calls it, in scratch the caller owns. For float32 and float64 at a few sizes: within the any-order bound
// of the reference, and the same bits from a second call; and one call is kernels alone on the stream it is given
// (a graph captured there holds no allocation and no copy), replayed to the same bits. Built only where the build
// has the row; Skipped without a GPU. Failures print the seed; REDUCTION_TEST_SEED=<seed> replays them.
#include "../catch.h"
#include "../each_type.h"
#include "gpu_test_support.h"

#include "any_order_bound.h"
#include "course_steps.h"

#include <cstdint>
#include <optional>
#include <string>

namespace {

using namespace reduction;

const std::size_t sizes[] = {1, 1000, (std::size_t{1} << 20) + 3};
constexpr int block = 256;  // CUB picks its own; the row ignores it

template <class T>
std::string describe(std::size_t n) {
    return std::string(cub_gpu_to_gpu_name) + " " + type_name<T>() + " n=" + std::to_string(n);
}

const StepApi& row() {
    const StepApi* step = cub_gpu_to_gpu_step();
    if (!step) FAIL("the build has no cub_gpu_to_gpu: " << cub_gpu_to_gpu_missing());
    return *step;
}

}  // namespace

TEST_CASE("cub_gpu_to_gpu: float sums within the any-order bound, the same bits from two calls", "[gpu][cub_gpu_to_gpu]") {
    const StepApi& step = row();
    REDUCTION_TEST_SEED(seed);
    test::for_each_float_type([&](auto zero) {
        using T = decltype(zero);
        for (std::size_t n : sizes) {
            DeviceBuffer<T> device(n);
            const Reference reference = test::upload_generated(device, 0, n, Pattern::random, seed);
            const test::TwoRuns<T> runs = test::run_twice(step, device.get(), n, block, describe<T>(n));
            INFO(describe<T>(n) << ": " << test::exact_value(runs.first) << " then " << test::exact_value(runs.second));
            CHECK(runs.identical());
            const Verdict first_check = verify(runs.first, reference, step.addition_depth(n, block));  // compare's first
            INFO(first_check.note);
            CHECK(first_check.pass);
            const std::optional<Verdict> bound = verify_any_order(runs.first, reference);  // (n - 1) u < 1 here
            REQUIRE(bound.has_value());
            INFO(bound->note << "; error " << bound->error << ", tolerance " << bound->tolerance);
            CHECK(bound->pass);
        }
    });
}

TEST_CASE("cub_gpu_to_gpu: one call is kernels alone on its stream, in the caller's scratch", "[gpu][cub_gpu_to_gpu]") {
    const StepApi& step = row();
    REDUCTION_TEST_SEED(seed);
    test::for_each_float_type([&](auto zero) {
        using T = decltype(zero);
        const std::size_t n = sizes[2];
        DeviceBuffer<T> device(n), out(1);
        test::upload_generated(device, 0, n, Pattern::random, seed);
        DeviceBuffer<unsigned char> scratch(typed<T>(step).scratch_bytes(n, block));
        T* const scratch_t = reinterpret_cast<T*>(scratch.get());
        const test::NonBlockingStream stream;
        CUDA_CHECK(cudaDeviceSynchronize());  // the upload, on stream 0, which `stream` does not wait for
        const test::HangGuard guard(describe<T>(n) + ", on a non-blocking stream and from a graph", 3 * n * sizeof(T));
        typed<T>(step).reduce(device.get(), n, out.get(), scratch_t, block, stream);  // uncaptured: the reference bits
        CUDA_CHECK(cudaStreamSynchronize(stream));
        T direct{};
        CUDA_CHECK(cudaMemcpy(&direct, out.get(), sizeof(T), cudaMemcpyDeviceToHost));

        cudaGraph_t graph = nullptr;
        CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
        typed<T>(step).reduce(device.get(), n, out.get(), scratch_t, block, stream);
        CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
        cudaGraphExec_t exec = nullptr;
        CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
        std::size_t nodes = 0;
        CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
        const std::size_t kernels = test::kernel_nodes(graph).size();  // destroys the graph
        INFO(describe<T>(n) << ": " << nodes << " nodes, " << kernels << " of them kernels");
        CHECK(kernels > 0);
        CHECK(kernels == nodes);  // an allocation or a copy would be a node of another type

        CUDA_CHECK(cudaMemsetAsync(out.get(), 0xFF, sizeof(T), stream));  // on `stream`: before the replay, surely
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        cudaGraphExecDestroy(exec);
        T replayed{};
        CUDA_CHECK(cudaMemcpy(&replayed, out.get(), sizeof(T), cudaMemcpyDeviceToHost));
        INFO("direct " << test::exact_value(direct) << ", replayed " << test::exact_value(replayed));
        CHECK(test::same_bytes(direct, replayed));
    });
}
