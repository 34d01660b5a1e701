// Allocations of layers to devices: enumeration up to relabelling, contiguity, parsing.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "patterns/allocation_internal.hpp"

namespace pipesim {
namespace {

long long binomial(int n, int k) {
  long long r = 1;
  for (int i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

long long stirling2(int n, int k) {  // partitions of n items into k non-empty blocks
  if (n == 0 && k == 0) return 1;
  if (n == 0 || k == 0) return 0;
  return k * stirling2(n - 1, k) + stirling2(n - 1, k - 1);
}

TEST(Allocation, ContiguityAndCanonicalForm) {
  EXPECT_TRUE(is_contiguous({0, 0, 1, 1, 2}));
  EXPECT_TRUE(is_contiguous({2, 2, 0}));  // any labels
  EXPECT_FALSE(is_contiguous({0, 1, 0}));
  EXPECT_FALSE(is_contiguous({0, 1, 1, 2, 0}));
  EXPECT_TRUE(is_canonical({0, 1, 0, 2}));
  EXPECT_FALSE(is_canonical({1, 0}));
  EXPECT_EQ(canonical_allocation({3, 1, 3, 0}), (Allocation{0, 1, 0, 2}));
  EXPECT_EQ(devices_used({3, 1, 3, 0}), 3);
  EXPECT_EQ(to_string({0, 1, 0}), "0,1,0");
}

TEST(Allocation, SmallEnumerations) {
  EXPECT_EQ(enumerate_allocations(3, 2, true), (std::vector<Allocation>{{0, 0, 0}, {0, 0, 1}, {0, 1, 1}}));
  EXPECT_EQ(enumerate_allocations(3, 2, false), (std::vector<Allocation>{{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {0, 1, 1}}));
  EXPECT_EQ(enumerate_allocations(1, 4, false), (std::vector<Allocation>{{0}}));
}

// Contiguous: a composition of L into p parts, sum of C(L-1, p-1); all:
// set partitions into at most P blocks, sum of Stirling numbers S(L, p).
TEST(Allocation, CountsAreCompositionsAndSetPartitions) {
  for (int L = 1; L <= 8; ++L)
    for (int P = 1; P <= 5; ++P) {
      long long contiguous = 0, all = 0;
      for (int p = 1; p <= std::min(L, P); ++p) contiguous += binomial(L - 1, p - 1), all += stirling2(L, p);
      const auto c = enumerate_allocations(L, P, true);
      const auto a = enumerate_allocations(L, P, false);
      ASSERT_EQ(static_cast<long long>(c.size()), contiguous) << L << " " << P;
      ASSERT_EQ(static_cast<long long>(a.size()), all) << L << " " << P;
      std::set<Allocation> distinct(a.begin(), a.end());
      EXPECT_EQ(distinct.size(), a.size());
      for (const Allocation& x : a) {
        EXPECT_TRUE(is_canonical(x));
        EXPECT_LE(devices_used(x), P);
      }
      for (const Allocation& x : c) EXPECT_TRUE(is_contiguous(x));
      long long contiguous_in_all = 0;
      for (const Allocation& x : a) contiguous_in_all += is_contiguous(x);
      EXPECT_EQ(contiguous_in_all, contiguous);
    }
  EXPECT_EQ(enumerate_allocations(11, 5, false).size(), 422005u);  // seed 000's chain C_2
}

// Any layer order visits the same set (relabelled canonical along the chain); pruning skips completions.
TEST(Allocation, DepthFirstOrderAndPruning) {
  std::vector<Allocation> seen;
  AllocationVisitor v;
  v.visit = [&](const Allocation& a) { seen.push_back(a); };
  for_each_allocation(5, 3, false, {4, 2, 0, 3, 1}, v);
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, enumerate_allocations(5, 3, false));

  seen.clear();
  v.prune = [](const Allocation& prefix) { return prefix[0] >= 0 && prefix[1] >= 0 && prefix[0] != prefix[1]; };
  for_each_allocation(4, 2, false, {}, v);
  for (const Allocation& a : seen) EXPECT_EQ(a[0], a[1]);
  EXPECT_EQ(seen.size(), 4u);  // layers 2 and 3 free: 00xx

  EXPECT_THROW(for_each_allocation(3, 2, true, {2, 1, 0}, v), std::invalid_argument);
  EXPECT_THROW(for_each_allocation(3, 2, false, {0, 0, 1}, v), std::invalid_argument);
}

TEST(Allocation, Parse) {
  EXPECT_EQ(parse_allocation("0,1,0", 3, 2), (Allocation{0, 1, 0}));
  EXPECT_EQ(parse_allocation(" 2 , 0 ", 2, 3), (Allocation{2, 0}));
  auto error = [](const std::string& text, int layers, int devices) {
    try {
      parse_allocation(text, layers, devices);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(error("0,1", 3, 2), "2 device indices for 3 layers");
  EXPECT_EQ(error("0,2,0", 3, 2), "device index 2 out of range (the platform has 2 devices)");
  EXPECT_EQ(error("0,-1,0", 3, 2), "expected comma-separated device indices like \"0,1,0\", got \"0,-1,0\"");
  EXPECT_EQ(error("0,,1", 3, 2), "expected comma-separated device indices like \"0,1,0\", got \"0,,1\"");
  EXPECT_EQ(error("", 1, 2), "expected comma-separated device indices like \"0,1,0\", got \"\"");
}

}  // namespace
}  // namespace pipesim
