#include "device_input.h"

namespace reduction {

template <class T>
DeviceInput<T> upload_input(InputPlan<T>& plan) {
    HostInput<T> host = plan.load();
    DeviceInput<T> input;
    input.n = host.values.size();
    input.description = std::move(host.description);
    input.reference = compute_reference(host.values);
    input.values = DeviceBuffer<T>(input.n);
    CUDA_CHECK(cudaMemcpy(input.values.get(), host.values.data(), input.n * sizeof(T), cudaMemcpyHostToDevice));
    return input;
}

MeasureSettings measure_settings(const Options& options) {
    return MeasureSettings{options.block, options.warmup, options.iters, options.flush_l2};
}

std::unique_ptr<L2Flusher> l2_flusher(const Options& options, const DeviceInfo& device) {
    return options.flush_l2 ? std::make_unique<L2Flusher>(device.l2_bytes) : nullptr;
}

template DeviceInput<std::int32_t> upload_input<std::int32_t>(InputPlan<std::int32_t>&);
template DeviceInput<float> upload_input<float>(InputPlan<float>&);
template DeviceInput<double> upload_input<double>(InputPlan<double>&);

}  // namespace reduction
