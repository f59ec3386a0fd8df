// Everything written about measurements: a step's text block, the CSV and JSON writers, the "# key: value" stamp.
#pragma once
#include "measure.h"
#include "options.h"
#include <iosfwd>
#include <utility>

namespace reduction {
std::string format_number(const char* fmt, double value);  // printf-style: format_number("%.2f", 1.5) == "1.50"
std::string count_text(std::size_t n);  // "16777216 (2^24)" for powers of two, "1000003" otherwise
std::string footprint_text(std::size_t bytes, std::size_t l2_bytes);  // "64.0 MiB, larger than the 50 MiB L2"
// One line: "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 50 MiB L2, 3352 GB/s peak), driver 13.0, runtime 13.0"
std::string describe(const DeviceInfo& device);
const char* status_text(const Measurement& m);  // "PASS", "FAIL", or "-" for a row that is not checked
const char* l2_word(bool flushed);               // "flushed" or "warm"
std::string timing_text(const MeasureSettings& settings);  // the timing method in one line

using Stamp = std::vector<std::pair<std::string, std::string>>;  // "# key: value" lines above a CSV header
// Where, when, what: GPU, versions, date, commit, command; device_stamp plus how a reduction was run.
Stamp device_stamp(const DeviceInfo& device, int argc, const char* const* argv);
Stamp make_stamp(const DeviceInfo& device, const InputSpec& input, const MeasureSettings& settings, int argc,
                 const char* const* argv);
std::string stamp_lines(const Stamp& stamp);  // newlines inside a value become spaces
std::string& stamp_value(Stamp& stamp, const std::string& key);  // the value of `key`, added empty if missing
std::string input_description(const Stamp& stamp);  // the stamp's input: "pattern random, seed 42" or "file 'data.bin'"

// A tool's own numbers after a row's fields (compare: its speed-ups), each a name, a value (NaN: none, written as a
// blank CSV cell or JSON null) and its printf format.
struct ExtraCell {
    std::string name;
    double value;
    const char* fmt;
};
using ExtraCells = std::vector<ExtraCell>;

std::string csv_header(const ExtraCells& extra = {});  // only the names of `extra` are read
std::string csv_row(const Measurement& m, const ExtraCells& extra = {});
std::string json_record(const Measurement& m, const ExtraCells& extra = {});
std::string json_document(const Stamp& stamp, const std::vector<Measurement>& rows);  // {"stamp": .., "results": ..}
std::string json_document(const Stamp& stamp, const std::vector<std::string>& records);  // records from json_record
void print_text(std::ostream& out, const Measurement& m, const DeviceInfo& device, const std::string& input_description);
// A step's result on stdout in the format asked for: the text block, or the stamp and a CSV row, or a JSON document.
void report_result(OutputFormat format, const Measurement& m, const DeviceInfo& device, const InputSpec& input,
                   const MeasureSettings& settings, int argc, const char* const* argv);
}  // namespace reduction
