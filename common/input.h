// The values to sum: generated from a seed or read from a raw file, then put on the device with
// their reference. Every problem with --input is found before any GPU is looked for.
//
// Host memory does not grow with n: generated input is written by the GPU (fill_input) while the
// CPU regenerates it block by block for the reference, from the same formula (input_formula.h); a
// file is read in chunks, each summed and copied to the device while the next is read.
#pragma once

#include "device_buffer.h"
#include "element_type.h"
#include "input_formula.h"
#include "reference.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace reduction {

// What to reduce: n generated values (pattern, seed), or the values of a raw file.
struct InputSpec {
    std::size_t n = std::size_t{1} << 24;
    Pattern pattern = Pattern::random;
    std::optional<std::uint64_t> seed;  // unset: draw_seed() picks a fresh one, printed for replay
    std::string path;                   // set: read values from this file, whose size gives n
};

std::uint64_t fresh_seed();  // from std::random_device: a new input every run, printed for replay
void draw_seed(InputSpec& input);  // generated input without --seed gets a fresh_seed()

// The element count: n, or the file's from its size alone (checked as input_file_count does).
std::size_t input_count(const InputSpec& input, ElementType type);

// "pattern random, seed 42" or "file 'data.bin'".
std::string input_description(const InputSpec& input);

// "2^24" for a power of two, the decimal number otherwise: a count as a student would type it.
std::string size_text(std::size_t n);

// Element i depends only on (seed, i), so chunks are generated in parallel and any element can be
// recomputed on its own. The whole input in a host vector: for tests and small inputs.
template <class T>
std::vector<T> generate_input(std::size_t n, Pattern pattern, std::uint64_t seed);

// out[k] = element first + k of the input (pattern, seed), for k in [0, count), written by the GPU
// (fill.cu): the same values as generate_input. `first` places a small window anywhere in a virtual
// index space, so a window past 2^32 needs no buffer of that size. Asynchronous on `stream`.
template <class T>
void fill_input(T* out, std::size_t first, std::size_t count, Pattern pattern, std::uint64_t seed, cudaStream_t stream);

// The reference of generate_input<T>(n, pattern, seed), identical to compute_reference of that
// vector, with the values regenerated block by block on every core instead of stored.
template <class T>
Reference generated_reference(std::size_t n, Pattern pattern, std::uint64_t seed, OpKind op = OpKind::sum);

// The element count of a raw --input file of `type`, from its size alone (nothing is read):
// a missing, unreadable, empty or wrong-sized file throws UsageError naming the problem.
std::size_t input_file_count(const std::string& path, ElementType type);

// Raw little-endian values of T; checked as input_file_count does, then read whole.
template <class T>
std::vector<T> read_input_file(const std::string& path);

// What stream_input_file hands over: values[0..count) are elements [first, first + count) of the file.
template <class T>
using ChunkConsumer = std::function<void(const T* values, std::size_t first, std::size_t count)>;

// Reads the file (checked as input_file_count does) `chunk` elements at a time, into buffers[0]
// and buffers[1] in turn, each able to hold `chunk` elements. While one chunk is being read, the
// one before it is handed to consume() and summed into the reference, both on other threads; a
// buffer is read into again only once both are done with it. Returns the whole file's reference.
template <class T>
Reference stream_input_file(const std::string& path, OpKind op, T* const buffers[2], std::size_t chunk,
                            const ChunkConsumer<T>& consume);

template <class T>
struct DeviceInput {
    std::size_t n = 0;
    Reference reference;
    DeviceBuffer<T> values;
};

// The input on the current device, with its reference for `op`: generated input written by the
// GPU, a file streamed through two pinned chunks. Check device memory first.
template <class T>
DeviceInput<T> upload_input(const InputSpec& input, OpKind op);

}  // namespace reduction
