#include "report.h"

#include "text_format.h"

#include <cstdio>
#include <ostream>

namespace reduction {

const char* status_text(const Measurement& m) { return m.verdict.pass ? "PASS" : "FAIL"; }

std::string count_text(std::size_t n) {
    const std::string power = size_text(n);
    return power[0] == '2' && power[1] == '^' ? std::to_string(n) + " (" + power + ")" : power;
}

std::string footprint_text(std::size_t bytes, std::size_t l2_bytes) {
    const double mib = static_cast<double>(bytes) / (1 << 20);
    const std::string l2 = std::to_string(l2_bytes >> 20) + " MiB L2";
    return format_number("%.1f MiB", mib) + (bytes <= l2_bytes ? ", fits in the " + l2 + " (repetitions may read it from L2)"
                                                         : ", larger than the " + l2);
}

void print_text(std::ostream& out, const Measurement& m, const DeviceInfo& device, const std::string& input_description) {
    const std::size_t bytes = m.n * type_size(m.type);
    out << m.step << ": " << m.change << "\n"
        << "  device     " << describe(device) << "\n"
        << "  input      " << count_text(m.n) << " " << type_name(m.type) << ", " << input_description << "; "
        << footprint_text(bytes, device.l2_bytes) << "\n"
        << "  block      " << m.block << " threads\n"
        << "  result     " << m.verdict.result << ", expected " << m.verdict.expected;
    if (m.type == ElementType::int32)
        out << ", exact comparison";
    else
        out << ", error " << format_number("%.3g", m.verdict.error) << " <= tolerance " << format_number("%.3g", m.verdict.tolerance)
            << " = gamma_d * sum|x| with d = " << m.depth << " additions";
    out << "  " << status_text(m) << "\n";
    if (!m.verdict.note.empty()) out << "  note       " << m.verdict.note << "\n";
    out << "  time       " << format_number("%.4f", m.time.median_ms) << " ms median, " << format_number("%.4f", m.time.min_ms)
        << " ms min over " << m.time.count << " repetitions, L2 " << (m.l2_flushed ? "flushed before each" : "warm")
        << "\n"
        << "  bandwidth  " << format_number("%.1f", m.gbps) << " GB/s = " << format_number("%.1f", m.percent_of_peak) << "% of the "
        << format_number("%.0f", device.peak_gbps) << " GB/s peak\n";
}

std::string csv_header() {
    return "step,type,n,block,time_median_ms,time_min_ms,gbps,percent_of_peak,l2,result,expected,error,tolerance,status";
}

std::string csv_row(const Measurement& m) {
    return m.step + "," + type_name(m.type) + "," + std::to_string(m.n) + "," + std::to_string(m.block) + "," +
           format_number("%.6f", m.time.median_ms) + "," + format_number("%.6f", m.time.min_ms) + "," + format_number("%.2f", m.gbps) + "," +
           format_number("%.2f", m.percent_of_peak) + "," + (m.l2_flushed ? "flushed" : "warm") + "," + m.verdict.result + "," +
           m.verdict.expected + "," + format_number("%.6g", m.verdict.error) + "," + format_number("%.6g", m.verdict.tolerance) + "," +
           status_text(m);
}

std::string json_record(const Measurement& m, const DeviceInfo& device, const std::string& input_description) {
    return std::string("{") + "\"step\": " + json_string(m.step) + ", \"type\": " + json_string(type_name(m.type)) +
           ", \"n\": " + std::to_string(m.n) + ", \"block\": " + std::to_string(m.block) +
           ", \"time_median_ms\": " + json_number(m.time.median_ms) + ", \"time_min_ms\": " + json_number(m.time.min_ms) +
           ", \"iters\": " + std::to_string(m.time.count) + ", \"gbps\": " + json_number(m.gbps) +
           ", \"percent_of_peak\": " + json_number(m.percent_of_peak) + ", \"peak_gbps\": " + json_number(device.peak_gbps) +
           ", \"l2\": " + json_string(m.l2_flushed ? "flushed" : "warm") + ", \"result\": " + json_string(m.verdict.result) +
           ", \"expected\": " + json_string(m.verdict.expected) + ", \"error\": " + json_number(m.verdict.error) +
           ", \"tolerance\": " + json_number(m.verdict.tolerance) + ", \"addition_depth\": " + std::to_string(m.depth) +
           ", \"status\": " + json_string(status_text(m)) + ", \"note\": " + json_string(m.verdict.note) +
           ", \"input\": " + json_string(input_description) + ", \"device\": " + json_string(device.name) +
           ", \"driver\": " + json_string(cuda_version_text(device.driver_version)) +
           ", \"runtime\": " + json_string(cuda_version_text(device.runtime_version)) + "}";
}

}  // namespace reduction
