#include "models/policy/decoupled_diloco_rounds.h"

#include <algorithm>

namespace goodsim::models::policy {

void FragmentRounds::start(std::span<const uint64_t> first_rounds, uint32_t learners,
                           core::SimTime now, bool grace) {
  learners_ = learners;
  grace_ = grace;
  stopped_ = false;
  fragments_.assign(first_rounds.size(), Fragment{});
  for (size_t p = 0; p < first_rounds.size(); ++p) {
    fragments_[p].round = first_rounds[p];
    fragments_[p].opened = now;
  }
  ready_.assign(first_rounds.size() * learners, kNever);
  earliest_.assign(first_rounds.size(), kNever);
  earliest_ok_.assign(first_rounds.size(), 1);
  sent_.assign(first_rounds.size() * learners, {});
}

void FragmentRounds::drop_pending(uint32_t m, core::SimTime now) {
  for (uint32_t p = 0; p < fragments(); ++p) {
    FixedList<Sent, kMaxSent>& sent = sent_[at(p, m)];
    const Sent* kept = std::remove_if(sent.begin(), sent.end(),
                                      [now](const Sent& x) { return x.at > now; });
    sent.truncate(static_cast<size_t>(kept - sent.begin()));
  }
}

void FragmentRounds::reset(uint32_t m) {
  for (uint32_t p = 0; p < fragments(); ++p) {
    sent_[at(p, m)].clear();
    set_ready(p, m, kNever);
  }
}

namespace {

// y is x one period (dt) later; "never" stays never.
bool later_by(core::SimTime x, core::SimTime y, core::Duration dt) {
  if (x == core::SimTime::max() || y == core::SimTime::max()) return x == y;
  return y - x == dt;
}

}  // namespace

bool FragmentRounds::fragment_shifted(const FragmentRounds& earlier, uint32_t p,
                                      core::Duration dt) const {
  const Fragment& a = earlier.fragments_[p];
  const Fragment& b = fragments_[p];
  return b.round == a.round + 1 && a.phase == Phase::kQuorum && b.phase == Phase::kQuorum &&
         later_by(a.opened, b.opened, dt) && later_by(a.quorum_at, b.quorum_at, dt) &&
         later_by(a.event_time, b.event_time, dt);  // grace: grace window only
}

bool FragmentRounds::slot_shifted(const FragmentRounds& earlier, uint32_t p, uint32_t m,
                                  core::Duration dt) const {
  const size_t i = at(p, m);
  const FixedList<Sent, kMaxSent>& a = earlier.sent_[i];
  const FixedList<Sent, kMaxSent>& b = sent_[i];
  if (!later_by(earlier.ready_[i], ready_[i], dt) || a.size() != b.size()) return false;
  for (size_t j = 0; j < a.size(); ++j) {
    if (b[j].round != a[j].round + 1 || b[j].at - a[j].at != dt) return false;
  }
  return true;
}

bool FragmentRounds::slot_same(const FragmentRounds& other, uint32_t p, uint32_t m) const {
  const size_t i = at(p, m);
  const FixedList<Sent, kMaxSent>& a = other.sent_[i];
  const FixedList<Sent, kMaxSent>& b = sent_[i];
  if (other.ready_[i] != ready_[i] || a.size() != b.size()) return false;
  for (size_t j = 0; j < a.size(); ++j) {
    if (a[j].round != b[j].round || a[j].at != b[j].at) return false;
  }
  return true;
}

void FragmentRounds::shift(uint64_t k, core::Duration span, const std::vector<uint8_t>& moves) {
  for (Fragment& f : fragments_) {
    f.round += k;
    f.opened = f.opened + span;
    f.quorum_at = f.quorum_at + span;
  }
  earliest_ok_.assign(fragments_.size(), 0);
  for (size_t i = 0; i < ready_.size(); ++i) {
    if (!moves[i]) continue;
    if (ready_[i] != kNever) ready_[i] = ready_[i] + span;
    for (Sent& x : sent_[i]) {
      x.round += k;
      x.at = x.at + span;
    }
  }
}

}  // namespace goodsim::models::policy
