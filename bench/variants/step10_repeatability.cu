// How many different results do 1,000 calls on one float input give? Step 10 adds its partials in
// a fixed order; the atomicAdd variant in the order the blocks finish. One CSV row each; --help: usage.
#include "reduce.cuh"  // step 10's, atomic_partials.cuh appended (bench/variants.toml)

#include "bench/ablation/lab.h"
#include "device_buffer.h"
#include "device_info.h"
#include "input.h"
#include "options.h"
#include "report.h"

#include <cstdio>
#include <set>

namespace {

using namespace reduction;

using Settings = lab::FloatProbe;  // --n, --calls, --type, --seed

// Calls `reduce` s.calls times on one input and scratch; prints how many distinct results it gave, their range.
template <class T, class Reduce>
void report(const char* variant, const char* type, const Settings& s, Reduce reduce, const T* in, std::size_t scratch_bytes) {
    DeviceBuffer<unsigned char> scratch(scratch_bytes);
    DeviceBuffer<T> out(1);
    if (scratch.size() > 0) CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
    std::set<std::string> seen;
    double smallest = 0, largest = 0;
    for (std::size_t call = 0; call < s.calls; ++call) {
        reduce(in, s.n, out.get(), reinterpret_cast<T*>(scratch.get()), 256, cudaStream_t{});
        T value{};
        CUDA_CHECK(cudaMemcpy(&value, out.get(), sizeof(T), cudaMemcpyDeviceToHost));
        smallest = seen.empty() ? value : std::min<double>(smallest, value);
        largest = seen.empty() ? value : std::max<double>(largest, value);
        seen.insert(std::string(reinterpret_cast<const char*>(&value), sizeof(T)));  // its bits
    }
    std::printf("%s,%s,%zu,%zu,%zu,%.17g,%.17g\n", variant, type, s.n, s.calls, seen.size(), smallest, largest);
}

template <class T>
int run(const Settings& s, const char* type) {  // 0: the distinct results are the finding, not a failure
    const std::vector<T> values = generate_input<T>(s.n, Pattern::random, s.seed);
    DeviceBuffer<T> in(s.n);
    CUDA_CHECK(cudaMemcpy(in.get(), values.data(), s.n * sizeof(T), cudaMemcpyHostToDevice));
    report<T>("step10_single_pass", type, s, &step10::reduce<T>, in.get(), step10::scratch_bytes<T>(s.n, 256));
    report<T>("step10_atomic_add", type, s, &atomic_partials::reduce<T>, in.get(), 0);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return reduction::run_guarded([&] {
        const Settings s = lab::parse_float_probe(argc, argv, {std::size_t{1} << 24, 1000},
                                                  "  1,000 calls (default) of step 10 and of its atomicAdd variant on one input;\n"
                                                  "  CSV: how many distinct results each gave, and their range\n");
        const DeviceInfo device = open_device(0);  // no GPU: one line and exit 3
        std::printf("%s", stamp_lines(device_stamp(device, argc, argv)).c_str());
        std::printf("variant,type,n,calls,distinct_results,smallest,largest\n");
        return s.float64 ? run<double>(s, "float64") : run<float>(s, "float32");
    });
}
