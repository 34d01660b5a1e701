#include "schedules/periodic/pattern_generators.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "patterns/pattern_timing.hpp"

namespace pipesim {
namespace {

constexpr double kTolerance = 1e-12;      // relative to the period: well inside find_overlap's 1e-9
constexpr std::size_t kMaxReleases = 64;  // releases tried per copy of kfkb_pattern
constexpr int kMaxStretches = 64;         // periods tried above the load bound, in steps of 1/64 of it

// F and B of every layer and copy on the allocation's device, all at offset 0.
Pattern skeleton(int k, const Allocation& a, WeightPolicy weights, LinkModel links) {
  if (k < 1) throw std::invalid_argument("kFkB pattern: k must be at least 1");
  Pattern p;
  p.layers = static_cast<int>(a.size());
  p.copies = k;
  p.period = 1;
  p.weights = weights;
  p.links = links;
  for (int c = 0; c < k; ++c)
    for (int l = 0; l < p.layers; ++l)
      for (TaskKind kind : {TaskKind::Forward, TaskKind::Backward}) {
        PatternOp op;
        op.kind = kind;
        op.layer = l;
        op.copy = c;
        op.device = a[l];
        p.ops.push_back(op);
      }
  return p;
}

double load_bound(const Pattern& p, const PatternTiming& t) {
  std::map<int, double> device, link;
  for (std::size_t i = 0; i < p.ops.size(); ++i) {
    device[p.ops[i].device] += t.duration[i];
    for (int r : t.transfer_links[i]) link[r] += t.transfer_duration[i];
  }
  double bound = 0;
  for (const auto& [d, load] : device) bound = std::max(bound, load);
  for (const auto& [l, load] : link) bound = std::max(bound, load);
  return bound;
}

// One resource (a device, or a link) over the cyclic period: occupied
// slots, ordered as find_overlap orders them (start, then task number and copy).
class CyclicTimeline {
 public:
  using Key = std::pair<int, int>;
  struct Slot {
    double start, length;
    Key key;
    int item;  // op or transfer index
  };
  struct Move {
    int item;
    double start;  // new offset
    double delay;  // new time - old time (may be negative)
  };

  explicit CyclicTimeline(double period) : T_(period) {}

  // Offset in [0, T).
  double wrap(double t) const {
    double r = std::fmod(t, T_);
    if (r < 0) r += T_;
    return r >= T_ * (1 - kTolerance) ? 0 : r;
  }

  // Smallest delay in [0, T) after `ready` (an offset) at which the slot
  // fits; -1 if none: it can only start at `ready` or where a slot ends.
  double earliest(double ready, double length, Key key) const {
    std::vector<double> delays{0};
    add_delays(ready, delays);
    std::sort(delays.begin(), delays.end());
    for (double d : delays)
      if (fits(wrap(ready + d), length, key)) return d;
    return -1;
  }

  // The delays in [0, T) after `ready` at which a slot of this timeline ends.
  void add_delays(double ready, std::vector<double>& delays) const {
    for (const Slot& s : slots_) {
      double d = wrap(s.start + s.length) - ready;
      delays.push_back(d < 0 ? d + T_ : d);
    }
  }

  std::vector<double> ends() const {
    std::vector<double> out;
    for (const Slot& s : slots_) out.push_back(s.start + s.length);
    return out;
  }

  void insert(double start, double length, Key key, int item) {
    Slot s{start, length, key, item};
    slots_.insert(std::upper_bound(slots_.begin(), slots_.end(), s, before), s);
  }

  // Inserts the slot at `ready` and makes room: the slots after it in
  // period order are delayed as little as needed (each starts at its offset
  // or when the previous ends); if they then overflow the period, all of
  // them run back to back after it, in the same order (the total fits).
  // No overlap with the slots before and after it in period order (cyclically).
  bool fits(double start, double length, Key key) const {
    if (length > T_ * (1 + kTolerance)) return false;
    if (slots_.empty()) return true;
    const Slot s{start, length, key, -1};
    const auto pos = std::upper_bound(slots_.begin(), slots_.end(), s, before) - slots_.begin();
    const std::size_t n = slots_.size();
    const Slot& prev = slots_[(pos + n - 1) % n];
    const Slot& next = slots_[pos % n];
    const double prev_start = prev.start - (pos == 0 ? T_ : 0);
    const double next_start = next.start + (static_cast<std::size_t>(pos) == n ? T_ : 0);
    const double slack = T_ * kTolerance;
    return prev_start + prev.length <= start + slack && start + length <= next_start + slack;
  }

  std::vector<Move> insert_compacting(double ready, double length, Key key, int item) {
    insert(ready, length, key, item);
    const std::size_t n = slots_.size();
    std::size_t q = 0;
    while (slots_[q].item != item) ++q;
    std::vector<double> start(n);
    auto unwrapped = [&](std::size_t i) { return slots_[i].start + (i < q ? T_ : 0); };  // from the new slot on
    for (int pass = 0; pass < 2; ++pass) {
      double end = ready;
      for (std::size_t r = 0; r < n; ++r) {
        const std::size_t i = (q + r) % n;
        start[i] = pass == 0 ? std::max(unwrapped(i), end) : end;
        end = start[i] + slots_[i].length;
      }
      if (end <= ready + T_ * (1 + kTolerance)) break;
    }
    std::vector<Move> moves;
    for (std::size_t i = 0; i < n; ++i) {
      moves.push_back({slots_[i].item, wrap(start[i]), start[i] - unwrapped(i)});
      slots_[i].start = wrap(start[i]);
    }
    std::sort(slots_.begin(), slots_.end(), before);
    return moves;
  }

 private:
  static bool before(const Slot& a, const Slot& b) { return std::tie(a.start, a.key) < std::tie(b.start, b.key); }

  double T_;
  std::vector<Slot> slots_;
};

// Per layer, the most micro-batches whose input is stashed at once on its
// device while one of its ops runs: pattern_memory's stash_counts (Lemma
// 10), recomputed here because schedules/ does not link analysis/.
std::vector<int> stash_counts(const Pattern& p) {
  std::map<int, std::vector<int>> order;
  for (std::size_t i = 0; i < p.ops.size(); ++i) order[p.ops[i].device].push_back(static_cast<int>(i));
  std::vector<int> pos(p.ops.size()), result(p.layers, 0), backward(p.layers * p.copies, -1);
  for (auto& [d, items] : order) {
    std::sort(items.begin(), items.end(), [&](int a, int b) { return p.runs_before(a, b); });
    for (std::size_t k = 0; k < items.size(); ++k) pos[items[k]] = static_cast<int>(k);
  }
  for (std::size_t i = 0; i < p.ops.size(); ++i)
    if (p.ops[i].kind == TaskKind::Backward) backward[p.ops[i].layer * p.copies + p.ops[i].copy] = static_cast<int>(i);
  for (const auto& [d, items] : order)
    for (int x : items) {
      std::map<int, int> count;
      for (int f : items) {
        if (p.ops[f].kind != TaskKind::Forward) continue;
        const int b = backward[p.ops[f].layer * p.copies + p.ops[f].copy];
        count[p.ops[f].layer] += p.ops[f].shift - p.ops[b].shift + (pos[f] <= pos[x]) - (pos[b] < pos[x]);
      }
      for (const auto& [layer, n] : count) result[layer] = std::max(result[layer], n);
    }
  return result;
}

// A transfer whose route holds several link resources found no offset where
// all of them are free: kfkb_pattern retries with a longer period.
struct NoCommonSlot {};

// Modulo scheduling along the chain (see kfkb_pattern). Ops are indexed
// copy by copy (skeleton's order), so copies 0..c are a prefix.
class Placer {
 public:
  Placer(Pattern p, const PatternTiming& t)
      : p_(std::move(p)),
        t_(&t),
        succ_(p_.successors()),
        end_(p_.ops.size(), 0),
        arrival_(p_.ops.size(), 0),
        placed_(p_.ops.size(), false) {}

  int op(int task_number, int copy) const {  // skeleton's index
    const int j = task_number - 1, L = p_.layers;
    return copy * 2 * L + (j < L ? 2 * j : 2 * (2 * L - 1 - j) + 1);
  }

  // Copy c's chain, its first forward ready at `release`.
  void place_chain(int c, double release) {
    arrival_[op(1, c)] = release;
    for (int j = 1; j <= 2 * p_.layers; ++j) place(op(j, c));
  }

  // Every copy at once, task by task: copy 0 .. k-1 of T_j, then of T_{j+1}.
  void place_interleaved() {
    for (int j = 1; j <= 2 * p_.layers; ++j)
      for (int c = 0; c < p_.copies; ++c) place(op(j, c));
  }

  // Copies 0..copies-1 as a pattern of their own, with minimal shifts.
  Pattern pattern(int copies) const {
    Pattern q = p_;
    const std::size_t n = 2 * p_.layers * copies;
    q.copies = copies;
    q.ops.resize(n);
    q.transfers.clear();
    for (const PatternTransfer& tr : p_.transfers)
      if (static_cast<std::size_t>(tr.from) < n) q.transfers.push_back(tr);
    PatternTiming t = *t_;
    for (auto* v : {&t.duration, &t.flops, &t.output_bytes, &t.transfer_duration}) v->resize(n);
    t.transfer_links.resize(n);
    assign_minimal_shifts(q, t);
    return q;
  }

  // Offsets in [0, T) at which copy c's op j would start if its chain
  // never waited and it started right where something on its device (or
  // link) ends: releases worth trying for copy c.
  std::vector<double> releases(int c) const {
    std::vector<double> out{0};
    double at = 0;  // no-wait time of op j after the release
    for (int j = 1; j <= 2 * p_.layers; ++j) {
      const int i = op(j, c);
      for (const auto& [id, tl] : devices_)
        if (id.first == p_.ops[i].device)
          for (double e : tl.ends()) out.push_back(tl.wrap(e - at));
      at += t_->duration[i];
      if (succ_[i] >= 0 && p_.ops[succ_[i]].device != p_.ops[i].device) at += t_->transfer_duration[i];
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

 private:
  template <class Id>
  CyclicTimeline& timeline(std::map<Id, CyclicTimeline>& m, Id id) {
    return m.try_emplace(id, p_.period).first->second;
  }

  CyclicTimeline::Key key(int i) const { return {p_.task_number(p_.ops[i]), p_.ops[i].copy}; }

  void place(int i) {
    place_op(i);
    const int s = succ_[i];
    if (s < 0) return;
    if (p_.ops[s].device == p_.ops[i].device)
      arrival_[s] = end_[i];
    else
      place_transfer(i);
  }

  void place_op(int i) {
    const double ready = arrival_[i];
    placed_[i] = true;
    CyclicTimeline& tl = timeline(devices_, {p_.ops[i].device, 0});
    const double d = t_->duration[i];
    const double delay = tl.earliest(tl.wrap(ready), d, key(i));
    if (delay >= 0) {
      p_.ops[i].start = tl.wrap(ready + delay);
      tl.insert(p_.ops[i].start, d, key(i), i);
      end_[i] = ready + delay + d;
      return;
    }
    end_[i] = ready + d;
    for (const auto& m : tl.insert_compacting(tl.wrap(ready), d, key(i), i)) {
      p_.ops[m.item].start = m.start;
      end_[m.item] += m.delay;
      const int s = succ_[m.item];  // a consumer on the same device not placed yet waits for the new end
      if (s >= 0 && !placed_[s] && p_.ops[s].device == p_.ops[m.item].device) arrival_[s] = end_[m.item];
    }
  }

  // Sets when the output reaches the consumer's device.
  void place_transfer(int from) {
    const double ready = end_[from];
    const int t = static_cast<int>(p_.transfers.size());
    const int to = succ_[from];
    const double d = t_->transfer_duration[from];
    const std::vector<int>& links = t_->transfer_links[from];
    if (links.empty()) {  // empty, or only FatPipe links: holds no link
      p_.transfers.push_back({from, CyclicTimeline(p_.period).wrap(ready), 0});
      arrival_[to] = ready + d;
      return;
    }
    if (links.size() > 1) return place_on_links(from, links);
    CyclicTimeline& tl = timeline(links_, links[0]);
    const double delay = tl.earliest(tl.wrap(ready), d, key(from));
    if (delay >= 0) {
      p_.transfers.push_back({from, tl.wrap(ready + delay), 0});
      tl.insert(p_.transfers[t].start, d, key(from), t);
      arrival_[to] = ready + delay + d;
      return;
    }
    p_.transfers.push_back({from, tl.wrap(ready), 0});
    arrival_[to] = ready + d;
    for (const auto& m : tl.insert_compacting(tl.wrap(ready), d, key(from), t)) {
      p_.transfers[m.item].start = m.start;
      const int consumer = succ_[p_.transfers[m.item].from];
      if (!placed_[consumer]) arrival_[consumer] += m.delay;
    }
  }

  // A route of several link resources: the earliest offset where all are
  // free (no compaction: moving a transfer would move it on its other links).
  void place_on_links(int from, const std::vector<int>& links) {
    const double ready = end_[from], d = t_->transfer_duration[from];
    std::vector<CyclicTimeline*> tls;
    for (int r : links) tls.push_back(&timeline(links_, r));
    const double at = tls[0]->wrap(ready);
    std::vector<double> delays{0};
    for (const CyclicTimeline* tl : tls) tl->add_delays(at, delays);
    std::sort(delays.begin(), delays.end());
    for (double delay : delays) {
      const double start = tls[0]->wrap(at + delay);
      bool free = true;
      for (const CyclicTimeline* tl : tls) free = free && tl->fits(start, d, key(from));
      if (!free) continue;
      const int t = static_cast<int>(p_.transfers.size());
      p_.transfers.push_back({from, start, 0});
      for (CyclicTimeline* tl : tls) tl->insert(start, d, key(from), t);
      arrival_[succ_[from]] = ready + delay + d;
      return;
    }
    throw NoCommonSlot{};
  }

  Pattern p_;
  const PatternTiming* t_;  // a pointer, so that trials can be assigned
  std::vector<int> succ_;
  std::vector<double> end_, arrival_;  // per op: end, and when its input is there (times, not offsets)
  std::vector<bool> placed_;
  std::map<std::pair<int, int>, CyclicTimeline> devices_;
  std::map<int, CyclicTimeline> links_;  // by link resource (timing.transfer_links)
};

// Lower is better: stashed bytes (sum over layers of stash count x a_{l-1}), then stashed copies.
std::pair<double, int> stash_score(const Pattern& p, const PatternTiming& t) {
  const std::vector<int> counts = stash_counts(p);
  std::pair<double, int> score{0, 0};
  for (std::size_t i = 0; i < p.ops.size(); ++i)
    if (p.ops[i].kind == TaskKind::Backward && p.ops[i].copy == 0)
      score.first += counts[p.ops[i].layer] * t.output_bytes[i];  // B_l outputs a_{l-1}
  for (int n : counts) score.second += n;
  return score;
}

// Round-off can put the last sub-period's offsets at the period's end.
double in_period(double offset, double period) { return offset < period ? offset : 0; }

// k periods of a 1F1B pattern as one kFkB period (the same schedule, so
// the same memory): the instance of op j in sub-period c handles
// micro-batch k i + c + s(j), i.e. copy (c + s(j)) mod k. Ops in skeleton order.
Pattern replicate(const Pattern& one, int k, const PatternTiming& t) {
  Pattern p = one;
  p.copies = k;
  p.period = one.period * k;
  p.ops.assign(one.ops.size() * k, PatternOp{});
  p.transfers.clear();
  // Skeleton index of op j of `one` as handled in sub-period c by an item of that shift.
  auto index = [&](int c, int j, int shift) {
    const PatternOp& o = one.ops[j];
    const int copy = ((c + shift) % k + k) % k;
    return copy * 2 * one.layers + 2 * o.layer + (o.kind == TaskKind::Backward ? 1 : 0);
  };
  for (int c = 0; c < k; ++c) {
    for (std::size_t j = 0; j < one.ops.size(); ++j) {
      const int shift = one.ops[j].shift;
      PatternOp& op = p.ops[index(c, static_cast<int>(j), shift)];
      op = one.ops[j];
      op.copy = ((c + shift) % k + k) % k;
      op.start = in_period(op.start + c * one.period, p.period);
    }
    for (const PatternTransfer& tr : one.transfers)  // its own shift: it may run a period after its producer
      p.transfers.push_back({index(c, tr.from, tr.shift), in_period(tr.start + c * one.period, p.period), 0});
  }
  assign_minimal_shifts(p, t);
  return p;
}

}  // namespace

double pattern_period_bound(const Allocation& allocation, const Workload& workload, const Platform& platform,
                            int copies, LinkModel links) {
  const Pattern p = skeleton(copies, allocation, WeightPolicy::TwoBW, links);
  return load_bound(p, pattern_timing(p, workload, platform));
}

namespace {

// kfkb_pattern at a given period; throws NoCommonSlot.
Pattern kfkb_at(int k, Pattern p, const PatternTiming& t, const Allocation& allocation, const Workload& workload,
                const Platform& platform) {
  // Copy by copy, each at the release that stashes least so far.
  Placer placer(p, t);
  placer.place_chain(0, 0);
  for (int c = 1; c < k; ++c) {
    std::vector<double> releases = placer.releases(c);
    if (releases.size() > kMaxReleases) {  // large chains: an even sample
      std::vector<double> sample;
      for (std::size_t i = 0; i < kMaxReleases; ++i) sample.push_back(releases[i * releases.size() / kMaxReleases]);
      releases = sample;
    }
    std::optional<Placer> best;
    std::pair<double, int> best_score;
    for (double r : releases) {
      Placer trial = placer;
      try {
        trial.place_chain(c, r);
      } catch (const NoCommonSlot&) {
        continue;
      }
      const auto score = stash_score(trial.pattern(c + 1), t);
      if (!best || score < best_score) best = std::move(trial), best_score = score;
    }
    if (!best) throw NoCommonSlot{};
    placer = std::move(*best);
  }
  Pattern result = placer.pattern(k);
  if (k == 1) return result;
  auto keep_better = [&](Pattern other) {
    if (other.period <= result.period * (1 + kTolerance) && stash_score(other, t) < stash_score(result, t))
      result = std::move(other);
  };
  try {
    Placer interleaved(p, t);  // copies task by task, as a plain modulo schedule would
    interleaved.place_interleaved();
    keep_better(interleaved.pattern(k));
  } catch (const NoCommonSlot&) {
  }
  try {  // k periods of 1F1B, whose own placement may need a longer period
    keep_better(replicate(one_f_one_b_pattern(allocation, workload, platform, p.weights, p.links), k, t));
  } catch (const std::invalid_argument&) {
  }
  return result;
}

}  // namespace

Pattern kfkb_pattern(int k, const Allocation& allocation, const Workload& workload, const Platform& platform,
                     WeightPolicy weights, LinkModel links) {
  Pattern p = skeleton(k, allocation, weights, links);
  const PatternTiming t = pattern_timing(p, workload, platform);
  p.period = load_bound(p, t);
  if (!(p.period > 0)) throw std::invalid_argument("kFkB pattern: every operation and transfer takes no time");
  const double bound = p.period;
  for (int attempt = 0; attempt <= kMaxStretches; ++attempt) {
    p.period = bound * (1 + attempt / 64.0);
    try {
      return kfkb_at(k, p, t, allocation, workload, platform);
    } catch (const NoCommonSlot&) {
    }
  }
  throw std::invalid_argument("kFkB pattern: transfers over several links find no common free time within " +
                              std::to_string(1 + kMaxStretches / 64) + " times the load bound");
}

Pattern one_f_one_b_pattern(const Allocation& allocation, const Workload& workload, const Platform& platform,
                            WeightPolicy weights, LinkModel links) {
  return kfkb_pattern(1, allocation, workload, platform, weights, links);
}

}  // namespace pipesim
