// Dynamic shared memory viewed as an array of T.
//
// `extern __shared__ T sdata[];` cannot be written inside a template: each instantiation would
// redeclare the same symbol with another type. One untyped array, aligned for the widest type
// the course uses, reinterpreted per T, is the usual way around it.
#pragma once

template <class T>
__device__ __forceinline__ T* dynamic_shared() {
    extern __shared__ __align__(sizeof(double)) unsigned char dynamic_shared_bytes[];
    return reinterpret_cast<T*>(dynamic_shared_bytes);
}
