// CSV fields and numbers for the sweep and check files.
//
// Fields follow RFC 4180: a field holding a comma, a double quote, CR or LF is
// written between double quotes with inner quotes doubled. Numbers are written
// in the shortest text that parses back to the same double, so a results file
// read back (resume) gives bit-identical statistics.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/csv_reader.h"

namespace goodsim::app::sweep {

// `field`, quoted when it needs to be.
std::string csv_field(std::string_view field);

// Joins fields (each escaped) with commas, without a line ending.
std::string csv_join(const std::vector<std::string>& fields);

using scenario::CsvRecord;

// The complete records of `text` (sim/scenario/csv_reader.h: quoted fields may
// hold line breaks). A last record without its LF is incomplete (e.g. cut by a
// kill) and is not returned; `complete_bytes` receives the length of the
// prefix of `text` made of complete records. Throws scenario::CsvSyntaxError.
std::vector<CsvRecord> parse_csv(std::string_view text, size_t& complete_bytes);

// Shortest round-trip text of `v` ("0.8037", "1296000000000", "1e+20");
// NaN and missing values are the empty string.
std::string format_number(double v);
std::string format_number(const std::optional<double>& v);

// The double in `text` (the whole text, as written by format_number), or
// nullopt when it is not a finite number.
std::optional<double> parse_number(std::string_view text);

}  // namespace goodsim::app::sweep
