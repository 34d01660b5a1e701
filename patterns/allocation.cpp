#include "patterns/allocation_internal.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace pipesim {

bool is_contiguous(const Allocation& a) {
  std::vector<int> seen;
  for (std::size_t l = 0; l < a.size(); ++l) {
    if (l > 0 && a[l] == a[l - 1]) continue;
    if (std::find(seen.begin(), seen.end(), a[l]) != seen.end()) return false;  // the device comes back
    seen.push_back(a[l]);
  }
  return true;
}

bool is_canonical(const Allocation& a) { return a == canonical_allocation(a); }

Allocation canonical_allocation(const Allocation& a) {
  std::vector<int> label;  // label[k] = old device given number k
  Allocation out;
  for (int d : a) {
    auto it = std::find(label.begin(), label.end(), d);
    if (it == label.end()) it = label.insert(label.end(), d);
    out.push_back(static_cast<int>(it - label.begin()));
  }
  return out;
}

int devices_used(const Allocation& a) {
  Allocation sorted = a;
  std::sort(sorted.begin(), sorted.end());
  return static_cast<int>(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
}

namespace {

class Walker {
 public:
  Walker(int layers, int devices, bool contiguous, std::vector<int> order, const AllocationVisitor& v)
      : devices_(devices), contiguous_(contiguous), order_(std::move(order)), v_(v), prefix_(layers, -1) {}

  void run() { step(0, 0); }

 private:
  void step(std::size_t i, int used) {
    if (v_.prune && v_.prune(prefix_)) return;
    if (i == order_.size()) {
      v_.visit(canonical_allocation(prefix_));
      return;
    }
    const int layer = order_[i];
    std::vector<int> candidates;
    if (contiguous_) {
      if (i > 0) candidates.push_back(prefix_[order_[i - 1]]);  // extend the current range
    } else {
      for (int d = 0; d < used; ++d) candidates.push_back(d);
    }
    if (used < devices_) candidates.push_back(used);  // open the next device
    if (v_.load) {
      std::vector<double> load(devices_, 0);
      for (int d : candidates) load[d] = v_.load(prefix_, d);
      std::stable_sort(candidates.begin(), candidates.end(), [&](int a, int b) { return load[a] < load[b]; });
    }
    for (int d : candidates) {
      prefix_[layer] = d;
      step(i + 1, std::max(used, d + 1));
    }
    prefix_[layer] = -1;
  }

  const int devices_;
  const bool contiguous_;
  const std::vector<int> order_;
  const AllocationVisitor& v_;
  Allocation prefix_;
};

}  // namespace

void for_each_allocation(int layers, int devices, bool contiguous, const std::vector<int>& layer_order,
                         const AllocationVisitor& visitor) {
  if (layers < 1 || devices < 1) throw std::invalid_argument("allocations: need at least one layer and one device");
  std::vector<int> order = layer_order;
  if (order.empty()) {
    order.resize(layers);
    std::iota(order.begin(), order.end(), 0);
  }
  std::vector<int> check = order;
  std::sort(check.begin(), check.end());
  bool permutation = static_cast<int>(check.size()) == layers;
  for (int l = 0; permutation && l < layers; ++l) permutation = check[l] == l;
  if (!permutation) throw std::invalid_argument("allocations: the layer order must list every layer once");
  if (contiguous)
    for (int l = 0; l < layers; ++l)
      if (order[l] != l) throw std::invalid_argument("allocations: contiguous ones are built in chain order");
  Walker(layers, devices, contiguous, std::move(order), visitor).run();
}

std::vector<Allocation> enumerate_allocations(int layers, int devices, bool contiguous) {
  std::vector<Allocation> all;
  AllocationVisitor v;
  v.visit = [&](const Allocation& a) { all.push_back(a); };
  for_each_allocation(layers, devices, contiguous, {}, v);
  std::sort(all.begin(), all.end());
  return all;
}

Allocation parse_allocation(const std::string& text, int layers, int devices) {
  Allocation a;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    std::string item = text.substr(pos, comma - pos);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 6)
      throw std::invalid_argument("expected comma-separated device indices like \"0,1,0\", got \"" + text + "\"");
    const int d = std::stoi(item);
    if (d >= devices)
      throw std::invalid_argument("device index " + item + " out of range (the platform has " +
                                  std::to_string(devices) + " devices)");
    a.push_back(d);
    pos = comma + 1;
  }
  if (static_cast<int>(a.size()) != layers)
    throw std::invalid_argument(std::to_string(a.size()) + " device indices for " + std::to_string(layers) + " layers");
  return a;
}

std::string to_string(const Allocation& a) {
  std::string s;
  for (std::size_t l = 0; l < a.size(); ++l) s += (l ? "," : "") + std::to_string(a[l]);
  return s;
}

}  // namespace pipesim
