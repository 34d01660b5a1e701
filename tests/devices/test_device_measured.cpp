// The H100 and H200 presets against the measured tables (tests/data/measured,
// README-devices.md; errors reported in docs/devices.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <tuple>

#include "tests/devices/device_test_support.hpp"

namespace pipesim {
namespace {

using device_test::measured;

struct Gpu {
  const char* preset;
  const char* gemm_file;
  const char* blocks_file;
};
const Gpu kGpus[] = {{"h100-sxm", "gpu-gemm-h100.json", "h100-blocks.json"},
                     {"h200", "gpu-gemm-h200.json", "h200-blocks.json"}};

const DeviceSpec& preset(const char* name) {
  const DeviceSpec* d = find_device_preset(name);
  EXPECT_NE(d, nullptr) << name;
  return *d;
}

struct Errors {
  double max = 0, sum = 0;
  int n = 0;
  void add(double e) {
    max = std::max(max, std::abs(e));
    sum += std::abs(e);
    ++n;
  }
  double mean() const { return n ? sum / n : 0; }
};

// Points of the bf16 table the 10 % bound cannot hold for: each contradicts
// another point of the same table by more than 2 x 10 % (docs/devices.md,
// "GEMM table"): (file, kind, m, n, k).
const std::set<std::tuple<std::string, std::string, int, int, int>> kInconsistent = {
    // 530 TFLOP/s where every other large H100 GEMM runs at 650-780, among
    // them fc2 4096 x 4096 x 16384 (779), smaller in every dimension.
    {"gpu-gemm-h100.json", "fc2", 16384, 8192, 32768},
    {"gpu-gemm-h100.json", "fc2", 4096, 4096, 16384},
    // The same shape as proj h = 4096, m = 4096 (0.207 ms) measured at 0.234 ms.
    {"gpu-gemm-h100.json", "square", 4096, 4096, 4096},
    {"gpu-gemm-h100.json", "proj", 4096, 2048, 2048},
    // The same shape as proj h = 4096, m = 4096 (0.205 ms) measured at 0.270 ms;
    // the H200's squares run 10-25 % below its block GEMMs of like size.
    {"gpu-gemm-h200.json", "square", 4096, 4096, 4096},
    {"gpu-gemm-h200.json", "square", 8192, 8192, 8192},
    {"gpu-gemm-h200.json", "proj", 4096, 2048, 2048},
    {"gpu-gemm-h200.json", "fc2", 4096, 4096, 16384},
    {"gpu-gemm-h200.json", "fc2", 16384, 2048, 8192},
    {"gpu-gemm-h200.json", "qkv", 16384, 6144, 2048},
    {"gpu-gemm-h200.json", "qkv", 16384, 12288, 4096},
};

TEST(DeviceMeasured, Bf16GemmTableWithinTenPercentFromSize2048) {
  for (const Gpu& g : kGpus) {
    const DeviceSpec& d = preset(g.preset);
    Errors all;
    int listed = 0, outside = 0;
    const nlohmann::json table = measured(g.gemm_file);
    for (const auto& r : table["gemm"]) {
      const double m = r["m"], n = r["n"], k = r["k"];
      if (std::min({m, n, k}) < 2048) continue;
      const double err = op_seconds(d, device_test::gemm_op(m, n, k, Precision::BF16)) / (double(r["ms"]) * 1e-3) - 1;
      all.add(err);
      if (std::abs(err) >= 0.10) ++outside;
      const auto key = std::make_tuple(std::string(g.gemm_file), r["kind"].get<std::string>(), int(m), int(n), int(k));
      if (kInconsistent.count(key)) {
        ++listed;
        EXPECT_LT(std::abs(err), 0.26) << g.preset << " " << r.dump();
      } else {
        EXPECT_LT(std::abs(err), 0.10) << g.preset << " " << r.dump();
      }
    }
    std::printf("%s bf16 GEMM (m,n,k >= 2048): %d points, max %.1f %%, mean %.1f %%, %d beyond 10 %% (%d listed)\n",
                g.preset, all.n, 100 * all.max, 100 * all.mean(), outside, listed);
    EXPECT_EQ(all.n, 44);
    EXPECT_LT(all.mean(), 0.06);
  }
}

TEST(DeviceMeasured, Fp8GemmTableWithinTenPercentFromSize2048) {
  for (const Gpu& g : kGpus) {
    const DeviceSpec& d = preset(g.preset);
    Errors all;
    const nlohmann::json table = measured(g.gemm_file);
    for (const auto& r : table["fp8"]) {
      const double m = r["m"], n = r["n"], k = r["k"];
      if (std::min({m, n, k}) < 2048) continue;
      const double err = op_seconds(d, device_test::gemm_op(m, n, k, Precision::FP8)) / (double(r["ms"]) * 1e-3) - 1;
      all.add(err);
      EXPECT_LT(std::abs(err), 0.10) << g.preset << " " << r.dump();
    }
    std::printf("%s fp8 GEMM (>= 2048): %d points, max %.1f %%, mean %.1f %%\n", g.preset, all.n, 100 * all.max,
                100 * all.mean());
    EXPECT_EQ(all.n, 4);
  }
}

TEST(DeviceMeasured, LargeCopiesAreMemoryBoundWithinTenPercent) {
  for (const Gpu& g : kGpus) {
    const DeviceSpec& d = preset(g.preset);
    Errors all;
    const nlohmann::json table = measured(g.gemm_file);
    for (const auto& r : table["bandwidth"]) {
      if (double(r["MiB"]) < 256) continue;  // smaller copies: launch-bound
      OpWork copy;
      copy.bytes = 2 * double(r["MiB"]) * 1024 * 1024;  // read and written
      copy.kernels = 1;
      copy.pass = Pass::Gemm;
      EXPECT_EQ(gemm_efficiency(d, copy), 0);
      const double model = op_seconds(d, copy);
      EXPECT_DOUBLE_EQ(model, copy.bytes / (d.memory_bandwidth * d.memory_efficiency));
      const double err = model / (double(r["ms"]) * 1e-3) - 1;
      all.add(err);
      EXPECT_LT(std::abs(err), 0.10) << g.preset << " " << r.dump();
    }
    std::printf("%s copies (>= 256 MiB): %d points, max %.1f %%\n", g.preset, all.n, 100 * all.max);
    EXPECT_EQ(all.n, 2);
  }
}

TEST(DeviceMeasured, BlockTimesWithinFivePercentFromHidden2048) {
  for (const Gpu& g : kGpus) {
    const DeviceSpec& d = preset(g.preset);
    Errors fwd, bwd;
    const nlohmann::json table = measured(g.blocks_file);
    for (const auto& r : table["blocks"]) {
      const double h = r["h"], b = r["b"], s = r["s"];
      if (h < 2048) continue;
      const double ef = device_test::block_forward_seconds(d, h, b, s) / (double(r["fwd_ms"]) * 1e-3) - 1;
      const double eb = device_test::block_backward_seconds(d, h, b, s) / (double(r["bwd_ms"]) * 1e-3) - 1;
      fwd.add(ef);
      bwd.add(eb);
      std::printf("%s block h=%g b=%g s=%g: forward %+.1f %%, backward %+.1f %%\n", g.preset, h, b, s, 100 * ef,
                  100 * eb);
      EXPECT_LT(std::abs(ef), 0.05) << g.preset << " forward h=" << h << " b=" << b;
      EXPECT_LT(std::abs(eb), 0.05) << g.preset << " backward h=" << h << " b=" << b;
    }
    std::printf("%s blocks (h >= 2048): forward max %.1f %% mean %.1f %%, backward max %.1f %% mean %.1f %%\n",
                g.preset, 100 * fwd.max, 100 * fwd.mean(), 100 * bwd.max, 100 * bwd.mean());
    EXPECT_EQ(fwd.n, 6);
  }
}

// h = 1024, b = 1: the host issues the block slower than the GPU runs it
// (measured eager > GPU-only) and the model's op time is its host time.
// The model's host time is fitted on h = 2048, b = 1; against the h = 1024
// eager times it is within +110 % (H100, whose host issued that forward in
// 0.33 ms against 0.62 ms at h = 2048) and +35 % (H200).
TEST(DeviceMeasured, SmallBlocksAreHostBound) {
  for (const Gpu& g : kGpus) {
    const DeviceSpec& d = preset(g.preset);
    const double tolerance = std::string(g.preset) == "h100-sxm" ? 1.10 : 0.35;
    const nlohmann::json table = measured(g.blocks_file);
    for (const auto& r : table["blocks"]) {
      if (double(r["h"]) != 1024 || double(r["b"]) != 1) continue;
      EXPECT_GT(double(r["fwd_ms"]), double(r["fwd_ms_gpu"]));
      EXPECT_GT(double(r["bwd_ms"]), double(r["bwd_ms_gpu"]));
      const device_test::BlockOps ops = device_test::block_ops(1024, 1, r["s"]);
      EXPECT_DOUBLE_EQ(op_seconds(d, ops.forward), host_seconds(d, ops.forward));
      EXPECT_DOUBLE_EQ(op_seconds(d, ops.backward_input), host_seconds(d, ops.backward_input));
      const double ef = op_seconds(d, ops.forward) / (double(r["fwd_ms"]) * 1e-3) - 1;
      const double eb = device_test::block_backward_seconds(d, 1024, 1, r["s"]) / (double(r["bwd_ms"]) * 1e-3) - 1;
      std::printf("%s block h=1024 b=1 (host-bound): forward %+.1f %%, backward %+.1f %%\n", g.preset, 100 * ef,
                  100 * eb);
      EXPECT_LT(std::abs(ef), tolerance) << g.preset;
      EXPECT_LT(std::abs(eb), tolerance) << g.preset;
    }
  }
}

}  // namespace
}  // namespace pipesim
