#include "host_input.h"

namespace reduction {

template <class T>
InputPlan<T>::InputPlan(const Options& options) : options_(options) {
    if (!options.input_path.empty()) {
        from_file_ = read_input_file<T>(options.input_path);
        n_ = from_file_.size();
    } else {
        n_ = options.n;
        seed_ = options.seed ? *options.seed : fresh_seed();
    }
}

template <class T>
HostInput<T> InputPlan<T>::load() {
    if (!options_.input_path.empty()) return {std::move(from_file_), "file '" + options_.input_path + "'"};
    return {generate_input<T>(n_, options_.pattern, seed_),
            std::string("pattern ") + pattern_name(options_.pattern) + ", seed " + std::to_string(seed_)};
}

template class InputPlan<std::int32_t>;
template class InputPlan<float>;
template class InputPlan<double>;

}  // namespace reduction
