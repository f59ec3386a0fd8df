#include "input.h"
#include "launch_math.h"
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <system_error>

namespace reduction {
namespace {
// Pinned host memory: the GPU copies from it by DMA at full speed, and the copy returns once done.
template <class T>
std::unique_ptr<T, cudaError_t (*)(void*)> pinned_buffer(std::size_t count) {
    T* data = nullptr;
    if (count > 0) CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&data), count * sizeof(T), cudaHostAllocDefault));
    return {data, &cudaFreeHost};
}

// The next `count` raw values (little-endian targets); a file that shrank since its size was checked: exit 2.
template <class T>
void read_values(std::ifstream& file, const std::string& path, T* into, std::size_t count) {
    if (!file.read(reinterpret_cast<char*>(into), static_cast<std::streamsize>(count * sizeof(T))))
        throw UsageError("--input: reading '" + path + "' stopped early");
}
}  // namespace

std::uint64_t fresh_seed() {
    std::random_device device;
    return (std::uint64_t{device()} << 32) ^ device();
}

void draw_seed(InputSpec& input) {
    if (input.path.empty() && !input.seed) input.seed = fresh_seed();
}

template <class T>
InputSpec counted_input(InputSpec spec) {
    if (!spec.path.empty()) spec.n = input_file_count<T>(spec.path);
    return spec;
}

std::string size_text(std::size_t n) {
    return n == 0 || (n & (n - 1)) != 0 ? std::to_string(n) : "2^" + std::to_string(log2_exact(n));
}

template <class T>
std::vector<T> generate_input(std::size_t n, Pattern pattern, std::uint64_t seed) {
    std::vector<T> values(n);
    for_each_chunk(n, host_threads_for(n), [&](unsigned, std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) values[i] = formula::pattern_value<T>(pattern, seed, i);
    });
    return values;
}

template <class T>
Reference generated_reference(std::size_t n, Pattern pattern, std::uint64_t seed, OpKind op) {
    const ElementSource<T> source = [pattern, seed](std::size_t first, std::size_t count, T* out) {
        for (std::size_t k = 0; k < count; ++k) out[k] = formula::pattern_value<T>(pattern, seed, first + k);
    };
    return compute_reference<T>(n, source, op);
}

template <class T>
std::size_t input_file_count(const std::string& path) {
    const auto fail = [&](const std::string& why) { return UsageError("--input: '" + path + "' " + why); };
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) throw fail("is a directory, not a file");
    // a FIFO or a device would block the open or have no size: only regular files are read
    if (std::filesystem::exists(path, error) && !std::filesystem::is_regular_file(path, error))
        throw fail("is not a regular file");
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) throw UsageError("--input: cannot open '" + path + "'");
    const std::streamoff bytes = file.tellg();
    if (bytes < 0) throw UsageError("--input: cannot read the size of '" + path + "'");
    if (bytes == 0) throw fail("is empty; a reduction needs at least one element");
    constexpr auto element = static_cast<std::streamoff>(sizeof(T));
    if (bytes % element != 0)
        throw fail("has " + std::to_string(bytes) + " bytes, not a multiple of " + std::to_string(element) +
                   " (the size of one " + type_name<T>() + " element of --type)");
    return static_cast<std::size_t>(bytes / element);
}

template <class T>
std::vector<T> read_input_file(const std::string& path) {
    std::vector<T> values(input_file_count<T>(path));
    std::ifstream file(path, std::ios::binary);
    read_values(file, path, values.data(), values.size());
    return values;
}

template <class T>
Reference stream_input_file(const std::string& path, std::size_t n, OpKind op, T* const buffers[2], std::size_t chunk,
                            const ChunkConsumer<T>& consume) {
    if (chunk == 0) throw std::invalid_argument("stream_input_file: a chunk holds at least one element");
    std::ifstream file(path, std::ios::binary);
    StreamingReference<T> reference(op);
    std::size_t count = std::min(chunk, n);
    read_values(file, path, buffers[0], count);
    for (std::size_t first = 0, which = 0; first < n; which ^= 1) {
        // consumed and summed while the next is read; on an exception the futures' destructors wait for both
        const T* const values = buffers[which];
        std::future<void> consumed = std::async(std::launch::async, [&consume, values, first, count] {
            consume(values, first, count);
        });
        std::future<void> summed = std::async(std::launch::async, [&reference, values, count] {
            reference.add(values, count);
        });
        const std::size_t next_count = std::min(chunk, n - first - count);
        if (next_count > 0) read_values(file, path, buffers[which ^ 1], next_count);
        consumed.get();
        summed.get();
        first += count;
        count = next_count;
    }
    return reference.result();
}

template <class T>
DeviceInput<T> upload_input(const InputSpec& spec, OpKind op) {
    const std::size_t n = spec.n;
    DeviceInput<T> input{n, {}, DeviceBuffer<T>(n)};
    if (spec.path.empty()) {
        // the GPU writes the values (fill.cu), from the formula the reference regenerates them with
        fill_input(input.values.get(), 0, n, spec.pattern, spec.seed.value(), cudaStream_t{});
        input.reference = generated_reference<T>(n, spec.pattern, spec.seed.value(), op);  // while the GPU fills
        CUDA_CHECK(cudaStreamSynchronize(cudaStream_t{}));  // a failed fill surfaces here
        return input;
    }
    // two pinned chunks of 64 MiB: each read efficient, host memory far below any input worth streaming
    const std::size_t chunk = std::min(n, (std::size_t{64} << 20) / sizeof(T));
    const auto first_buffer = pinned_buffer<T>(chunk), second_buffer = pinned_buffer<T>(chunk);
    T* const buffers[2] = {first_buffer.get(), second_buffer.get()};
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    T* const destination = input.values.get();
    const std::string path = spec.path;
    input.reference = stream_input_file<T>(path, n, op, buffers, chunk, [=](const T* values, std::size_t first,
                                                                            std::size_t count) {
        CUDA_CHECK(cudaSetDevice(device));  // a new thread starts on device 0
        CUDA_CHECK(cudaMemcpy(destination + first, values, count * sizeof(T), cudaMemcpyHostToDevice));
    });
    return input;
}

#define REDUCTION_INSTANTIATE_INPUT(T)                                                                            \
    template std::vector<T> generate_input<T>(std::size_t, Pattern, std::uint64_t);                              \
    template Reference generated_reference<T>(std::size_t, Pattern, std::uint64_t, OpKind);                      \
    template InputSpec counted_input<T>(InputSpec);                                                              \
    template std::size_t input_file_count<T>(const std::string&);                                                \
    template std::vector<T> read_input_file<T>(const std::string&);                                              \
    template Reference stream_input_file<T>(const std::string&, std::size_t, OpKind, T* const[2], std::size_t,   \
                                            const ChunkConsumer<T>&);                                            \
    template DeviceInput<T> upload_input<T>(const InputSpec&, OpKind);
REDUCTION_INSTANTIATE_INPUT(std::int32_t)
REDUCTION_INSTANTIATE_INPUT(float)
REDUCTION_INSTANTIATE_INPUT(double)
}  // namespace reduction
