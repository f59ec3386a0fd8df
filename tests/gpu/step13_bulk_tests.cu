// Step 13's bulk path on inputs of every shape. Through reduce_op it starts at 2^30 elements (the
// large tests sum 2^31 + 17), so here its kernel is launched directly: grids from one block to the
// whole GPU, sizes around a chunk and around an uneven share of chunks, three offsets from a
// 16-byte boundary, int32 and float64 (integer values: every sum exact), sum, max and min, each
// run three times on the same slots (each call must leave them empty). Then the launch, read from
// a CUDA graph captured around reduce_op: the bulk kernel and grid from 2^30 elements on where the
// GPU has bulk copies, step 12's loop below (and everywhere on older GPUs). A step 13 that never
// takes the bulk path sums right; only this launch check (or a stopwatch) sees it. And a sum that
// slows every warp but the first: a refill that does not wait for the slowest reader is caught.
#include "../catch.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "gpu_test_support.h"
#include "operators.h"

#include REDUCTION_STEP_HEADER

#include <cstdint>
#include <string>
#include <vector>

namespace {

namespace step = REDUCTION_STEP_NS;
using reduction::DeviceBuffer;

// in[i] = (i * 7919) % 1000 as T, with one larger and one smaller value planted where max and min
// must find them: values every type holds exactly, sums every type adds exactly.
template <class T>
std::vector<T> host_input(std::size_t size) {
    std::vector<T> values(size);
    for (std::size_t i = 0; i < size; ++i) values[i] = static_cast<T>((i * 7919) % 1000);
    return values;
}

template <class Op, class T>
T host_reduce(const std::vector<T>& values, std::size_t offset, std::size_t n) {
    T result = Op::template identity<T>();
    for (std::size_t i = offset; i < offset + n; ++i) result = Op()(result, values[i]);
    return result;
}

template <class Op, class T>
void check_bulk_kernel(const char* type_name) {
    constexpr std::size_t chunk = step::chunk_bytes / sizeof(T);
    const std::size_t sizes[] = {1, 3, chunk - 1, chunk, chunk + 1, 3 * chunk + 5, 5 * chunk - 3, 1000003};
    const std::size_t largest = 1000003 + 4;
    std::vector<T> values = host_input<T>(largest);
    values[largest / 2] = static_cast<T>(5000);   // max
    values[largest / 3] = static_cast<T>(-5000);  // min
    DeviceBuffer<T> in(largest), out(1);
    CUDA_CHECK(cudaMemcpy(in.get(), values.data(), largest * sizeof(T), cudaMemcpyHostToDevice));
    DeviceBuffer<step::Slot> slots(4096 * step::slots_per_partial<T>);
    CUDA_CHECK(cudaMemset(slots.get(), 0, slots.bytes()));
    for (std::size_t n : sizes)
        for (std::size_t offset : {std::size_t{0}, std::size_t{1}, std::size_t{3}})
            for (int block : {32, 256, 1024}) {
                const unsigned int full_grid = step::resident_grid<true>(block);
                for (unsigned int grid : {1u, 3u, 7u, full_grid}) {
                    const T expected = host_reduce<Op>(values, offset, n);
                    for (int call = 0; call < 3; ++call) {
                        const reduction::test::HangGuard guard(
                            std::string(REDUCTION_STEP_TAG " bulk kernel ") + Op::name + " " + type_name + " n=" +
                                std::to_string(n) + " offset=" + std::to_string(offset) + " block=" +
                                std::to_string(block) + " grid=" + std::to_string(grid) + " call " + std::to_string(call),
                            n * sizeof(T));
                        CUDA_CHECK(cudaMemset(out.get(), 0x7F, sizeof(T)));
                        step::kernel_for_block<Op, T, false, true>(block)<<<grid, block>>>(
                            in.get() + offset, n, out.get(), slots.get());
                        CUDA_CHECK(cudaGetLastError());
                        T got{};
                        CUDA_CHECK(cudaMemcpy(&got, out.get(), sizeof(T), cudaMemcpyDeviceToHost));
                        INFO(REDUCTION_STEP_TAG " bulk kernel " << Op::name << " " << type_name << " n=" << n
                             << " offset=" << offset << " block=" << block << " grid=" << grid << " call " << call);
                        REQUIRE(got == expected);
                    }
                }
            }
    std::vector<step::Slot> left(slots.bytes() / sizeof(step::Slot));
    CUDA_CHECK(cudaMemcpy(left.data(), slots.get(), slots.bytes(), cudaMemcpyDeviceToHost));
    for (step::Slot slot : left) REQUIRE(slot == 0);
}

// A sum whose every call waits about 4 us in all warps but the first: the operator a kernel must
// survive when its warps run at different speeds. With it, warp 0 (thread 0 refills the ring) is
// always done with a buffer long before the others, so a refill issued before the barrier that
// waits for them lands while they still read the old chunk, every time, not once in a million.
struct SlowSum : reduction::Sum {
    static constexpr const char* name = "sum (warps 1 and up slowed)";
    template <class T>
    __device__ T operator()(T a, T b) const {
        if (threadIdx.x >= 32) {
            const long long start = clock64();
            while (clock64() - start < 8000) {
            }
        }
        return a + b;
    }
};

// The bulk kernel with the slowed sum: a few chunks per block, float64 holding integers (exact).
void check_uneven_warps() {
    constexpr std::size_t chunk = step::chunk_bytes / sizeof(double);
    const std::size_t n = 2 * (2 * step::stages + 1) * chunk + 7;  // two blocks, each past its ring twice
    const std::vector<double> values = host_input<double>(n);
    const double expected = host_reduce<reduction::Sum>(values, 0, n);
    DeviceBuffer<double> in(n), out(1);
    CUDA_CHECK(cudaMemcpy(in.get(), values.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    DeviceBuffer<step::Slot> slots(4096 * step::slots_per_partial<double>);
    CUDA_CHECK(cudaMemset(slots.get(), 0, slots.bytes()));
    for (int block : {256, 1024}) {
        const reduction::test::HangGuard guard(std::string(REDUCTION_STEP_TAG " bulk kernel, warps 1 and up slowed: "
                                                           "float64 n=") + std::to_string(n) + " block=" +
                                                   std::to_string(block) + " grid=2",
                                               n * sizeof(double));
        step::kernel_for_block<SlowSum, double, false, true>(block)<<<2, block>>>(in.get(), n, out.get(), slots.get());
        CUDA_CHECK(cudaGetLastError());
        double got = 0;
        CUDA_CHECK(cudaMemcpy(&got, out.get(), sizeof(double), cudaMemcpyDeviceToHost));
        INFO(REDUCTION_STEP_TAG " bulk kernel " << SlowSum::name << " float64 n=" << n << " block=" << block << " grid=2");
        REQUIRE(got == expected);
    }
}

// The kernel and grid of the one launch reduce_op makes for n int32 elements, read from a graph
// captured around the call; the input is never read (the graph is not run), so a small buffer
// stands in for n elements.
struct Launch {
    void* kernel = nullptr;
    unsigned int grid = 0;
    int kernels = 0;
};

Launch captured_launch(std::size_t n, int block) {
    DeviceBuffer<std::int32_t> in(1024), out(1);
    DeviceBuffer<unsigned char> scratch(step::scratch_bytes<std::int32_t>(n, block));
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    (void)step::takes_bulk_path(n);  // the first call's queries, outside the capture
    (void)step::bulk_grid(n, block);
    cudaGraph_t graph = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    step::reduce_op<reduction::Sum>(in.get(), n, out.get(), reinterpret_cast<std::int32_t*>(scratch.get()), block, stream);
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    Launch launch;
    for (const cudaKernelNodeParams& params : reduction::test::kernel_nodes(graph)) {
        launch.kernel = params.func;
        launch.grid = params.gridDim.x;
        ++launch.kernels;
    }
    cudaStreamDestroy(stream);
    return launch;
}

}  // namespace

// The bulk kernel's cases run in a process of their own, beside the step's other cases ([own_bulk]:
// tests/gpu/step_tests.cmake), and the ring's case first: a mistake in the ring's waits hangs, and
// the hang bound then ends the test within seconds of its start.
TEST_CASE(REDUCTION_STEP_TAG ": the ring waits for the slowest warp before a refill", "[gpu][" REDUCTION_STEP_TAG "][own_bulk]") {
    if (!step::bulk_copies_available()) {
        WARN("this GPU or build has no bulk copies (sm_90): the bulk kernel is not run");
        return;
    }
    check_uneven_warps();
}

TEST_CASE(REDUCTION_STEP_TAG ": the bulk kernel sums every shape of input", "[gpu][" REDUCTION_STEP_TAG "][own_bulk]") {
    if (!step::bulk_copies_available()) {
        WARN("this GPU or build has no bulk copies (sm_90): the bulk kernel is not run, step 12's loop sums every size");
        return;
    }
    check_bulk_kernel<reduction::Sum, std::int32_t>("int32");
    check_bulk_kernel<reduction::Max, std::int32_t>("int32");
    check_bulk_kernel<reduction::Min, std::int32_t>("int32");
    check_bulk_kernel<reduction::Sum, double>("float64");
}

TEST_CASE(REDUCTION_STEP_TAG ": from 2^30 elements reduce_op launches the bulk kernel", "[gpu][" REDUCTION_STEP_TAG "]") {
    const std::size_t threshold = std::size_t{1} << 30;
    for (int block : {64, 256, 1024}) {
        const auto loop = reinterpret_cast<void*>(step::kernel_for_block<reduction::Sum, std::int32_t>(block));
        const auto bulk = reinterpret_cast<void*>(step::kernel_for_block<reduction::Sum, std::int32_t, false, true>(block));
        for (std::size_t n : {threshold - 1, threshold, threshold + 17, std::size_t{3} << 30}) {
            const Launch launch = captured_launch(n, block);
            const bool expect_bulk = n >= threshold && step::bulk_copies_available();
            INFO(REDUCTION_STEP_TAG " int32 n=" << n << " block=" << block << ": " << launch.kernels << " launch(es), grid "
                                    << launch.grid << (launch.kernel == bulk ? ", the bulk kernel" : launch.kernel == loop ? ", the loop kernel" : ", another kernel"));
            REQUIRE(launch.kernels == 1);
            CHECK(launch.kernel == (expect_bulk ? bulk : loop));
            if (expect_bulk) CHECK(launch.grid == step::bulk_grid(n, block));
        }
    }
}
