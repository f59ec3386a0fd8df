// The element types a reduction can run on, named as on the command line.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace reduction {
enum class ElementType { int32, float32, float64 };
inline constexpr const char* accepted_types = "int32, float32, float64";
// A run's ElementType for its template type T: written once into a result row, for the report (measure.h).
template <class T> constexpr ElementType element_type_of();
template <> constexpr ElementType element_type_of<std::int32_t>() { return ElementType::int32; }
template <> constexpr ElementType element_type_of<float>() { return ElementType::float32; }
template <> constexpr ElementType element_type_of<double>() { return ElementType::float64; }
// Calls f(T{}) with T the C++ type behind `type`: the one switch from run-time type to template.
template <class F>
decltype(auto) dispatch_type(ElementType type, F&& f) {
    switch (type) {
        case ElementType::int32: return f(std::int32_t{});
        case ElementType::float32: return f(float{});
        case ElementType::float64: break;
    }
    return f(double{});
}

template <class T>
constexpr const char* type_name() {  // T's name on the command line, for messages of a run that knows T
    if constexpr (std::is_integral_v<T>) return "int32";
    else if constexpr (sizeof(T) == 4) return "float32";
    else return "float64";
}

inline const char* type_name(ElementType type) {  // "int32", "float32", "float64": the flag's values, a report's cells
    constexpr const char* names[] = {"int32", "float32", "float64"};
    return names[static_cast<int>(type)];
}

inline std::size_t type_size(ElementType type) {  // bytes per element, for a plan made before a run knows T (compare)
    constexpr std::size_t sizes[] = {sizeof(std::int32_t), sizeof(float), sizeof(double)};
    return sizes[static_cast<int>(type)];
}
}  // namespace reduction
