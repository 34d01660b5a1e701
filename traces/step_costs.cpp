#include "traces/step_costs.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "sim/input_error.hpp"

namespace pipesim {
namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

const std::string kBackwardNode = "autograd::engine::evaluate_function: ";

// The gap between kernels that the device leaves even when work is queued
// (the launch latency): the lowest decile of the gaps on each stream.
double queued_kernel_gap(const std::vector<TraceEvent>& kernels) {
  std::map<std::string, double> stream_end;
  std::vector<double> gaps;
  for (const TraceEvent& k : kernels) {  // sorted by start
    const auto it = stream_end.find(k.thread);
    if (it != stream_end.end()) gaps.push_back(std::max(0.0, k.start - it->second));
    stream_end[k.thread] = std::max(it == stream_end.end() ? k.end() : it->second, k.end());
  }
  if (gaps.size() < 10) return 0;
  const auto decile = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 10);
  std::nth_element(gaps.begin(), decile, gaps.end());
  return *decile;
}

// Autograd's AccumulateGrad nodes, by thread: their kernels add a weight's gradient.
class AccumulateNodes {
 public:
  void add(const TraceEvent& node) { by_thread_[node.thread].push_back({node.start, node.end()}); }
  bool contain(const TraceEvent& op) const {
    const auto it = by_thread_.find(op.thread);
    if (it == by_thread_.end()) return false;
    const auto& spans = it->second;  // sorted by start, not nested
    auto after =
        std::upper_bound(spans.begin(), spans.end(), std::make_pair(op.start, std::numeric_limits<double>::max()));
    return after != spans.begin() && op.end() <= std::prev(after)->second;
  }

 private:
  std::map<std::string, std::vector<std::pair<double, double>>> by_thread_;
};

// Whether a backward op computes a weight gradient: a GEMM that contracts
// over the micro-batch's tokens, a bias's sum over them, the embedding's
// gradient, or a gradient accumulated into a weight.
bool weight_gradient_op(const TraceEvent& op, long long tokens, const AccumulateNodes& accumulate) {
  if (op.name.find("embedding_dense_backward") != std::string::npos ||
      op.name.find("embedding_backward") != std::string::npos)
    return true;
  if (accumulate.contain(op)) return true;
  if (tokens <= 0) return false;
  const auto& d = op.input_dims;
  if (op.name == "aten::mm" && d.size() >= 2 && d[0].size() == 2) return d[0][1] == tokens;
  if (op.name == "aten::addmm" && d.size() >= 3 && d[1].size() == 2) return d[1][1] == tokens;
  if (op.name == "aten::sum" && !d.empty() && d[0].size() == 2) return d[0][0] == tokens;
  return false;
}

struct Region {
  ModelPart part;
  const TraceEvent* event;
  int occurrence;
};

struct Claim {  // from `start` on, the step's time goes to `piece`
  double start;
  std::size_t piece;
};

// The step read: the last ProfilerStep#N, on its (the main) thread.
struct Window {
  const TraceEvent& step;
  bool inside(const TraceEvent& e) const { return e.start >= step.start && e.start < step.end(); }
  bool on_main_thread(const TraceEvent& e) const { return e.thread == step.thread && inside(e); }
};

const TraceEvent& last_step(const KinetoTrace& trace) {
  const TraceEvent* step = nullptr;
  for (const TraceEvent& a : trace.annotations)
    if (starts_with(a.name, "ProfilerStep#")) step = &a;
  if (!step)
    throw InputError(trace.file, "traceEvents",
                     "no ProfilerStep#N annotation: profile with torch.profiler.schedule and call prof.step() after "
                     "each training step");
  return *step;
}

// The labelled forward regions of the main thread, in order; a region
// nested in one already taken (a block's "norm") belongs to it.
std::vector<Region> labelled_regions(const KinetoTrace& trace, const Window& window, const TraceLabels& labels) {
  const LabelMatcher matcher(labels, trace.file);
  std::vector<Region> regions;
  std::map<std::string, int> seen;
  double taken_until = -std::numeric_limits<double>::infinity();
  for (const TraceEvent& a : trace.annotations) {
    if (!window.on_main_thread(a) || a.start < taken_until) continue;
    const std::optional<ModelPart> part = matcher.part(a.name);
    if (!part) continue;
    regions.push_back({*part, &a, seen[a.name]++});
    taken_until = a.end();
  }
  if (std::none_of(regions.begin(), regions.end(), [](const Region& r) { return r.part == ModelPart::Block; }))
    throw InputError(trace.file, "traceEvents",
                     window.step.name + " has no record_function region named like a block ('" + labels.block +
                         "'): label each block's forward with torch.profiler.record_function");
  return regions;
}

// Tokens per micro-batch: the token ids the first embedding region looks up; 0 when unknown.
long long tokens_per_microbatch(const KinetoTrace& trace, const std::vector<Region>& regions) {
  for (const Region& r : regions) {
    if (r.part != ModelPart::Embedding) continue;
    for (const TraceEvent& op : trace.ops)
      if (op.name == "aten::embedding" && op.start >= r.event->start && op.start < r.event->end() &&
          op.input_dims.size() >= 2 && !op.input_dims[1].empty()) {
        double tokens = 1;  // in double: a corrupt shape must not overflow
        for (long long d : op.input_dims[1]) tokens *= static_cast<double>(std::max(1LL, d));
        return tokens <= 1e15 ? static_cast<long long>(tokens) : 0;
      }
  }
  return 0;
}

// The moments that start a piece of the step, in time order: a region's
// start (its forward), a backward node of one of its forward ops (its
// backward: autograd's sequence numbers link them), the optimizer's
// zero_grad and step. Fills `pieces` in the order they first claim.
std::vector<Claim> step_claims(const KinetoTrace& trace, const Window& window, const std::vector<Region>& regions,
                               std::vector<StepPiece>& pieces) {
  // Forward ops -> their region (the last one begun).
  std::vector<double> region_starts;
  for (const Region& r : regions) region_starts.push_back(r.event->start);
  std::unordered_map<long long, long> region_of_sequence;
  for (const TraceEvent& op : trace.ops) {
    if (!window.on_main_thread(op) || op.sequence < 0) continue;
    const long r = static_cast<long>(std::upper_bound(region_starts.begin(), region_starts.end(), op.start) -
                                     region_starts.begin()) -
                   1;
    if (r >= 0) region_of_sequence.emplace(op.sequence, r);
  }
  std::vector<std::pair<double, std::pair<long, bool>>> raw;  // (start, (region or -1 for the optimizer, backward))
  for (std::size_t r = 0; r < regions.size(); ++r)
    raw.push_back({regions[r].event->start, {static_cast<long>(r), false}});
  for (const TraceEvent& a : trace.annotations)
    if (window.on_main_thread(a) && starts_with(a.name, "Optimizer.")) raw.push_back({a.start, {-1, false}});
  for (const TraceEvent& op : trace.ops) {
    if (!window.inside(op) || !starts_with(op.name, kBackwardNode)) continue;
    const auto it = region_of_sequence.find(op.sequence);
    if (it != region_of_sequence.end()) raw.push_back({op.start, {it->second, true}});
  }
  std::stable_sort(raw.begin(), raw.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::map<std::pair<long, bool>, std::size_t> piece_of;
  std::vector<Claim> claims;
  for (const auto& [start, key] : raw) {
    const auto [it, added] = piece_of.emplace(key, pieces.size());
    if (added) {
      StepPiece p;
      if (key.first < 0) {
        p.part = ModelPart::Optimizer;
        p.label = "optimizer";
      } else {
        const Region& r = regions[static_cast<std::size_t>(key.first)];
        p.part = r.part;
        p.label = r.event->name;
        p.occurrence = r.occurrence;
      }
      p.backward = key.second;
      pieces.push_back(p);
    }
    if (claims.empty() || claims.back().piece != it->second) claims.push_back({start, it->second});
  }
  return claims;
}

}  // namespace

StepCosts attribute_step(const KinetoTrace& trace, const TraceLabels& labels) {
  const Window window{last_step(trace)};
  const std::vector<Region> regions = labelled_regions(trace, window, labels);
  StepCosts out;
  out.step = window.step.name;
  out.seconds = window.step.duration;
  out.kernel_gap = queued_kernel_gap(trace.kernels);
  out.tokens = tokens_per_microbatch(trace, regions);
  const std::vector<Claim> claims = step_claims(trace, window, regions, out.pieces);

  // Kernels -> the claim in effect when the op that launched them began.
  AccumulateNodes accumulate;
  std::unordered_map<long long, const TraceEvent*> launcher;
  for (const TraceEvent& op : trace.ops) {
    if (!window.inside(op)) continue;
    if (op.external_id >= 0) launcher.emplace(op.external_id, &op);
    if (starts_with(op.name, kBackwardNode) && op.name.find("AccumulateGrad") != std::string::npos) accumulate.add(op);
  }
  std::vector<double> claim_starts;
  for (const Claim& c : claims) claim_starts.push_back(c.start);
  std::vector<double> kernels_end(claims.size(), 0);
  for (const TraceEvent& k : trace.kernels) {
    const auto it = launcher.find(k.external_id);
    if (k.external_id < 0 || it == launcher.end()) continue;
    const TraceEvent& op = *it->second;
    const std::size_t c = static_cast<std::size_t>(std::max<std::ptrdiff_t>(
        0, std::upper_bound(claim_starts.begin(), claim_starts.end(), op.start) - claim_starts.begin() - 1));
    StepPiece& p = out.pieces[claims[c].piece];
    const double device = k.duration + out.kernel_gap;
    p.device_seconds += device;
    if (p.backward && weight_gradient_op(op, out.tokens, accumulate)) p.weight_device_seconds += device;
    ++p.kernels;
    kernels_end[c] = std::max(kernels_end[c], k.end());
  }

  // Each claim adds what it moves the step's finish: the later of the host
  // reaching the next claim and its own kernels ending.
  double finish = window.step.start;
  for (std::size_t c = 0; c < claims.size(); ++c) {
    const double host_end = c + 1 < claims.size() ? claims[c + 1].start : window.step.end();
    const double next = std::max({finish, host_end, kernels_end[c]});
    out.pieces[claims[c].piece].seconds += next - finish;
    finish = next;
  }
  return out;
}

}  // namespace pipesim
