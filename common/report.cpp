#include "report.h"
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <ostream>

namespace reduction {
namespace {
std::string command_line(int argc, const char* const* argv) {
    std::string text;
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool plain = !arg.empty() && arg.find_first_of(" \t'\"$\\") == std::string::npos;
        text += (i ? " " : "") + (plain ? arg : "'" + arg + "'");
    }
    return text;
}

std::string env_or(const char* name, const std::string& fallback) {
    const char* value = std::getenv(name);
    return value && *value ? value : fallback;
}

// A JSON string literal: quotes, backslashes and control characters escaped.
std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (const unsigned char c : text) {
        char escaped[8] = {'\\', static_cast<char>(c), 0};
        if (c < 0x20) std::snprintf(escaped, sizeof escaped, "\\u%04x", unsigned{c});
        out += c < 0x20 || c == '"' || c == '\\' ? escaped : std::string(1, static_cast<char>(c));
    }
    return out + "\"";
}

// RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled.
std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}
}  // namespace

std::string format_number(const char* fmt, double value) {
    char text[64];
    std::snprintf(text, sizeof text, fmt, value);
    return text;
}

std::string count_text(std::size_t n) {
    const std::string power = size_text(n);
    return power.rfind("2^", 0) == 0 ? std::to_string(n) + " (" + power + ")" : power;
}

std::string footprint_text(std::size_t bytes, std::size_t l2_bytes) {
    const std::string l2 = std::to_string(l2_bytes >> 20) + " MiB L2";
    return format_number("%.1f MiB", static_cast<double>(bytes) / (1 << 20)) +
           (bytes <= l2_bytes ? ", fits in the " + l2 + " (repetitions may read it from L2)" : ", larger than the " + l2);
}

// One line: "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 50 MiB L2, 3352 GB/s peak), driver 13.0, runtime 13.0"
std::string describe(const DeviceInfo& device) {
    char text[512];
    std::snprintf(text, sizeof text, "%s (sm_%d%d, %d SMs, %zu MiB L2, %.0f GB/s peak), driver %s, runtime %s",
                  device.name.c_str(), device.cc_major, device.cc_minor, device.sm_count, device.l2_bytes >> 20,
                  device.peak_gbps, cuda_version_text(device.driver_version).c_str(),
                  cuda_version_text(device.runtime_version).c_str());
    return text;
}

const char* status_text(const Measurement& m) { return !m.verified ? "-" : m.verdict.pass ? "PASS" : "FAIL"; }
const char* l2_word(bool flushed) { return flushed ? "flushed" : "warm"; }
std::string timing_text(const MeasureSettings& settings) {
    const std::string iters = std::to_string(settings.iters);
    return "per call: median and min of " + iters + " calls queued behind a gate kernel, one event pair each; batch: " +
           iters + " calls in chunks of at most " + std::to_string(gate_chunk) +
           " queued behind the gate, one event pair per chunk, total time / count" +
           (settings.flush_l2 ? " (none with --flush-l2)" : "") +
           "; idle: median with the stream synchronised before each call; " + std::to_string(settings.warmup) +
           " warm-up calls first; L2 " + (settings.flush_l2 ? "flushed before each timed call" : "warm");
}

Stamp device_stamp(const DeviceInfo& device, int argc, const char* const* argv) {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
    Stamp stamp = {
        {"gpu", device.name},
        {"compute_capability", std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor)},
        {"sms", std::to_string(device.sm_count)},
        {"l2_mib", std::to_string(device.l2_bytes >> 20)},
        {"peak_gbps", format_number("%.1f", device.peak_gbps)},
        {"cuda_driver_api", cuda_version_text(device.driver_version)},
        {"cuda_runtime", cuda_version_text(device.runtime_version)},
    };
    // the driver's own version (e.g. 580.65.06), not in the runtime API: the results script passes nvidia-smi's
    if (const std::string driver = env_or("REDUCTION_NVIDIA_DRIVER", ""); !driver.empty())
        stamp.push_back({"nvidia_driver", driver});
    stamp.push_back({"date_utc", date});
    stamp.push_back({"commit", env_or("REDUCTION_COMMIT", "unknown")});
    stamp.push_back({"command", command_line(argc, argv)});
    return stamp;
}

Stamp make_stamp(const DeviceInfo& device, const InputSpec& input, const MeasureSettings& settings, int argc,
                 const char* const* argv) {
    Stamp stamp = device_stamp(device, argc, argv);
    stamp.insert(stamp.end(), {{"l2", l2_word(settings.flush_l2)}, {"timing", timing_text(settings)}});
    if (input.path.empty())
        stamp.insert(stamp.end(),
                     {{"pattern", pattern_name(input.pattern)}, {"seed", std::to_string(input.seed.value_or(0))}});
    else
        stamp.push_back({"input", input.path});
    stamp.push_back({"block", std::to_string(settings.block)});
    stamp.push_back({"iters", std::to_string(settings.iters) + " timed, " + std::to_string(settings.warmup) + " warm-up"});
    return stamp;
}

std::string stamp_lines(const Stamp& stamp) {
    std::string out;
    for (auto [key, value] : stamp) {
        std::replace_if(value.begin(), value.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
        out += "# " + key + ": " + value + "\n";
    }
    return out;
}

std::string& stamp_value(Stamp& stamp, const std::string& key) {
    for (auto& [name, value] : stamp)
        if (name == key) return value;
    return stamp.emplace_back(key, "").second;
}
std::string input_description(const Stamp& stamp) {
    Stamp copy = stamp;
    const std::string path = stamp_value(copy, "input");
    return path.empty() ? "pattern " + stamp_value(copy, "pattern") + ", seed " + stamp_value(copy, "seed")
                        : "file '" + path + "'";
}

namespace {
// One value of a result row, before it is written as a CSV cell or a JSON value.
struct Cell {
    enum Kind { text, integer, number } kind;
    std::string string;      // text; integer, already in decimal
    double real = 0;         // number: NaN or an infinity is "no value", a blank cell or null
    const char* fmt = "%.6g";
};

Cell text(const std::string& value) { return {Cell::text, value}; }
template <class I> Cell integer(I value) { return {Cell::integer, std::to_string(value)}; }
Cell number(double value, const char* fmt) { return {Cell::number, "", value, fmt}; }
// The one schema of a result row: CSV has the `csv` fields, JSON all, in this order (common/README.md lists them).
struct Field {
    const char* name;  // CSV column and JSON key
    bool csv;          // false: JSON only (the verdict's details)
    Cell (*value)(const Measurement& m);
};

const Field result_fields[] = {
    {"type", true, [](const Measurement& m) { return text(type_name(m.type)); }},
    {"op", true, [](const Measurement& m) { return text(m.op); }},
    {"n", true, [](const Measurement& m) { return integer(m.n); }},
    {"block", true, [](const Measurement& m) { return integer(m.block); }},
    {"step", true, [](const Measurement& m) { return text(m.step); }},
    {"change", true, [](const Measurement& m) { return text(m.change); }},
    {"time_median_ms", true, [](const Measurement& m) { return number(m.time.per_call.median_ms, "%.6f"); }},
    {"time_min_ms", true, [](const Measurement& m) { return number(m.time.per_call.min_ms, "%.6f"); }},
    {"gbps", true, [](const Measurement& m) { return number(m.gbps, "%.2f"); }},
    {"percent_of_peak", true, [](const Measurement& m) { return number(m.percent_of_peak, "%.2f"); }},
    {"batch_ms", true, [](const Measurement& m) { return number(m.time.batch_ms, "%.6f"); }},
    {"batch_gbps", true, [](const Measurement& m) { return number(m.batch_gbps, "%.2f"); }},
    {"idle_ms", true, [](const Measurement& m) { return number(m.time.idle.median_ms, "%.6f"); }},
    {"peak_gbps", true, [](const Measurement& m) { return number(m.peak_gbps, "%.1f"); }},
    {"l2", true, [](const Measurement& m) { return text(l2_word(m.l2_flushed)); }},
    {"status", true, [](const Measurement& m) { return text(status_text(m)); }},
    {"iters", false, [](const Measurement& m) { return integer(m.time.per_call.count); }},
    {"result", false, [](const Measurement& m) { return text(m.verdict.result); }},
    {"expected", false, [](const Measurement& m) { return text(m.verdict.expected); }},
    {"error", false, [](const Measurement& m) { return number(m.verdict.error, "%.6g"); }},
    {"tolerance", false, [](const Measurement& m) { return number(m.verdict.tolerance, "%.6g"); }},
    {"addition_depth", false, [](const Measurement& m) { return integer(m.depth); }},
    {"note", false, [](const Measurement& m) { return text(m.verdict.note); }},
};

// A cell as CSV (no value: blank) or as JSON (no value: null); text is quoted as each needs.
std::string cell_text(const Cell& cell, bool json) {
    if (cell.kind == Cell::number)
        return std::isfinite(cell.real) ? format_number(cell.fmt, cell.real) : json ? "null" : "";
    if (cell.kind == Cell::integer) return cell.string;
    return json ? json_string(cell.string) : csv_field(cell.string);
}

// write(name, cell) for every field (only the CSV ones if csv_only), then for each extra cell, joined by `separator`.
template <class Write>
std::string joined(const Measurement& m, const ExtraCells& extra, bool csv_only, const char* separator, Write write) {
    std::string out;
    bool first = true;  // not out.empty(): a blank first cell still needs its separator
    const auto add = [&](const std::string& name, const Cell& cell) {
        out += (first ? "" : separator) + write(name, cell);
        first = false;
    };
    for (const Field& field : result_fields)
        if (field.csv || !csv_only) add(field.name, field.value(m));
    for (const ExtraCell& cell : extra) add(cell.name, number(cell.value, cell.fmt));
    return out;
}
}  // namespace

std::string csv_header(const ExtraCells& extra) {
    return joined(Measurement{}, extra, true, ",", [](const std::string& name, const Cell&) { return name; });
}
std::string csv_row(const Measurement& m, const ExtraCells& extra) {
    return joined(m, extra, true, ",", [](const std::string&, const Cell& cell) { return cell_text(cell, false); });
}

std::string json_record(const Measurement& m, const ExtraCells& extra) {
    return "{" + joined(m, extra, false, ", ", [](const std::string& name, const Cell& cell) {
        return json_string(name) + ": " + cell_text(cell, true);
    }) + "}";
}

std::string json_document(const Stamp& stamp, const std::vector<std::string>& records) {
    std::string out = "{\"stamp\": {";
    for (std::size_t i = 0; i < stamp.size(); ++i)
        out += (i ? ", " : "") + json_string(stamp[i].first) + ": " + json_string(stamp[i].second);
    out += "},\n \"results\": [";
    for (std::size_t i = 0; i < records.size(); ++i) out += (i == 0 ? "\n  " : ",\n  ") + records[i];
    return out + (records.empty() ? "]}" : "\n ]}");
}

std::string json_document(const Stamp& stamp, const std::vector<Measurement>& rows) {
    std::vector<std::string> records;
    for (const Measurement& m : rows) records.push_back(json_record(m));
    return json_document(stamp, records);
}

void print_text(std::ostream& out, const Measurement& m, const DeviceInfo& device, const std::string& input_description) {
    out << m.step << ": " << m.change << "\n"
        << "  device     " << describe(device) << "\n"
        << "  input      " << count_text(m.n) << " " << type_name(m.type) << ", " << input_description << "; "
        << footprint_text(m.bytes, device.l2_bytes) << "\n"
        << "  block      " << m.block << " threads\n"
        << "  result     " << m.verdict.result << ", expected " << m.verdict.expected;
    // integers, and max and min (which pick one input element), are compared exactly
    if (m.type == ElementType::int32 || m.op != Sum::name)
        out << ", exact comparison";
    else
        out << ", error " << format_number("%.3g", m.verdict.error) << " <= tolerance "
            << format_number("%.3g", m.verdict.tolerance) << " = gamma_d * sum|x| with d = " << m.depth << " additions";
    out << "  " << status_text(m) << "\n";
    if (!m.verdict.note.empty()) out << "  note       " << m.verdict.note << "\n";
    out << "  per call   " << format_number("%.4f", m.time.per_call.median_ms) << " ms median, "
        << format_number("%.4f", m.time.per_call.min_ms) << " ms min over " << m.time.per_call.count
        << " calls queued back to back, L2 " << (m.l2_flushed ? "flushed before each" : "warm") << "\n"
        << "  batch      "
        << (std::isfinite(m.time.batch_ms) ? format_number("%.4f", m.time.batch_ms) + " ms per call, " +
                                                 format_number("%.1f", m.batch_gbps) + " GB/s, with no event between calls"
                                           : std::string("none: a flush between calls would be timed"))
        << "\n  idle GPU   " << format_number("%.4f", m.time.idle.median_ms)
        << " ms median per call when the GPU waits for it (launch latency included)\n"
        << "  bandwidth  " << format_number("%.1f", m.gbps) << " GB/s per call = " << format_number("%.1f", m.percent_of_peak)
        << "% of the " << format_number("%.0f", device.peak_gbps) << " GB/s peak\n";
}

void report_result(OutputFormat format, const Measurement& m, const DeviceInfo& device, const InputSpec& input,
                   const MeasureSettings& settings, int argc, const char* const* argv) {
    const Stamp stamp = make_stamp(device, input, settings, argc, argv);
    switch (format) {
        case OutputFormat::text: print_text(std::cout, m, device, input_description(stamp)); break;
        case OutputFormat::csv: std::cout << stamp_lines(stamp) << csv_header() << "\n" << csv_row(m) << "\n"; break;
        case OutputFormat::json: std::cout << json_document(stamp, {m}) << "\n"; break;
    }
}
}  // namespace reduction
