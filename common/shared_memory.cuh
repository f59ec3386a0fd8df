// Dynamic shared memory as an array of T: `extern __shared__ T sdata[];` cannot be written in a template
// (each instantiation would redeclare the symbol with another type), so one untyped array is reinterpreted.
#pragma once

template <class T>
__device__ __forceinline__ T* dynamic_shared() {
    extern __shared__ __align__(sizeof(double)) unsigned char dynamic_shared_bytes[];
    return reinterpret_cast<T*>(dynamic_shared_bytes);
}
