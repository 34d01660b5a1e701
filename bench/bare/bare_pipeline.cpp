// The bare SimGrid reference that bounds what pipesim's own code may cost:
// the same pipeline as `pipesim run`
// (S stages, stage s on host gpu<s>, F and B flops per stage, `bytes` of
// activations forward and gradients backward between neighbours), driven
// directly on SimGrid 3.32 with pipesim's default settings and none of
// pipesim: no actors, each Exec or Comm is created and started from the
// completion callback of what it waits for (the way that scales in 3.32).
// It prints the makespan and nothing else, so that timing it against
// `pipesim run` compares the whole commands.
//
// usage: pipesim_bare_pipeline PLATFORM.xml SCHEDULE STAGES MICROBATCHES F_FLOPS B_FLOPS BYTES
//        SCHEDULE: 1f1b or gpipe (one iteration, with flush)
#include <xbt/log.h>
#include <simgrid/s4u.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace s4u = simgrid::s4u;

namespace {

struct Op {
  bool backward;
  int mb;
};

// Each device's order for one iteration with flush.
std::vector<Op> device_order(const std::string& schedule, int S, int M, int s) {
  std::vector<Op> order;
  if (schedule == "gpipe") {
    for (int m = 0; m < M; ++m) order.push_back({false, m});
    for (int m = 0; m < M; ++m) order.push_back({true, m});
    return order;
  }
  const int warmup = std::min(S - 1 - s, M);
  int f = 0, b = 0;
  for (; f < warmup; ++f) order.push_back({false, f});
  while (f < M) {
    order.push_back({false, f++});
    order.push_back({true, b++});
  }
  while (b < M) order.push_back({true, b++});
  return order;
}

struct Pipeline {
  int S = 0, M = 0;
  double f_flops = 0, b_flops = 0, bytes = 0;
  std::vector<s4u::Host*> hosts;
  std::vector<std::vector<Op>> orders;
  std::vector<std::size_t> next;            // next op in each device's order
  std::vector<char> busy;                   // device running an Exec
  std::vector<std::vector<char>> arrived;   // [stage][2*mb + backward]: input there
  std::vector<s4u::ActivityPtr> held;       // SimGrid frees an activity nobody holds
  std::vector<s4u::ActivityPtr> graveyard;  // released one callback late

  // Tags: exec on stage s = 2s+1; comm to stage s carrying (mb, backward) = odd/even encoding below.
  static void* tag(std::uintptr_t kind, std::uintptr_t s, std::uintptr_t index) {
    return reinterpret_cast<void*>((index << 24) | (s << 2) | kind);
  }

  void try_start(int s) {
    if (busy[s] || next[s] == orders[s].size()) return;
    const Op op = orders[s][next[s]];
    const bool input_there =
        op.backward ? (s == S - 1 || arrived[s][2 * op.mb + 1]) : (s == 0 || arrived[s][2 * op.mb]);
    if (!input_there) return;
    ++next[s];
    busy[s] = 1;
    auto exec = s4u::Exec::init();
    exec->set_flops_amount(op.backward ? b_flops : f_flops);
    exec->set_host(hosts[s]);
    exec->set_data(tag(1, s, 2 * op.mb + op.backward));
    exec->start();
    held.push_back(std::move(exec));
  }

  void send(int from, int to, int mb, bool backward) {
    auto comm = s4u::Comm::sendto_init(hosts[from], hosts[to]);
    comm->set_payload_size(static_cast<std::uint64_t>(bytes));
    comm->set_data(tag(2, to, 2 * mb + backward));
    comm->start();
    held.push_back(std::move(comm));
  }

  void on_completion(const s4u::Activity& a) {
    graveyard.clear();
    const auto t = reinterpret_cast<std::uintptr_t>(a.get_data<void>());
    if (t == 0) return;
    const int kind = static_cast<int>(t & 3);
    const int s = static_cast<int>((t >> 2) & 0x3fffff);
    const auto index = static_cast<std::size_t>(t >> 24);
    const int mb = static_cast<int>(index / 2);
    const bool backward = index % 2;
    for (auto& h : held)
      if (h.get() == &a) {
        graveyard.push_back(std::move(h));
        h = std::move(held.back());
        held.pop_back();
        break;
      }
    if (kind == 1) {  // compute done on stage s
      busy[s] = 0;
      if (!backward && s + 1 < S) send(s, s + 1, mb, false);
      if (backward && s > 0) send(s, s - 1, mb, true);
      try_start(s);
    } else {  // input of stage s arrived
      arrived[s][index] = 1;
      try_start(s);
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 8) {
    std::fprintf(stderr, "usage: %s PLATFORM.xml 1f1b|gpipe STAGES MICROBATCHES F_FLOPS B_FLOPS BYTES\n", argv[0]);
    return 2;
  }
  xbt_log_control_set("root.thresh:warning");  // no configuration echo
  int sg_argc = 1;
  s4u::Engine engine(&sg_argc, argv);
  for (const char* cfg : {"network/model:CM02", "network/crosstraffic:0", "network/TCP-gamma:0", "cpu/optim:TI"})
    engine.set_config(cfg);
  engine.load_platform(argv[1]);
  Pipeline p;
  const std::string schedule = argv[2];
  p.S = std::atoi(argv[3]);
  p.M = std::atoi(argv[4]);
  p.f_flops = std::atof(argv[5]);
  p.b_flops = std::atof(argv[6]);
  p.bytes = std::atof(argv[7]);
  for (int s = 0; s < p.S; ++s) {
    p.hosts.push_back(engine.host_by_name("gpu" + std::to_string(s)));
    p.orders.push_back(device_order(schedule, p.S, p.M, s));
    p.arrived.emplace_back(2 * static_cast<std::size_t>(p.M), 0);
  }
  p.next.assign(p.S, 0);
  p.busy.assign(p.S, 0);
  s4u::Activity::on_completion_cb([&p](const s4u::Activity& a) { p.on_completion(a); });
  for (int s = 0; s < p.S; ++s) p.try_start(s);
  engine.run();
  std::printf("%.17g\n", s4u::Engine::get_clock());
  return 0;
}
