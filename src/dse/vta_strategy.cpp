// VTA-style selection, the baseline tau-VTA compares against: VTA's own knobs (vta_config.json:
// BATCH, blocks, widths, buffers, bus) built as VTA's HLS builds them (the board's clock, one ACC
// read port, the whole vector in the ALU, no array directives; the binding and DSP allocation HLS
// chooses), the only resource check before implementation a block-RAM budget (the buffers' bits
// against the device's block RAM), then designs implemented and tuned in order of peak GOPS. A
// design that then fails the device (LUTs, DSPs, timing) still costs its evaluation, as a failed
// place-and-route does.
#include <algorithm>
#include <cmath>

#include "dse/design_mapping.h"
#include "dse/strategies.h"

namespace tauvta::dse {

namespace {

class VtaSelection final : public Strategy {
 public:
  VtaSelection(const StrategyOptions& o, const DesignSpace& space, std::vector<Design> pruned) : o_(o) {
    const double bram_bits = space.device().total.bram36 * 36864.0;
    struct Cand {
      Design d;
      double peak;
    };
    std::vector<Cand> c;
    const Design stock = space.default_design();
    auto as_vta = [&](const Design& d) {
      for (Knob k : {Knob::kImplMhz, Knob::kAccPorts, Knob::kAluLanes, Knob::kArrayType}) {
        if (d[size_t(k)] != stock[size_t(k)]) return false;
      }
      return true;
    };
    for (const Design& d : pruned) {
      if (!as_vta(d)) continue;
      hw::HwConfig x = architecture(space, d);
      x.timing.clock_mhz = space.value(d, Knob::kImplMhz);
      const double bits = 8.0 * (std::ldexp(1.0, x.log_uop_buff_size) + std::ldexp(1.0, x.log_inp_buff_size) +
                                 std::ldexp(1.0, x.log_wgt_buff_size) + std::ldexp(1.0, x.log_acc_buff_size) +
                                 double(x.out_elem_bytes()) * x.out_depth());
      if (bits <= bram_bits) c.push_back({d, x.peak_gops()});
    }
    std::stable_sort(c.begin(), c.end(), [](const Cand& a, const Cand& b) { return a.peak > b.peak; });
    for (const Cand& x : c) order_.push_back(x.d);
    budget_pruned_ = order_.size();
  }

  std::vector<Ask> next() override {
    std::vector<Ask> asks;
    const int64_t budget = std::max<int64_t>(o_.budget, 0);
    while (asks.size() < size_t(std::max(1, o_.sprint)) && pos_ < order_.size() && fits_ < o_.overlays) {
      asks.push_back({order_[pos_++], budget});
    }
    return asks;
  }
  // Designs that fail the device cost an evaluation each but do not count against the overlays:
  // the selection goes on until that many designs were implemented and tuned.
  void report(std::span<const Evaluation> results) override {
    for (const Evaluation& e : results) fits_ += e.feasible ? 1 : 0;
  }
  std::string name() const override { return "vta"; }
  nlohmann::json summary() const override { return {{"bram_budget_candidates", budget_pruned_}}; }

 private:
  StrategyOptions o_;
  std::vector<Design> order_;
  size_t pos_ = 0, budget_pruned_ = 0;
  int fits_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_vta_selection(const StrategyOptions& o, const DesignSpace& space,
                                             std::vector<Design> pruned) {
  return std::make_unique<VtaSelection>(o, space, std::move(pruned));
}

}  // namespace tauvta::dse
