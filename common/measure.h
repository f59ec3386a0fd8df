// Running one step on a device buffer: once to verify, then timed, then verified again.
#pragma once

#include "cuda_check.h"
#include "device_buffer.h"
#include "device_info.h"
#include "reference.h"
#include "step_api.h"
#include "timer.h"

#include <cstddef>
#include <string>
#include <vector>

namespace reduction {

// A step bound to one input and block size, owning the scratch and output it needs.
template <class T>
class StepRun {
public:
    StepRun(const StepApi& step, const T* device_input, std::size_t n, int block)
        : step_(step), input_(device_input), n_(n), block_(block),
          scratch_(step.scratch_bytes(element_type_of<T>(), n, block)), output_(1) {}

    // The whole reduction, every launch; what the timer measures.
    void launch(cudaStream_t stream) {
        reduce_fn<T>(step_)(input_, n_, output_.get(), reinterpret_cast<T*>(scratch_.get()), block_, stream);
    }

    // Fills the output with 0xFF bytes (NaN for floats, -1 for int32), runs once, reads the result:
    // a step that never writes its output cannot pass by leaving an old right answer behind.
    T run_once(cudaStream_t stream) {
        CUDA_CHECK(cudaMemsetAsync(output_.get(), 0xFF, sizeof(T), stream));
        launch(stream);
        return read_result(stream);
    }

    T read_result(cudaStream_t stream) {
        T value{};
        CUDA_CHECK(cudaMemcpyAsync(&value, output_.get(), sizeof(T), cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        return value;
    }

    std::size_t addition_depth() const { return step_.addition_depth(n_, block_); }

private:
    const StepApi& step_;
    const T* input_;
    std::size_t n_;
    int block_;
    DeviceBuffer<unsigned char> scratch_;
    DeviceBuffer<T> output_;
};

struct MeasureSettings {
    int block = 256;
    int warmup = 5;
    int iters = 100;
    bool flush_l2 = false;
};

struct Measurement {
    std::string step;
    std::string change;
    ElementType type = ElementType::int32;
    std::size_t n = 0;
    int block = 0;
    std::size_t depth = 0;
    TimingStats time;
    double gbps = 0;
    double percent_of_peak = 0;
    bool l2_flushed = false;
    Verdict verdict;            // the first run's, or the timed runs' if only those failed
};

// Device bytes a step needs besides its input: scratch and the one output value.
std::size_t step_working_bytes(const StepApi& step, ElementType type, std::size_t n, int block);

// Device bytes to measure `steps` one after another on one input of n elements: the input, the
// largest step's scratch and output, and the L2 flush buffer (0 when the L2 stays warm).
std::size_t device_bytes_needed(const std::vector<const StepApi*>& steps, ElementType type, std::size_t n, int block,
                                std::size_t flush_bytes);

template <class T>
Measurement measure_step(const StepApi& step, const T* device_input, std::size_t n, const Reference& reference,
                         const MeasureSettings& settings, const DeviceInfo& device, L2Flusher* flusher,
                         cudaStream_t stream);

}  // namespace reduction
