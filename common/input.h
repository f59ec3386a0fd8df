// The values to sum: generated from a seed or read from a raw file, then put on the device with
// their reference. Every problem with --input is found before any GPU is looked for.
//
// Host memory does not grow with n: generated input is written by the GPU (fill.h) while the CPU
// regenerates it block by block for the reference, from the same formula (input_formula.h); a
// file is read in chunks, each summed and copied to the device while the next is read.
#pragma once

#include "device_buffer.h"
#include "element_type.h"
#include "pattern.h"
#include "reference.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace reduction {

struct Options;

// Element i depends only on (seed, i), so chunks are generated in parallel and any element can be
// recomputed on its own. The whole input in a host vector: for tests and small inputs.
template <class T>
std::vector<T> generate_input(std::size_t n, Pattern pattern, std::uint64_t seed);

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

std::uint64_t fresh_seed();  // from std::random_device: a new input every run, printed for replay

// The element count the options ask for: --n, or the --input file's (checked as above).
std::size_t input_count(const Options& options, ElementType type);

// "pattern random, seed 42" or "file 'data.bin'". Generated input needs options.seed set.
std::string input_description(const Options& options);

template <class T>
struct DeviceInput {
    std::size_t n = 0;
    Reference reference;
    DeviceBuffer<T> values;
};

// Puts the values the options ask for on the device and computes their reference: generated
// input is written by the GPU, a file is streamed through two pinned chunks. Host memory stays
// small whatever n is. Check device memory first.
template <class T>
DeviceInput<T> upload_input(const Options& options);

}  // namespace reduction
