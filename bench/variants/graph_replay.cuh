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

namespace graph_replay {

inline constexpr const char* name = "step09_graph";
inline constexpr const char* change = "step09's two launches captured once into a CUDA graph, replayed per call";

struct Arguments {  // what a graph was captured with
    const void* in = nullptr;
    std::size_t n = 0;
    const void* out = nullptr;
    const void* scratch = nullptr;
    int block = 0;
    bool operator==(const Arguments& o) const {
        return in == o.in && n == o.n && out == o.out && scratch == o.scratch && block == o.block;
    }
};

inline cudaStream_t capture_stream() {
    static const cudaStream_t stream = [] {
        cudaStream_t created = nullptr;
        CUDA_CHECK(cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking));
        return created;
    }();
    return stream;
}

class CapturedCall {
public:
    // The graph for `arguments`, capturing record(stream) into a new one if they changed.
    template <class Record>
    cudaGraphExec_t exec_for(const Arguments& arguments, Record record) {
        if (exec_ != nullptr && arguments == arguments_) return exec_;
        if (exec_ != nullptr) {
            CUDA_CHECK(cudaGraphExecDestroy(exec_));  // one still in flight completes, then is freed (cuda.h)
            exec_ = nullptr;
        }
        const cudaStream_t stream = capture_stream();
        CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        try {
            record(stream);
        } catch (...) {  // leave the stream out of capture mode, then report the first error
            cudaGraph_t partial = nullptr;
            if (cudaStreamEndCapture(stream, &partial) == cudaSuccess && partial != nullptr) cudaGraphDestroy(partial);
            throw;
        }
        cudaGraph_t graph = nullptr;
        CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
        const cudaError_t instantiated = cudaGraphInstantiate(&exec_, graph, 0);
        CUDA_CHECK(cudaGraphDestroy(graph));  // the instantiated graph does not need it
        if (instantiated != cudaSuccess) exec_ = nullptr;
        CUDA_CHECK(instantiated);
        arguments_ = arguments;
        return exec_;
    }

private:
    cudaGraphExec_t exec_ = nullptr;
    Arguments arguments_;
};

template <class T>
void reduce(const T* in, std::size_t n, T* out, T* scratch, int block, cudaStream_t stream) {
    static CapturedCall captured;  // one per element type
    // Asked before capturing: a bad block size throws here, and step 09's first grid_for() makes
    // occupancy queries that have no place inside a capture.
    (void)step09::kernel_for_block<T>(block);
    (void)step09::grid_for(n, block);
    const cudaGraphExec_t exec = captured.exec_for(Arguments{in, n, out, scratch, block}, [&](cudaStream_t capturing) {
        step09::reduce<T>(in, n, out, scratch, block, capturing);  // recorded, not run
    });
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
}

// Step 09's bookkeeping, unchanged.

template <class T>
std::size_t scratch_bytes(std::size_t n, int block) { return step09::scratch_bytes<T>(n, block); }

inline std::size_t addition_depth(std::size_t n, int block) { return step09::addition_depth(n, block); }

}  // namespace graph_replay
