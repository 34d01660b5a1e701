// The device presets' cited figures and the compute model's rules
// (docs/devices.md).
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "models/model_presets.hpp"
#include "models/transformer.hpp"
#include "tests/devices/device_test_support.hpp"

namespace pipesim {
namespace {

TEST(DevicePresets, CitedPeaksBandwidthAndMemory) {
  struct Row {
    const char* name;
    double fp32, bf16, fp16, fp8, bandwidth, memory;
  };
  const Row rows[] = {
      {"a100-40gb", 19.5e12, 312e12, 312e12, 0, 1.555e12, 40e9},
      {"a100-80gb", 19.5e12, 312e12, 312e12, 0, 2.039e12, 80e9},
      {"h100-sxm", 67e12, 989e12, 989e12, 1979e12, 3.35e12, 80e9},
      {"h200", 67e12, 989e12, 989e12, 1979e12, 4.8e12, 141e9},
      {"mi300x", 163.4e12, 1307.4e12, 1307.4e12, 2614.9e12, 5.3e12, 192e9},
  };
  EXPECT_EQ(device_preset_names(), (std::vector<std::string>{"a100-40gb", "a100-80gb", "h100-sxm", "h200", "mi300x"}));
  for (const Row& r : rows) {
    const DeviceSpec* d = find_device_preset(r.name);
    ASSERT_NE(d, nullptr) << r.name;
    EXPECT_EQ(d->name, r.name);
    EXPECT_DOUBLE_EQ(peak_flops(*d, Precision::FP32), r.fp32) << r.name;
    EXPECT_DOUBLE_EQ(peak_flops(*d, Precision::BF16), r.bf16) << r.name;
    EXPECT_DOUBLE_EQ(peak_flops(*d, Precision::FP16), r.fp16) << r.name;
    EXPECT_DOUBLE_EQ(peak_flops(*d, Precision::FP8), r.fp8) << r.name;
    EXPECT_DOUBLE_EQ(d->memory_bandwidth, r.bandwidth) << r.name;
    EXPECT_DOUBLE_EQ(d->memory_bytes, r.memory) << r.name;
    EXPECT_NE(d->source.find(r.name[0] == 'm' ? "AMD Instinct MI300X" : "NVIDIA"), std::string::npos) << r.name;
    EXPECT_GT(d->host_overhead, 0) << r.name;
    EXPECT_GT(d->memory_efficiency, 0.5) << r.name;
    EXPECT_LE(d->memory_efficiency, 1) << r.name;
  }
  EXPECT_TRUE(find_device_preset("h100-sxm")->measured);
  EXPECT_TRUE(find_device_preset("h200")->measured);
  EXPECT_FALSE(find_device_preset("mi300x")->measured);
  EXPECT_EQ(find_device_preset("b200"), nullptr);
}

TEST(DeviceModel, EfficiencyRisesWithSizeToItsMaximum) {
  const DeviceSpec& d = *find_device_preset("h100-sxm");
  double last = 0;
  for (double s = 256; s <= 65536; s *= 2) {
    const double e = gemm_efficiency(d, device_test::gemm_op(s, s, s, Precision::BF16));
    EXPECT_GT(e, last) << s;
    EXPECT_LT(e, d.gemm.efficiency_max) << s;
    last = e;
  }
  EXPECT_GT(last, 0.99 * d.gemm.efficiency_max);
  const double small = gemm_efficiency(d, device_test::gemm_op(512, 512, 512, Precision::BF16));
  EXPECT_LT(small, 0.1 * d.gemm.efficiency_max);
}

TEST(DeviceModel, OpTimeIsTheLargerOfComputeMemoryAndHost) {
  DeviceSpec d;
  d.name = "toy";
  d.peak_bf16 = 100e12;
  d.memory_bandwidth = 1e12;
  d.memory_efficiency = 0.5;
  d.forward = {0.5, 0, 0, 0, 2};  // no size limit: efficiency 0.5
  d.host_overhead = 1e-6;
  OpWork op;
  op.flops = 100e12;
  op.gemm_m = op.gemm_n = op.gemm_k = 1024;
  op.kernels = 3;
  EXPECT_DOUBLE_EQ(gemm_efficiency(d, op), 0.5);
  EXPECT_DOUBLE_EQ(op_seconds(d, op), 2.0);  // compute
  op.bytes = 2e12;
  EXPECT_DOUBLE_EQ(op_seconds(d, op), 4.0);  // memory
  op.kernels = 5000000;
  EXPECT_DOUBLE_EQ(op_seconds(d, op), 5.0);  // host
  // Kernels of their own between the GEMMs (unfused attention's score
  // passes) add to the roofline: 2 s of memory + 1e12 / 0.5e12 = 4 + 2 s.
  op.kernels = 3;
  op.serial_bytes = 1e12;
  EXPECT_DOUBLE_EQ(op_seconds(d, op), 6.0);
  op.bytes = 0;
  EXPECT_DOUBLE_EQ(op_seconds(d, op), 4.0);  // compute 2 s + serial 2 s
  op.serial_bytes = 0;
  // No GEMM: memory-bound only, whatever the flops.
  OpWork lookup;
  lookup.flops = 1e15;
  lookup.bytes = 1e9;
  lookup.kernels = 1;
  EXPECT_EQ(gemm_efficiency(d, lookup), 0);
  EXPECT_DOUBLE_EQ(op_seconds(d, lookup), 2e-3);
  // Backward and bare-GEMM passes use their own host overheads when set.
  d.backward_host_overhead = 2e-6;
  d.launch_overhead = 3e-6;
  OpWork k;
  k.kernels = 10;
  k.pass = Pass::Backward;
  EXPECT_DOUBLE_EQ(host_seconds(d, k), 20e-6);
  k.pass = Pass::Gemm;
  EXPECT_DOUBLE_EQ(host_seconds(d, k), 30e-6);
  k.pass = Pass::Forward;
  EXPECT_DOUBLE_EQ(host_seconds(d, k), 10e-6);
}

// A block under TP 2 with a column- and a row-parallel GEMM of equal
// shares, on eff = 0.5 / (1 + 1024/k): at tp 1 (k = 4096) each runs at 0.4;
// split, the column-parallel one keeps k (0.4) and the row-parallel one
// contracts over 2048 (1/3), so the layer runs at 0.4 * 2.5 / 2.75 = 4/11,
// where its one per-rank shape (n / 2, k) would stay at 0.4.
TEST(DeviceModel, TensorParallelismShrinksEachGemmOnItsSide) {
  DeviceSpec d;
  d.name = "toy";
  d.peak_bf16 = 100e12;
  d.forward = {0.5, 0, 0, 1024, 1};
  OpWork op;
  op.flops = 1e12;
  op.gemm_m = 4096;
  op.gemm_n = 4096;
  op.gemm_k = 4096;
  op.parts = {{0.5, 4096, 4096, false}, {0.5, 4096, 4096, true}};
  EXPECT_DOUBLE_EQ(gemm_efficiency(d, op), 0.4);  // tp 1: the one shape
  op.tp = 2;
  op.gemm_n = 2048;  // per rank
  EXPECT_DOUBLE_EQ(gemm_efficiency(d, op), 4.0 / 11);
  EXPECT_DOUBLE_EQ(op_seconds(d, op), 1e12 / (100e12 * 4.0 / 11));
  op.parts.clear();
  EXPECT_DOUBLE_EQ(gemm_efficiency(d, op), 0.4);
}

TEST(DeviceModel, CalibrationReplacesTheTimeOfItsKeys) {
  const DeviceSpec& d = *find_device_preset("h200");
  const device_test::BlockOps ops = device_test::block_ops(4096, 1, 2048);
  Calibration cal;
  cal.file = "cal.yaml";
  cal.seconds["block.forward"] = 1.25e-3;
  EXPECT_DOUBLE_EQ(op_seconds(d, ops.forward, &cal), 1.25e-3);
  EXPECT_DOUBLE_EQ(op_seconds(d, ops.backward_input, &cal), op_seconds(d, ops.backward_input));
  OpWork unnamed = ops.forward;
  unnamed.key.clear();
  EXPECT_DOUBLE_EQ(op_seconds(d, unnamed, &cal), op_seconds(d, unnamed));
  // A calibrated op needs no peak: its time is measured.
  OpWork fp8 = ops.forward;
  fp8.precision = Precision::FP8;
  EXPECT_DOUBLE_EQ(op_seconds(*find_device_preset("a100-80gb"), fp8, &cal), 1.25e-3);
}

TEST(DeviceModel, MissingPrecisionThrows) {
  const DeviceSpec& a100 = *find_device_preset("a100-40gb");
  const OpWork op = device_test::gemm_op(4096, 4096, 4096, Precision::FP8);
  EXPECT_THROW(op_seconds(a100, op), UnsupportedPrecision);
  EXPECT_THROW(op_seconds(a100, op), InputError);
  try {
    op_seconds(a100, op);
  } catch (const UnsupportedPrecision& e) {
    EXPECT_EQ(e.device(), "a100-40gb");
    EXPECT_EQ(e.precision(), Precision::FP8);
    EXPECT_EQ(e.reason(), "device a100-40gb has no fp8 compute (peak 0)");
    EXPECT_STREQ(e.what(), "device a100-40gb: has no fp8 compute (peak 0)");
  }
  EXPECT_GT(op_seconds(a100, device_test::gemm_op(4096, 4096, 4096, Precision::BF16)), 0);
}

// A layer pass that does not say its GEMMs' flops: the layer curve scaled
// by the bare fp8 / bf16 GEMM plateaus (by analogy).
TEST(DeviceModel, Fp8LayerPassesWithoutTheirGemmsScaleTheLayerCurve) {
  const DeviceSpec& d = *find_device_preset("h100-sxm");
  OpWork op = device_test::block_ops(8192, 4, 2048).forward;
  const double bf16 = gemm_efficiency(d, op);
  op.precision = Precision::FP8;
  EXPECT_NEAR(gemm_efficiency(d, op), bf16 * d.gemm_fp8.efficiency_max / d.gemm.efficiency_max, 1e-12);
  EXPECT_EQ(to_string(Pass::Backward), std::string("backward"));
}

// Transformer Engine runs a layer's weight GEMMs in fp8 and the rest in
// bf16: the fp8 pass is the bf16 pass less its GEMMs' bare bf16 time plus
// their bare fp8 time, each on the measured GEMM curve at the GEMMs' shape.
TEST(DeviceModel, Fp8LayerPassesSpeedUpOnlyTheirWeightGemms) {
  const DeviceSpec& d = *find_device_preset("h100-sxm");
  const double h = 4096, T = 4096;
  for (OpWork op : {device_test::block_ops(h, 1, T).forward, device_test::block_ops(h, 1, T).backward_input}) {
    op.gemm_flops = 24 * T * h * h;
    const double bf16 = op_seconds(d, op);
    const auto bare = [&](Precision p) {
      OpWork g = device_test::gemm_op(T, 4 * h, h, p);
      return 24 * T * h * h / (peak_flops(d, p) * gemm_efficiency(d, g));
    };
    op.precision = Precision::FP8;
    EXPECT_NEAR(op_seconds(d, op), bf16 - bare(Precision::BF16) + bare(Precision::FP8), 1e-12 * bf16) << op.key;
    // It gains less than the bare GEMMs' ratio: attention and the rest stay in bf16.
    EXPECT_GT(op_seconds(d, op) / bf16, bare(Precision::FP8) / bare(Precision::BF16)) << op.key;
    EXPECT_LT(op_seconds(d, op), bf16) << op.key;
    // No weight GEMM (selective recompute's attention core): the bf16 time.
    op.gemm_flops = 0;
    OpWork same = op;
    same.precision = Precision::BF16;
    EXPECT_DOUBLE_EQ(op_seconds(d, op), op_seconds(d, same)) << op.key;
  }
}

// The gains docs/devices.md gives: Llama-2's blocks at 4,096 tokens on the
// H100, forward and input gradient, fp8 over bf16.
TEST(DeviceModel, Fp8GainsOfLlama2BlocksAreTheDocumented) {
  const DeviceSpec& d = *find_device_preset("h100-sxm");
  for (const auto& [name, forward, input_gradient] :
       std::vector<std::tuple<std::string, double, double>>{{"llama2-7b", 1.51, 1.35}, {"llama2-70b", 1.75, 1.55}}) {
    TransformerConfig c = find_model_preset(name)->config;
    c.seq_length = 4096, c.microbatch_size = 1, c.precision = Precision::BF16;
    const ModelLayer bf16 = transformer_chain(c).layers[1];
    c.precision = Precision::FP8;
    const ModelLayer fp8 = transformer_chain(c).layers[1];
    EXPECT_NEAR(op_seconds(d, bf16.forward) / op_seconds(d, fp8.forward), forward, 0.005) << name;
    EXPECT_NEAR(op_seconds(d, bf16.backward_input) / op_seconds(d, fp8.backward_input), input_gradient, 0.005) << name;
  }
}

}  // namespace
}  // namespace pipesim
