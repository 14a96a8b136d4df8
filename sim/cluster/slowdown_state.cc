#include "sim/cluster/slowdown_state.h"

#include <algorithm>
#include <cmath>

#include "sim/core/check.h"

namespace goodsim::cluster {

const char* slowdown_mode_name(SlowdownMode m) {
  return m == SlowdownMode::kSlowest ? "slowest" : "scale";
}

const char* slowdown_scope_name(SlowdownScope s) {
  return s == SlowdownScope::kAll ? "all" : domain_name(static_cast<Domain>(s));
}

SlowdownState::SlowdownState(const Layout& layout) : layout_(layout) {}

double SlowdownState::slice_slowdown(SliceId s) const {
  GOODSIM_CHECK(s < layout_.slices());
  if (!allocated_) return 1.0;
  return fleet_agg_.scale * local_scale(s) * std::max(local_slowest(s), fleet_agg_.slowest);
}

double SlowdownState::max_slowdown(SliceId first, SliceId end) const {
  GOODSIM_CHECK(first <= end && end <= layout_.slices());
  if (!allocated_ || first == end) return 1.0;
  const double scale = query(tree_scale_, first, end);
  if (scale == 0) return 1.0;  // no slice of the range is up
  const double rate = query(tree_rate_, first, end);
  return fleet_agg_.scale * std::max(rate, fleet_agg_.slowest * scale);
}

double SlowdownState::excess_slowdown(SliceId first, SliceId end) const {
  GOODSIM_CHECK(first <= end && end <= layout_.slices());
  if (!allocated_ || first == end) return 0.0;
  const double f = fleet_agg_.slowest;
  const double sum = f == 1.0 ? query_sum(sum_rate_, first, end)
                              : f * query_sum(sum_scale_, first, end) + excess_over(f, first, end);
  return std::max(0.0, fleet_agg_.scale * sum - query_sum(sum_up_, first, end));
}

bool SlowdownState::is_active(SlowdownId id) const {
  const uint64_t index = id.value() & 0xffffffffULL;
  return index < entries_.size() && entries_[index].live &&
         entries_[index].generation == (id.value() >> 32);
}

double SlowdownState::factor(SlowdownId id) const { return entries_[checked_index(id)].factor; }

SlowdownTarget SlowdownState::target(SlowdownId id) const {
  const Entry& e = entries_[checked_index(id)];
  return {e.scope, e.target_id};
}

SlowdownMode SlowdownState::mode(SlowdownId id) const { return entries_[checked_index(id)].mode; }

double SlowdownState::table_bytes_for(const Layout& layout) {
  const auto slices = static_cast<double>(layout.slices());
  const auto sites = static_cast<double>(layout.sites());
  const double per_slice = sizeof(uint32_t) + sizeof(Aggregate) + 1 + 10 * sizeof(double);
  return slices * per_slice + sites * (sizeof(uint32_t) + sizeof(Aggregate));
}

size_t SlowdownState::table_bytes() const {
  return entries_.capacity() * sizeof(Entry) + slice_head_.capacity() * sizeof(uint32_t) +
         slice_agg_.capacity() * sizeof(Aggregate) + site_head_.capacity() * sizeof(uint32_t) +
         site_agg_.capacity() * sizeof(Aggregate) + slice_up_.capacity() +
         (tree_rate_.capacity() + tree_scale_.capacity() + sum_rate_.capacity() +
          sum_scale_.capacity() + sum_up_.capacity()) * sizeof(double) +
         slowest_slices_.size() * kSetNodeBytes +
         changed_.capacity() * sizeof(SliceId);
}

// ---- Mutations (through ClusterState) -------------------------------------

SlowdownId SlowdownState::add(SlowdownTarget target, double factor, SlowdownMode mode,
                              std::span<const uint32_t> slice_down_chips) {
  GOODSIM_CHECK_MSG(std::isfinite(factor) && factor >= 1.0, "slowdown factor must be >= 1");
  GOODSIM_CHECK(target.scope == SlowdownScope::kAll ||
                target.id < layout_.count(static_cast<Domain>(target.scope)));
  if (!allocated_) allocate(slice_down_chips);
  uint32_t index = free_head_;
  if (index != kNone) {
    free_head_ = entries_[index].next;
  } else {
    GOODSIM_CHECK_MSG(entries_.size() < kNone, "too many active slowdowns");
    index = static_cast<uint32_t>(entries_.size());
    entries_.emplace_back();
  }
  Entry& e = entries_[index];
  e.factor = factor;
  e.scope = target.scope;
  e.target_id = target.scope == SlowdownScope::kAll ? 0 : target.id;
  e.list = list_of(target);
  e.mode = mode;
  e.live = true;
  link(index);
  ++active_;
  apply_change(e, [&] { refresh(e, 0.0, false); });
  return SlowdownId::from_value(uint64_t{e.generation} << 32 | index);
}

void SlowdownState::update(SlowdownId id, double factor) {
  GOODSIM_CHECK_MSG(std::isfinite(factor) && factor >= 1.0, "slowdown factor must be >= 1");
  Entry& e = entries_[checked_index(id)];
  const double old = e.factor;
  e.factor = factor;
  apply_change(e, [&] { refresh(e, old, false); });
}

void SlowdownState::remove(SlowdownId id) {
  const uint32_t index = checked_index(id);
  Entry& e = entries_[index];
  unlink(index);
  e.live = false;
  apply_change(e, [&] { refresh(e, 0.0, true); });
  if (++e.generation == 0) e.generation = 1;  // 0 would allow the null handle
  e.next = free_head_;
  free_head_ = index;
  --active_;
}

void SlowdownState::set_slice_up(SliceId s, bool up) {
  if (!allocated_) return;
  slice_up_[s] = up ? 1 : 0;
  set_leaf(s);
}

// ---- Internals ------------------------------------------------------------

void SlowdownState::allocate(std::span<const uint32_t> slice_down_chips) {
  const uint32_t n = layout_.slices();
  GOODSIM_CHECK(slice_down_chips.size() == n);
  slice_head_.assign(n, kNone);
  slice_agg_.assign(n, Aggregate{});
  site_head_.assign(layout_.sites(), kNone);
  site_agg_.assign(layout_.sites(), Aggregate{});
  slice_up_.resize(n);
  for (auto* tree : {&tree_rate_, &tree_scale_, &sum_rate_, &sum_scale_, &sum_up_}) {
    tree->assign(2 * size_t{n}, 0.0);
  }
  for (uint32_t s = 0; s < n; ++s) {
    slice_up_[s] = slice_down_chips[s] == 0 ? 1 : 0;
    const double leaf = slice_up_[s] ? 1.0 : 0.0;
    tree_rate_[n + s] = tree_scale_[n + s] = sum_rate_[n + s] = sum_scale_[n + s] =
        sum_up_[n + s] = leaf;
  }
  for (size_t i = n - 1; i >= 1; --i) pull_up(i);
  allocated_ = true;
}

uint32_t SlowdownState::checked_index(SlowdownId id) const {
  GOODSIM_CHECK_MSG(is_active(id), "unknown or already removed slowdown");
  return static_cast<uint32_t>(id.value() & 0xffffffffULL);
}

uint32_t SlowdownState::list_of(SlowdownTarget t) const {
  switch (t.scope) {
    case SlowdownScope::kChip: return layout_.slice_of(t.id);
    case SlowdownScope::kHost: return layout_.slice_of_host(t.id);
    case SlowdownScope::kSlice:
    case SlowdownScope::kSite: return t.id;
    case SlowdownScope::kAll: return 0;
  }
  return 0;
}

uint32_t& SlowdownState::head_of(SlowdownScope scope, uint32_t list) {
  if (scope == SlowdownScope::kAll) return fleet_head_;
  return scope == SlowdownScope::kSite ? site_head_[list] : slice_head_[list];
}

SlowdownState::Aggregate& SlowdownState::aggregate_of(SlowdownScope scope, uint32_t list) {
  if (scope == SlowdownScope::kAll) return fleet_agg_;
  return scope == SlowdownScope::kSite ? site_agg_[list] : slice_agg_[list];
}

void SlowdownState::link(uint32_t index) {
  Entry& e = entries_[index];
  uint32_t& head = head_of(e.scope, e.list);
  e.prev = kNone;
  e.next = head;
  if (head != kNone) entries_[head].prev = index;
  head = index;
}

void SlowdownState::unlink(uint32_t index) {
  Entry& e = entries_[index];
  if (e.prev != kNone) {
    entries_[e.prev].next = e.next;
  } else {
    head_of(e.scope, e.list) = e.next;
  }
  if (e.next != kNone) entries_[e.next].prev = e.prev;
  e.prev = e.next = kNone;
}

void SlowdownState::refresh(const Entry& e, double old_factor, bool removed) {
  Aggregate& agg = aggregate_of(e.scope, e.list);
  if (e.mode == SlowdownMode::kSlowest) {
    // A max survives any change that neither removes nor lowers the current
    // maximum, so most changes are O(1); products are always rescanned so
    // that adding and removing a factor cannot leave rounding drift behind.
    if (!removed && e.factor >= agg.slowest) {
      agg.slowest = e.factor;
      return;
    }
    const double gone = removed ? e.factor : old_factor;
    if (gone < agg.slowest) return;
  }
  agg = rescan(head_of(e.scope, e.list));
}

SlowdownState::Aggregate SlowdownState::rescan(uint32_t head) const {
  Aggregate agg;
  for (uint32_t i = head; i != kNone; i = entries_[i].next) {
    const Entry& e = entries_[i];
    if (e.mode == SlowdownMode::kScale) {
      agg.scale *= e.factor;
    } else {
      agg.slowest = std::max(agg.slowest, e.factor);
    }
  }
  return agg;
}

template <class Change>
void SlowdownState::apply_change(const Entry& e, Change change) {
  changed_.clear();
  if (e.scope == SlowdownScope::kAll) {
    change();
    return;
  }
  SliceId first = e.list;
  uint32_t count = 1;
  if (e.scope == SlowdownScope::kSite) {
    first = layout_.first_slice_of(e.list);
    count = layout_.slices_of(e.list);
  }
  before_.resize(count);
  for (uint32_t i = 0; i < count; ++i) before_[i] = slice_slowdown(first + i);
  change();
  for (uint32_t i = 0; i < count; ++i) {
    const SliceId s = first + i;
    set_leaf(s);  // even when masked by the fleet's slowest: the tree keeps both parts
    if (slice_slowdown(s) != before_[i]) changed_.push_back(s);
  }
}

double SlowdownState::local_slowest(SliceId s) const {
  return std::max(slice_agg_[s].slowest, site_agg_[layout_.site_of(s)].slowest);
}

double SlowdownState::local_scale(SliceId s) const {
  return slice_agg_[s].scale * site_agg_[layout_.site_of(s)].scale;
}

void SlowdownState::set_leaf(SliceId s) {
  const size_t n = layout_.slices();
  const bool up = slice_up_[s] != 0;
  size_t i = n + s;
  tree_scale_[i] = sum_scale_[i] = up ? local_scale(s) : 0.0;
  tree_rate_[i] = sum_rate_[i] = up ? local_scale(s) * local_slowest(s) : 0.0;
  sum_up_[i] = up ? 1.0 : 0.0;
  if (up && local_slowest(s) > 1.0) {
    slowest_slices_.insert(s);
  } else {
    slowest_slices_.erase(s);
  }
  // Sums are recomputed from the children, never updated by differences, so
  // no rounding drift builds up; an unchanged node leaves its ancestors as they are.
  for (i >>= 1; i >= 1 && pull_up(i); i >>= 1) {
  }
}

bool SlowdownState::pull_up(size_t i) {
  const size_t l = 2 * i, r = 2 * i + 1;
  const double rate = std::max(tree_rate_[l], tree_rate_[r]);
  const double scale = std::max(tree_scale_[l], tree_scale_[r]);
  const double srate = sum_rate_[l] + sum_rate_[r];
  const double sscale = sum_scale_[l] + sum_scale_[r];
  const double sup = sum_up_[l] + sum_up_[r];
  if (rate == tree_rate_[i] && scale == tree_scale_[i] && srate == sum_rate_[i] &&
      sscale == sum_scale_[i] && sup == sum_up_[i]) {
    return false;
  }
  tree_rate_[i] = rate;
  tree_scale_[i] = scale;
  sum_rate_[i] = srate;
  sum_scale_[i] = sscale;
  sum_up_[i] = sup;
  return true;
}

double SlowdownState::query(const std::vector<double>& tree, SliceId first, SliceId end) const {
  const size_t n = layout_.slices();
  double best = 0.0;
  for (size_t l = first + n, r = end + n; l < r; l >>= 1, r >>= 1) {
    if (l & 1) best = std::max(best, tree[l++]);
    if (r & 1) best = std::max(best, tree[--r]);
  }
  return best;
}

double SlowdownState::query_sum(const std::vector<double>& tree, SliceId first,
                                SliceId end) const {
  const size_t n = layout_.slices();
  double sum = 0.0;
  for (size_t l = first + n, r = end + n; l < r; l >>= 1, r >>= 1) {
    if (l & 1) sum += tree[l++];
    if (r & 1) sum += tree[--r];
  }
  return sum;
}

double SlowdownState::excess_over(double f, SliceId first, SliceId end) const {
  double sum = 0.0;
  for (auto it = slowest_slices_.lower_bound(first); it != slowest_slices_.end() && *it < end;
       ++it) {
    sum += local_scale(*it) * std::max(0.0, local_slowest(*it) - f);
  }
  return sum;
}

}  // namespace goodsim::cluster
