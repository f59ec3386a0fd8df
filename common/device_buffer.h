// An owning, move-only handle to device memory: freed on every exit path, exceptions included.
#pragma once
#include "cuda_check.h"
#include <cstddef>
#include <utility>

namespace reduction {
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count) : count_(count) {
        if (count_ > 0) CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()));
    }
    ~DeviceBuffer() {
        if (data_) cudaFree(data_);  // never throw from a destructor
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        std::swap(data_, other.data_);  // the other's destructor frees what this one held
        std::swap(count_, other.count_);
        return *this;
    }
    T* get() { return data_; }
    const T* get() const { return data_; }
    std::size_t size() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }
private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
};
}  // namespace reduction
