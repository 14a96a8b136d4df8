// Dynamic health of a cluster, in dense struct-of-arrays tables.
//
// Each chip has an outage depth: the number of active outages that cover it
// (its own failure, its host's, its slice's, its site's). A chip is up iff its
// depth is zero; a slice is up iff all of its chips are up. Tables are one byte
// per chip and four per slice, so 1.5M chips cost about 1.5 MB. Any depth is
// supported: a chip's byte saturates at 255 and the outages beyond it are
// counted in a small side table (a trace may fail one chip again and again
// before it returns).
//
// Every fail()/repair() notifies the observers once, after the tables are
// updated, with the slices whose up/down state flipped. Observers are
// non-owning pointers, called in registration order.
//
// The cluster also owns the slowdown state (slowdown_state.h): which parts run
// slower than nominal. add_slowdown/update_slowdown/remove_slowdown change it
// and notify observers through on_slowdown_change(); fail()/repair() keep its
// "max over up slices" index in sync with slice health.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cluster/layout.h"
#include "sim/cluster/slowdown_state.h"
#include "sim/core/time.h"

namespace goodsim::cluster {

// Root causes are interned per run: 0 is "unspecified".
using CauseId = uint32_t;
inline constexpr CauseId kUnspecifiedCause = 0;

struct ClusterChange {
  core::SimTime time;
  Domain domain;
  uint32_t id;      // unit of `domain`
  bool failed;      // true: an outage began; false: one ended
  CauseId cause;    // of the outage that began; kUnspecifiedCause for repairs
  std::span<const SliceId> slices_flipped;  // went down (failed) or came up (!failed)
};

enum class SlowdownChangeKind : uint8_t { kAdded, kUpdated, kRemoved };

struct SlowdownChange {
  core::SimTime time;
  SlowdownChangeKind kind;
  SlowdownId id;
  SlowdownTarget target;
  SlowdownMode mode;
  double factor;    // the new factor (added, updated) or the one removed
  bool all_slices;  // a fleet-wide slowdown: every slice may have changed, `slices` is empty
  std::span<const SliceId> slices;  // otherwise: the slices whose slice_slowdown() changed
};

class ClusterObserver {
 public:
  virtual ~ClusterObserver() = default;
  virtual void on_cluster_change(const ClusterChange& change) = 0;
  // Called after every slowdown change, with the tables already updated.
  virtual void on_slowdown_change(const SlowdownChange& /*change*/) {}
};

class ClusterState {
 public:
  explicit ClusterState(const Layout& layout);

  // Adds one outage over every chip of unit `id` of domain `d`.
  // REQUIRES: id < layout.count(d); cause interned here.
  void fail(Domain d, uint32_t id, core::SimTime now, CauseId cause = kUnspecifiedCause);
  // Ends one outage over unit `id`. REQUIRES: a matching fail() happened.
  void repair(Domain d, uint32_t id, core::SimTime now);

  // Starts a slowdown of `target` by `factor` (>= 1, multiplies step time);
  // see SlowdownState for how modes combine. O(log S) for a chip, host or
  // slice, O(slices of the site x log S) for a site, independent of the
  // cluster size for kAll. REQUIRES: factor >= 1 and finite; target valid.
  SlowdownId add_slowdown(SlowdownTarget target, double factor, SlowdownMode mode,
                          core::SimTime now);
  // Changes the factor of an active slowdown (e.g. a diurnal swing), with one
  // notification. REQUIRES: slowdown().is_active(id); factor >= 1 and finite.
  void update_slowdown(SlowdownId id, double factor, core::SimTime now);
  // Ends an active slowdown. REQUIRES: slowdown().is_active(id).
  void remove_slowdown(SlowdownId id, core::SimTime now);
  const SlowdownState& slowdown() const { return slowdown_; }

  void add_observer(ClusterObserver* observer) { observers_.push_back(observer); }

  // The id of a root-cause name, added on first use. Ids follow first use, so
  // injectors intern their causes in start(), in scenario order.
  CauseId intern_cause(std::string_view name);
  const std::string& cause_name(CauseId id) const { return cause_names_[id]; }
  size_t cause_count() const { return cause_names_.size(); }

  const Layout& layout() const { return layout_; }
  bool chip_up(ChipId c) const { return chip_depth_[c] == 0; }
  bool slice_up(SliceId s) const { return slice_down_chips_[s] == 0; }
  uint32_t slice_down_chips(SliceId s) const { return slice_down_chips_[s]; }
  uint64_t down_chips() const { return down_chips_; }
  uint32_t down_slices() const { return down_slices_; }
  uint32_t up_slices() const { return layout_.slices() - down_slices_; }
  // Bytes the per-chip and per-slice tables take for `layout`, computed without
  // allocating them; `slowdowns`: with the slowdown tables (allocated on the first one).
  static double table_bytes_for(const Layout& layout, bool slowdowns) {
    return static_cast<double>(layout.chips()) * sizeof(uint8_t) +
           static_cast<double>(layout.slices()) * sizeof(uint32_t) +
           (slowdowns ? SlowdownState::table_bytes_for(layout) : 0.0);
  }
  // Bytes held by the per-chip and per-slice tables.
  size_t table_bytes() const {
    return chip_depth_.capacity() * sizeof(uint8_t) + slice_down_chips_.capacity() * sizeof(uint32_t) +
           slowdown_.table_bytes();
  }

 private:
  void apply(Domain d, uint32_t id, bool failing, core::SimTime now, CauseId cause);
  // Adjust one chip's outage depth; true when its slice flipped.
  bool add_outage(ChipId c);
  bool remove_outage(ChipId c);
  void notify(Domain d, uint32_t id, bool failed, core::SimTime now, CauseId cause);
  void notify_slowdown(SlowdownChangeKind kind, SlowdownId id, SlowdownTarget target,
                       SlowdownMode mode, double factor, core::SimTime now);

  const Layout& layout_;
  std::vector<uint8_t> chip_depth_;
  std::map<ChipId, uint64_t> deep_outages_;  // outages beyond 255, for chips at 255
  std::vector<uint32_t> slice_down_chips_;
  uint64_t down_chips_ = 0;
  uint32_t down_slices_ = 0;
  std::vector<SliceId> flipped_;  // scratch, reused across calls
  SlowdownState slowdown_;
  std::vector<ClusterObserver*> observers_;
  std::vector<std::string> cause_names_{"unspecified"};
  std::map<std::string, CauseId, std::less<>> cause_ids_{{"unspecified", kUnspecifiedCause}};
};

}  // namespace goodsim::cluster
