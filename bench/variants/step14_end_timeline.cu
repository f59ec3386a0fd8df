// Where the end of a step-14 call goes, phase by phase: the last block's thread 0 reads the SM's clock
// (clock64) at each step of the end, and the GPU's nanosecond clock (%globaltimer) tells, counted from
// the first block's start, when other events came (the latest of every block's: step14::latest).
// Medians of --calls calls; one CSV row per phase, then one per time. The kernel's stamps, and the
// names of its phases and times, are the edits of bench/variants.toml (step14_end_timeline,
// step14_pair_timeline).
#include "reduce.cuh"

#include "bench/ablation/lab.h"
#include "device_buffer.h"
#include "device_info.h"
#include "input.h"
#include "options.h"
#include "report.h"

#include <algorithm>
#include <iterator>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace {

using namespace reduction;

using Settings = lab::FloatProbe;  // --n, --calls, --type, --seed

long long median(std::vector<long long> values) {
    std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
    return values[values.size() / 2];
}

template <class T>
int run(const Settings& s, const char* type) {
    const std::vector<T> values = generate_input<T>(s.n, Pattern::random, s.seed);
    DeviceBuffer<T> in(s.n), out(1);
    DeviceBuffer<unsigned char> scratch(step14::scratch_bytes<T>(s.n, 256));
    CUDA_CHECK(cudaMemcpy(in.get(), values.data(), s.n * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
    constexpr int warm_up = 5;
    std::vector<std::vector<long long>> calls;
    for (std::size_t call = 0; call < s.calls + warm_up; ++call) {
        const unsigned long long latest[std::size(step14::latest)] = {}, earliest = ~0ull;
        const long long none[step14::stamp_count] = {};
        CUDA_CHECK(cudaMemcpyToSymbol(step14::latest, latest, sizeof latest));
        CUDA_CHECK(cudaMemcpyToSymbol(step14::earliest_start, &earliest, sizeof earliest));
        CUDA_CHECK(cudaMemcpyToSymbol(step14::stamps, none, sizeof none));
        step14::launch_exact_sum<T>(in.get(), s.n, out.get(), nullptr, reinterpret_cast<T*>(scratch.get()), 256, cudaStream_t{});
        CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<long long> stamps(step14::stamp_count);
        CUDA_CHECK(cudaMemcpyFromSymbol(stamps.data(), step14::stamps, sizeof none));
        if (stamps[step14::grid_stamp] == 0) throw std::runtime_error("the last block wrote no stamps");
        if (call >= warm_up) calls.push_back(stamps);
    }
    const long long grid = calls[0][step14::grid_stamp];
    for (std::size_t k = 0; k < std::size(step14::probe_phases); ++k) {  // stamps k and k + 1: cycles
        std::vector<long long> spans;
        for (const auto& c : calls) spans.push_back(c[k + 1] - c[k]);
        std::printf("%s,%zu,%lld,%s,%lld,cycles\n", type, s.n, grid, step14::probe_phases[k], median(spans));
    }
    for (std::size_t k = 0; k < std::size(step14::probe_times); ++k) {  // nanoseconds
        std::vector<long long> spans;
        for (const auto& c : calls) spans.push_back(c[step14::probe_time_stamps[k]]);
        std::printf("%s,%zu,%lld,%s,%lld,ns\n", type, s.n, grid, step14::probe_times[k], median(spans));
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return reduction::run_guarded([&] {
        const Settings s = lab::parse_float_probe(argc, argv, {std::size_t{1} << 16, 200},
                                                  "  step 14's end, phase by phase: the last block's thread 0, median of 200 calls (default);\n"
                                                  "  CSV: cycles of each phase, and nanoseconds from the first block's start\n");
        const DeviceInfo device = open_device(0);  // no GPU: one line and exit 3
        if (step14::grid_for(s.n, 256) == 1)
            throw UsageError("--n too small: one block sums it and rounds its own digits; "
                             "the timeline follows the last block of a grid of several");
        std::printf("%s", stamp_lines(device_stamp(device, argc, argv)).c_str());
        std::printf("type,n,grid,phase,median,unit\n");
        return s.float64 ? run<double>(s, "float64") : run<float>(s, "float32");
    });
}
