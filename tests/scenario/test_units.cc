#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/scenario/units.h"

namespace {

using goodsim::core::Duration;
using nlohmann::json;
namespace sc = goodsim::scenario;

// The message of the invalid_argument thrown by f(), or "" if nothing was thrown.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("parse_duration: every unit", "[scenario][units]") {
  CHECK(sc::parse_duration("5ns") == Duration::nanos(5));
  CHECK(sc::parse_duration("3us") == Duration::micros(3));
  CHECK(sc::parse_duration("3\u00b5s") == Duration::micros(3));
  CHECK(sc::parse_duration("250ms") == Duration::millis(250));
  CHECK(sc::parse_duration("30s") == Duration::seconds(30));
  CHECK(sc::parse_duration("1.5m") == Duration::seconds(90));
  CHECK(sc::parse_duration("90min") == Duration::minutes(90));
  CHECK(sc::parse_duration("36h") == Duration::hours(36));
  CHECK(sc::parse_duration("7d") == Duration::days(7));
  CHECK(sc::parse_duration("2w") == Duration::days(14));
  CHECK(sc::parse_duration("1y") == Duration::days(365));
  CHECK(sc::parse_duration("0s") == Duration::zero());
  CHECK(sc::parse_duration("0.1s") == Duration::millis(100));
  CHECK(sc::parse_duration("1e3s") == Duration::seconds(1000));
  CHECK(sc::parse_duration(".5h") == Duration::minutes(30));
}

TEST_CASE("parse_duration: spacing and compound forms", "[scenario][units]") {
  CHECK(sc::parse_duration(" 36 h ") == Duration::hours(36));
  CHECK(sc::parse_duration("1h30m") == Duration::minutes(90));
  CHECK(sc::parse_duration("1h 30m") == Duration::minutes(90));
  CHECK(sc::parse_duration("1d 2h 3m 4s") ==
        Duration::days(1) + Duration::hours(2) + Duration::minutes(3) + Duration::seconds(4));
  CHECK(sc::parse_duration("1y 1ns") == Duration::days(365) + Duration::nanos(1));
  CHECK(sc::parse_duration("2m 30.5s") == Duration::millis(150'500));
}

TEST_CASE("parse_duration: errors say what was expected", "[scenario][units]") {
  const std::string expected = R"(expected a duration like "30s", "36h" or "1y")";
  for (const char* bad : {"", "  ", "abc", "s", "30", "1h30", "--5s", "nan", "infs", "1.5.3s"}) {
    INFO(bad);
    CHECK_THAT(error_of([&] { sc::parse_duration(bad); }), Catch::Contains(expected));
  }
  CHECK_THAT(error_of([] { sc::parse_duration("3parsecs"); }),
             Catch::Contains(R"(unknown unit "parsecs")") && Catch::Contains("got \"3parsecs\""));
  CHECK_THAT(error_of([] { sc::parse_duration("30S"); }), Catch::Contains("unknown unit \"S\""));
  CHECK_THAT(error_of([] { sc::parse_duration("30"); }), Catch::Contains("missing unit"));
  CHECK_THAT(error_of([] { sc::parse_duration("-5s"); }),
             Catch::Contains("expected a non-negative duration, got \"-5s\""));
  CHECK_THAT(error_of([] { sc::parse_duration("300y"); }), Catch::Contains("292 years"));
  CHECK_THAT(error_of([] { sc::parse_duration("1e400s"); }), Catch::Contains(expected));
  CHECK_THAT(error_of([] { sc::parse_duration("30m1h"); }), Catch::Contains("larger units first"));
  CHECK_THAT(error_of([] { sc::parse_duration("1h1h"); }), Catch::Contains("larger units first"));
}

TEST_CASE("parse_bandwidth_bps: bits, bytes and prefixes", "[scenario][units]") {
  CHECK(sc::parse_bandwidth_bps("5Gbps") == 5e9);
  CHECK(sc::parse_bandwidth_bps("400Mbps") == 400e6);
  CHECK(sc::parse_bandwidth_bps("100Gb/s") == 100e9);
  CHECK(sc::parse_bandwidth_bps("10Gbit/s") == 10e9);
  CHECK(sc::parse_bandwidth_bps("1.6Tbps") == Approx(1.6e12));
  CHECK(sc::parse_bandwidth_bps("25GB/s") == 200e9);
  CHECK(sc::parse_bandwidth_bps("25GBps") == 200e9);
  CHECK(sc::parse_bandwidth_bps("100kbps") == 100e3);
  CHECK(sc::parse_bandwidth_bps("100Kbps") == 100e3);
  CHECK(sc::parse_bandwidth_bps("2Pbps") == 2e15);
  CHECK(sc::parse_bandwidth_bps("1Gibps") == 1073741824.0);
  CHECK(sc::parse_bandwidth_bps("12 bps") == 12);
  CHECK(sc::parse_bandwidth_bps("1e9") == 1e9);
}

TEST_CASE("parse_bandwidth_bps: errors", "[scenario][units]") {
  const std::string expected = R"(expected a bandwidth like "100Gbps" or "25GB/s")";
  for (const char* bad : {"", "fast", "5G", "5gbps", "5Gbs", "5 Gbps/s", "Gbps"}) {
    INFO(bad);
    CHECK_THAT(error_of([&] { sc::parse_bandwidth_bps(bad); }), Catch::Contains(expected));
  }
  CHECK_THAT(error_of([] { sc::parse_bandwidth_bps("5Gbs"); }), Catch::Contains("unknown unit"));
  CHECK_THAT(error_of([] { sc::parse_bandwidth_bps("-5Gbps"); }),
             Catch::Contains("expected a non-negative bandwidth"));
  CHECK_THAT(error_of([] { sc::parse_bandwidth_bps("1e300EBps"); }), Catch::Contains("too large"));
}

TEST_CASE("parse_flops", "[scenario][units]") {
  CHECK(sc::parse_flops("459TFLOPS") == Approx(459e12));
  CHECK(sc::parse_flops("1.2PFLOPS") == Approx(1.2e15));
  CHECK(sc::parse_flops("312 TFLOP/s") == Approx(312e12));
  CHECK(sc::parse_flops("5Gflops") == 5e9);
  CHECK(sc::parse_flops("2EFLOPS") == 2e18);
  CHECK(sc::parse_flops("2e14") == 2e14);
  CHECK(sc::parse_flops("2e14FLOPS") == 2e14);
  const std::string expected = R"(expected a FLOP/s rate like "459TFLOPS" or "2e14")";
  for (const char* bad : {"", "459T", "459TiFLOPS", "459 TB", "lots"}) {
    INFO(bad);
    CHECK_THAT(error_of([&] { sc::parse_flops(bad); }), Catch::Contains(expected));
  }
  CHECK_THAT(error_of([] { sc::parse_flops("-1TFLOPS"); }), Catch::Contains("non-negative"));
}

TEST_CASE("parse_bytes: SI and binary", "[scenario][units]") {
  CHECK(sc::parse_bytes("2.3TB") == Approx(2.3e12));
  CHECK(sc::parse_bytes("512MB") == 512e6);
  CHECK(sc::parse_bytes("16GiB") == 16.0 * 1024 * 1024 * 1024);
  CHECK(sc::parse_bytes("4KiB") == 4096);
  CHECK(sc::parse_bytes("4kB") == 4000);
  CHECK(sc::parse_bytes("1EB") == 1e18);
  CHECK(sc::parse_bytes("1PiB") == Approx(1125899906842624.0));
  CHECK(sc::parse_bytes("4096") == 4096);
  CHECK(sc::parse_bytes("7 B") == 7);
  const std::string expected = R"(expected a byte size like "16GiB" or "2.3TB")";
  for (const char* bad : {"", "2.3Tb", "16G", "16GIB", "big"}) {
    INFO(bad);
    CHECK_THAT(error_of([&] { sc::parse_bytes(bad); }), Catch::Contains(expected));
  }
  CHECK_THAT(error_of([] { sc::parse_bytes("-1GB"); }),
             Catch::Contains("expected a non-negative byte size"));
}

TEST_CASE("parse_count and count_from_double", "[scenario][units]") {
  CHECK(sc::parse_count("128") == 128);
  CHECK(sc::parse_count("1.2e6") == 1'200'000);
  CHECK(sc::parse_count("1e18") == 1'000'000'000'000'000'000);
  CHECK(sc::parse_count("9223372036854775807") == INT64_MAX);
  CHECK(sc::parse_count("-5") == -5);
  CHECK(sc::parse_count("+7") == 7);
  CHECK(sc::parse_count(" 42 ") == 42);
  const std::string expected = "expected a count (a whole number like 128 or 1.2e6)";
  for (const char* bad : {"", "2.5", "1.2e-3", "12k", "many", "9223372036854775808", "1e19"}) {
    INFO(bad);
    CHECK_THAT(error_of([&] { sc::parse_count(bad); }), Catch::Contains(expected));
  }
  CHECK_THAT(error_of([] { sc::parse_count("1e19"); }), Catch::Contains("too large"));
  CHECK(sc::count_from_double(1.2e6) == 1'200'000);
  CHECK(sc::count_from_double(-3) == -3);
  CHECK_THAT(error_of([] { sc::count_from_double(2.5); }), Catch::Contains("got 2.5"));
  CHECK_THAT(error_of([] { sc::count_from_double(1e300); }), Catch::Contains("too large"));
}

TEST_CASE("parse_fraction", "[scenario][units]") {
  CHECK(sc::parse_fraction("0.25") == 0.25);
  CHECK(sc::parse_fraction("25%") == 0.25);
  CHECK(sc::parse_fraction("150%") == 1.5);  // range checks are the reader's
  CHECK_THAT(error_of([] { sc::parse_fraction("25 percent"); }),
             Catch::Contains(R"(expected a fraction like 0.25 or "25%")"));
  CHECK_THAT(error_of([] { sc::parse_fraction(""); }), Catch::Contains("expected a fraction"));
}

TEST_CASE("*_from_json: numbers are base units, strings are parsed", "[scenario][units]") {
  CHECK(sc::duration_from_json(json(90)) == Duration::seconds(90));
  CHECK(sc::duration_from_json(json(0.25)) == Duration::millis(250));
  CHECK(sc::duration_from_json(json(-5)) == Duration::seconds(-5));
  CHECK(sc::duration_from_json(json("36h")) == Duration::hours(36));
  CHECK(sc::count_from_json(json(1.2e6)) == 1'200'000);
  CHECK(sc::count_from_json(json("1.2e6")) == 1'200'000);
  CHECK(sc::count_from_json(json(-5)) == -5);
  CHECK(sc::count_from_json(json(uint64_t{7})) == 7);
  CHECK(sc::bandwidth_from_json(json(1e9)) == 1e9);
  CHECK(sc::bandwidth_from_json(json("1Gbps")) == 1e9);
  CHECK(sc::flops_from_json(json(2e14)) == 2e14);
  CHECK(sc::flops_from_json(json("2e14")) == 2e14);
  CHECK(sc::bytes_from_json(json(4096)) == 4096);
  CHECK(sc::bytes_from_json(json("4KiB")) == 4096);
  CHECK(sc::fraction_from_json(json(0.5)) == 0.5);
  CHECK(sc::fraction_from_json(json("50%")) == 0.5);
  CHECK(sc::number_from_json(json(3)) == 3.0);
}

TEST_CASE("*_from_json: wrong JSON types name the expectation and the value",
          "[scenario][units]") {
  CHECK(error_of([] { sc::duration_from_json(json(true)); }) ==
        R"(expected a duration string like "30s", got true)");
  CHECK(error_of([] { sc::count_from_json(json::array()); }) ==
        "expected a count (a whole number like 128 or 1.2e6), got an empty list");
  CHECK(error_of([] { sc::count_from_json(json(uint64_t{1} << 63)); }) ==
        "expected a count (a whole number like 128 or 1.2e6), got 9223372036854775808 "
        "(too large)");
  CHECK_THAT(error_of([] { sc::bandwidth_from_json(json::object({{"a", 1}})); }),
             Catch::Contains("expected a bandwidth") && Catch::Contains("got an object"));
  CHECK_THAT(error_of([] { sc::flops_from_json(json(nullptr)); }),
             Catch::Contains("expected a FLOP/s rate") && Catch::Contains("got null"));
  CHECK_THAT(error_of([] { sc::bytes_from_json(json(false)); }),
             Catch::Contains("expected a byte size") && Catch::Contains("got false"));
  CHECK_THAT(error_of([] { sc::fraction_from_json(json(true)); }),
             Catch::Contains("expected a fraction"));
  CHECK(error_of([] { sc::number_from_json(json("1.5")); }) == R"(expected a number, got "1.5")");
  CHECK_THAT(error_of([] { sc::duration_from_json(json(1e12)); }),
             Catch::Contains("longer than 292 years"));
}

TEST_CASE("format_duration: human text", "[scenario][units]") {
  CHECK(sc::format_duration(Duration::zero()) == "0s");
  CHECK(sc::format_duration(Duration::nanos(750)) == "750ns");
  CHECK(sc::format_duration(Duration::nanos(12'500)) == "12.5us");
  CHECK(sc::format_duration(Duration::millis(250)) == "250ms");
  CHECK(sc::format_duration(Duration::millis(1500)) == "1.5s");
  CHECK(sc::format_duration(Duration::seconds(30)) == "30s");
  CHECK(sc::format_duration(Duration::seconds(330)) == "5m 30s");
  CHECK(sc::format_duration(Duration::minutes(90)) == "1h 30m");
  CHECK(sc::format_duration(Duration::hours(2)) == "2h");
  CHECK(sc::format_duration(Duration::hours(2) + Duration::seconds(5)) == "2h 5s");
  CHECK(sc::format_duration(Duration::from_seconds(3.2 * 86400)) == "3.2d");
  CHECK(sc::format_duration(Duration::hours(36)) == "1.5d");
  CHECK(sc::format_duration(Duration::days(7)) == "7d");
  CHECK(sc::format_duration(Duration::days(365)) == "1y");
  CHECK(sc::format_duration(Duration::days(365 + 365 / 2)) == "1.5y");
  CHECK(sc::format_duration(Duration::seconds(-5)) == "-5s");
  CHECK(sc::format_duration(Duration::min()).front() == '-');
}

TEST_CASE("format_duration output parses back", "[scenario][units]") {
  for (Duration d : {Duration::nanos(7), Duration::micros(12), Duration::millis(250),
                     Duration::millis(1500), Duration::seconds(330), Duration::minutes(90),
                     Duration::hours(23) + Duration::minutes(59) + Duration::seconds(59),
                     Duration::hours(36), Duration::days(7), Duration::days(365)}) {
    INFO(sc::format_duration(d));
    CHECK(sc::parse_duration(sc::format_duration(d)) == d);
  }
}

TEST_CASE("format of bandwidth, FLOP/s, bytes and numbers", "[scenario][units]") {
  CHECK(sc::format_bandwidth_bps(5e9) == "5Gbps");
  CHECK(sc::format_bandwidth_bps(400e6) == "400Mbps");
  CHECK(sc::format_bandwidth_bps(1.6e12) == "1.6Tbps");
  CHECK(sc::format_bandwidth_bps(0) == "0bps");
  CHECK(sc::format_flops(459e12) == "459TFLOPS");
  CHECK(sc::format_flops(1.2e15) == "1.2PFLOPS");
  CHECK(sc::format_bytes(2.3e12) == "2.092TiB");  // one convention: never "2.3TB" beside GiB
  CHECK(sc::format_bytes(4000) == "3.906KiB");
  CHECK(sc::format_bytes(16.0 * 1024 * 1024 * 1024) == "16GiB");
  CHECK(sc::format_bytes(512) == "512B");
  CHECK(sc::format_number(0.25) == "0.25");
  CHECK(sc::format_number(3) == "3");
  CHECK(sc::parse_bandwidth_bps(sc::format_bandwidth_bps(25e9 * 8)) == 200e9);
  CHECK(sc::parse_bytes(sc::format_bytes(16.0 * 1024 * 1024 * 1024)) ==
        16.0 * 1024 * 1024 * 1024);
  CHECK(sc::parse_flops(sc::format_flops(459e12)) == Approx(459e12));
}
