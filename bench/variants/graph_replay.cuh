// Step 09's two launches captured once into a CUDA graph and replayed: one cudaGraphLaunch per call
// instead of two launches, so the second kernel can follow the first without a round of launch
// processing in between. The sums are step 09's: the same kernels, grid and order.
//
// The capture runs step 09's reduce() once on a private non-blocking stream: the harness calls
// reduce() on the legacy default stream, which cannot be captured (and whose implicit
// synchronisation must not reach into a capture). A graph holds its arguments as captured: it is
// kept for one (in, n, out, scratch, block) per element type and captured again, the old one
// destroyed, when any of them changes. Device pointers are unique across devices (unified
// addressing), so the key also tells devices apart.
#include "cuda_check.h"

#include <cstddef>
#include <tuple>

namespace graph_replay {

inline constexpr const char* name = "step09_graph";
inline constexpr const char* change = "step09's two launches captured once into a CUDA graph, replayed per call";

inline cudaStream_t capture_stream() {  // created on first use, kept for the process
    static const cudaStream_t stream = [] {
        cudaStream_t created = nullptr;
        CUDA_CHECK(cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking));
        return created;
    }();
    return stream;
}

template <class T>
void reduce(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    using Arguments = std::tuple<const T*, std::size_t, T*, T*, int>;
    static cudaGraphExec_t exec = nullptr;  // one per element type, and what it was captured with
    static Arguments captured;
    const Arguments arguments{in, n, out, scratch, block};
    if (exec == nullptr || arguments != captured) {
        // Asked before capturing: a bad block size throws here, and step 09's first grid_for()
        // makes occupancy queries that have no place inside a capture.
        (void)step09::kernel_for_block<T>(block);
        (void)step09::grid_for(n, block);
        if (exec != nullptr) CUDA_CHECK(cudaGraphExecDestroy(exec));  // one still in flight completes, then is freed (cuda.h)
        exec = nullptr;
        const cudaStream_t capturing = capture_stream();
        cudaGraph_t graph = nullptr;
        CUDA_CHECK(cudaStreamBeginCapture(capturing, cudaStreamCaptureModeThreadLocal));
        try {
            step09::reduce<T>(in, n, out, scratch, block, capturing);  // recorded, not run
        } catch (...) {  // leave the stream out of capture mode, then report the first error
            if (cudaStreamEndCapture(capturing, &graph) == cudaSuccess && graph != nullptr) cudaGraphDestroy(graph);
            throw;
        }
        CUDA_CHECK(cudaStreamEndCapture(capturing, &graph));
        const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
        CUDA_CHECK(cudaGraphDestroy(graph));  // the instantiated graph does not need it
        if (instantiated != cudaSuccess) exec = nullptr;
        CUDA_CHECK(instantiated);
        captured = arguments;
    }
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
}

// Step 09's bookkeeping, unchanged.
template <class T>
std::size_t scratch_bytes(std::size_t n, int block) { return step09::scratch_bytes<T>(n, block); }

inline std::size_t addition_depth(std::size_t n, int block) { return step09::addition_depth(n, block); }

}  // namespace graph_replay
