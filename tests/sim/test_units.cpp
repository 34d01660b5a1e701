#include "sim/units.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

using namespace pipesim;

TEST(Units, Bytes) {
  EXPECT_EQ(parse_bytes("80GiB"), 85899345920.0);
  EXPECT_EQ(parse_bytes("4096"), 4096.0);
  EXPECT_EQ(parse_bytes("12B"), 12.0);
  EXPECT_EQ(parse_bytes("1.5 MB"), 1.5e6);
  EXPECT_EQ(parse_bytes("2kB"), 2000.0);
  EXPECT_EQ(parse_bytes("2KB"), 2000.0);
  EXPECT_EQ(parse_bytes("1KiB"), 1024.0);
  EXPECT_EQ(parse_bytes("16MiB"), 16.0 * 1024 * 1024);
  EXPECT_EQ(parse_bytes("1TB"), 1e12);
  EXPECT_EQ(parse_bytes("1PiB"), 1125899906842624.0);
  EXPECT_EQ(parse_bytes("1e3"), 1000.0);
  EXPECT_EQ(parse_bytes("0"), 0.0);
  EXPECT_EQ(parse_bytes(".5KiB"), 512.0);
}

TEST(Units, BytesRejectsBadInput) {
  for (const char* bad : {"", "  ", "-1", "-3MiB", "nan", "inf", "abc", "1.5 parsecs", "12 B x", "1kb", "1M", "0x10",
                          "1e999", "1..5", "MiB", "1e", "1,5MB"})
    EXPECT_THROW(parse_bytes(bad), std::invalid_argument) << "'" << bad << "'";
}

TEST(Units, MessagesSayWhatWasExpectedAndFound) {
  try {
    parse_bytes("3 parsecs");
    FAIL();
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("byte size"), std::string::npos) << m;
    EXPECT_NE(m.find("'3 parsecs'"), std::string::npos) << m;
    EXPECT_NE(m.find("parsecs"), std::string::npos) << m;
  }
  try {
    parse_cost("abc");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "expected a duration like '3ms' or a flop count like '2Tf', got 'abc'");
  }
}

TEST(Units, Seconds) {
  EXPECT_EQ(parse_seconds("1.5ms"), 0.0015);
  EXPECT_EQ(parse_seconds("2"), 2.0);
  EXPECT_EQ(parse_seconds("2 s"), 2.0);
  EXPECT_EQ(parse_seconds("250us"), 250e-6);
  EXPECT_EQ(parse_seconds("7ns"), 7e-9);
  EXPECT_EQ(parse_seconds("2min"), 120.0);
  EXPECT_EQ(parse_seconds("1.5h"), 5400.0);
  for (const char* bad : {"-1s", "1Tf", "3 sec", "ms", "1.2.3ms"})
    EXPECT_THROW(parse_seconds(bad), std::invalid_argument) << bad;
}

TEST(Units, Flops) {
  EXPECT_EQ(parse_flops("2Tf"), 2e12);
  EXPECT_EQ(parse_flops("100Tf"), 1e14);
  EXPECT_EQ(parse_flops("150Gflops"), 150e9);
  EXPECT_EQ(parse_flops("3Ef"), 3e18);  // 'E' followed by 'f' is a unit, not an exponent
  EXPECT_EQ(parse_flops("1.5e3Mf"), 1.5e9);
  EXPECT_EQ(parse_flops("557.0035712Gf"), 557003571200.0);
  EXPECT_EQ(parse_flops("1000"), 1000.0);
  EXPECT_EQ(parse_flops("1f"), 1.0);
  for (const char* bad : {"1ms", "1tf", "1 TFLOPS", "-2Tf"})
    EXPECT_THROW(parse_flops(bad), std::invalid_argument) << bad;
}

TEST(Units, CostIsSecondsOrFlops) {
  ParsedCost t = parse_cost("1.2ms");
  EXPECT_FALSE(t.flops);
  EXPECT_EQ(t.value, 0.0012);
  ParsedCost plain = parse_cost("0.5");
  EXPECT_FALSE(plain.flops);
  EXPECT_EQ(plain.value, 0.5);
  ParsedCost f = parse_cost("2Tf");
  EXPECT_TRUE(f.flops);
  EXPECT_EQ(f.value, 2e12);
  EXPECT_TRUE(parse_cost("3 Gflops").flops);
  EXPECT_EQ(parse_cost("0").value, 0.0);
  EXPECT_THROW(parse_cost("3 parsecs"), std::invalid_argument);
  EXPECT_THROW(parse_cost("-1ms"), std::invalid_argument);
}

TEST(Units, Format) {
  EXPECT_EQ(format_bytes(1.5 * 1024 * 1024 * 1024), "1.50 GiB");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(25 * 1024 * 1024), "25.0 MiB");
  EXPECT_EQ(format_bytes(150 * 1024 * 1024), "150 MiB");
  EXPECT_EQ(format_bytes(1023 * 1024), "1.00 MiB");  // never "1023 KiB" (four digits)
  EXPECT_EQ(format_seconds(0.0123), "12.3 ms");
  EXPECT_EQ(format_seconds(2.5), "2.50 s");
  EXPECT_EQ(format_seconds(125), "125 s");
  EXPECT_EQ(format_seconds(3e-6), "3.00 us");
  EXPECT_EQ(format_seconds(0), "0 s");
  EXPECT_EQ(format_seconds(0.9999999), "1.00 s");  // never "1000 ms"
}
