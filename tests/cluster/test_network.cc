#include "sim/cluster/network.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace {

using goodsim::cluster::LinkId;
using goodsim::cluster::Network;
using goodsim::cluster::Route;
using goodsim::cluster::SiteId;
using goodsim::core::Duration;

constexpr double kGbps = 1e9;

Duration ms(int64_t v) { return Duration::millis(v); }

// Small deterministic generator for the randomized reference test (no std::
// distributions, whose output differs between standard libraries).
class Lcg {
 public:
  explicit Lcg(uint64_t seed) : state_(seed) {}
  uint32_t next(uint32_t bound) {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>((state_ >> 33) % bound);
  }

 private:
  uint64_t state_;
};

// Checks that the route is a connected walk from -> to over usable links and
// that its latency and bottleneck are those of the links it uses.
void check_route_is_path(const Network& net, SiteId from, SiteId to) {
  const Route& r = net.route(from, to);
  REQUIRE(r.reachable);
  SiteId at = from;
  int64_t latency_ns = 0;
  double bottleneck = std::numeric_limits<double>::infinity();
  for (LinkId l : r.links) {
    REQUIRE(net.link_usable(l));
    REQUIRE((net.link_a(l) == at || net.link_b(l) == at));
    at = net.link_a(l) == at ? net.link_b(l) : net.link_a(l);
    latency_ns += net.link_latency(l).ns();
    bottleneck = std::min(bottleneck, net.link_bandwidth_bps(l));
  }
  CHECK(at == to);
  CHECK(r.latency.ns() == latency_ns);
  CHECK(r.bottleneck_bps == bottleneck);
}

// A line A - B - C: 10 ms/10 Gbps, then 20 ms/2 Gbps.
struct Line {
  Network net;
  SiteId a = net.add_site("a");
  SiteId b = net.add_site("b");
  SiteId c = net.add_site("c");
  LinkId ab = net.add_link(a, b, 10 * kGbps, ms(10));
  LinkId bc = net.add_link(b, c, 2 * kGbps, ms(20));
};

}  // namespace

TEST_CASE("Network: sites and links are added and looked up", "[cluster][network]") {
  Line l;
  CHECK(l.net.site_count() == 3);
  CHECK(l.net.link_count() == 2);
  CHECK(l.net.site_name(l.b) == "b");
  CHECK(l.net.find_site("c") == l.c);
  CHECK_FALSE(l.net.find_site("nope").has_value());
  CHECK(l.net.link_a(l.bc) == l.b);
  CHECK(l.net.link_b(l.bc) == l.c);
  CHECK(l.net.link_bandwidth_bps(l.bc) == 2 * kGbps);
  CHECK(l.net.link_latency(l.bc) == ms(20));
  CHECK(l.net.site_links(l.b) == std::vector<LinkId>{l.ab, l.bc});
  CHECK(l.net.link_up(l.ab));
  CHECK(l.net.link_usable(l.ab));
  CHECK_FALSE(l.net.site_partitioned(l.a));
}

TEST_CASE("Network: invalid inputs throw and leave the network unchanged", "[cluster][network]") {
  Network net;
  const SiteId a = net.add_site("a");
  const SiteId b = net.add_site("b");
  CHECK_THROWS_AS(net.add_site(""), std::invalid_argument);
  CHECK_THROWS_AS(net.add_site("a"), std::invalid_argument);
  CHECK(net.site_count() == 2);

  CHECK_THROWS_AS(net.add_link(a, a, kGbps, ms(1)), std::invalid_argument);
  CHECK_THROWS_AS(net.add_link(a, 7, kGbps, ms(1)), std::out_of_range);
  CHECK_THROWS_AS(net.add_link(7, b, kGbps, ms(1)), std::out_of_range);
  CHECK_THROWS_AS(net.add_link(a, b, 0.0, ms(1)), std::invalid_argument);
  CHECK_THROWS_AS(net.add_link(a, b, -kGbps, ms(1)), std::invalid_argument);
  CHECK_THROWS_AS(net.add_link(a, b, std::nan(""), ms(1)), std::invalid_argument);
  CHECK_THROWS_AS(net.add_link(a, b, std::numeric_limits<double>::infinity(), ms(1)),
                  std::invalid_argument);
  CHECK_THROWS_AS(net.add_link(a, b, kGbps, Duration::nanos(-1)), std::invalid_argument);
  CHECK(net.link_count() == 0);
  CHECK(net.site_links(a).empty());

  const LinkId ab = net.add_link(a, b, kGbps, ms(1));
  CHECK_THROWS_AS(net.site_name(2), std::out_of_range);
  CHECK_THROWS_AS(net.site_links(2), std::out_of_range);
  CHECK_THROWS_AS(net.link_a(ab + 1), std::out_of_range);
  CHECK_THROWS_AS(net.link_latency(ab + 1), std::out_of_range);
  CHECK_THROWS_AS(net.set_link_up(ab + 1, false), std::out_of_range);
  CHECK_THROWS_AS(net.set_site_partitioned(2, true), std::out_of_range);
  CHECK_THROWS_AS(net.route(a, 2), std::out_of_range);
  CHECK_THROWS_AS(net.transfer_time(2, a, 1.0), std::out_of_range);
  CHECK_THROWS_AS(net.transfer_time(a, b, -1.0), std::invalid_argument);
  CHECK_THROWS_AS(net.transfer_time(a, b, std::nan("")), std::invalid_argument);
  CHECK_THROWS_AS(net.set_site_partitioned(a, false), std::logic_error);
  CHECK(net.partition_count(a) == 0);
}

TEST_CASE("Network: line of three sites", "[cluster][network]") {
  Line l;
  const Route& r = l.net.route(l.a, l.c);
  CHECK(r.reachable);
  CHECK(r.links == std::vector<LinkId>{l.ab, l.bc});
  CHECK(r.latency == ms(30));
  CHECK(r.bottleneck_bps == 2 * kGbps);
  CHECK(l.net.route(l.c, l.a).links == std::vector<LinkId>{l.bc, l.ab});
  // 1 GB over the 2 Gbps bottleneck: 4 s, plus 30 ms.
  CHECK(l.net.transfer_time(l.a, l.c, 1e9) == Duration::millis(4030));
  CHECK(l.net.transfer_time(l.c, l.a, 1e9) == Duration::millis(4030));
  CHECK(l.net.transfer_time(l.a, l.b, 0.0) == ms(10));
}

TEST_CASE("Network: same site costs nothing", "[cluster][network]") {
  Line l;
  const Route& r = l.net.route(l.b, l.b);
  CHECK(r.reachable);
  CHECK(r.links.empty());
  CHECK(r.latency == Duration::zero());
  CHECK(std::isinf(r.bottleneck_bps));
  CHECK(l.net.transfer_time(l.b, l.b, 1e12) == Duration::zero());
  l.net.set_site_partitioned(l.b, true);
  CHECK(l.net.transfer_time(l.b, l.b, 1e12) == Duration::zero());
}

TEST_CASE("Network: exact transfer time on one link", "[cluster][network]") {
  Network net;
  const SiteId x = net.add_site("x");
  const SiteId y = net.add_site("y");
  net.add_link(x, y, 5 * kGbps, ms(30));
  // 1 GB = 8e9 bits over 5 Gbps = 1.6 s, plus 30 ms.
  CHECK(net.transfer_time(x, y, 1e9) == Duration::millis(1630));
  // 1 byte over 3 bits/s = 8/3 s, rounded to the nearest ns.
  Network slow;
  const SiteId p = slow.add_site("p");
  const SiteId q = slow.add_site("q");
  slow.add_link(p, q, 3.0, Duration::zero());
  CHECK(slow.transfer_time(p, q, 1.0) == Duration::nanos(2'666'666'667));
  // Saturates instead of overflowing.
  CHECK(slow.transfer_time(p, q, 1e300) == Duration::max());
}

TEST_CASE("Network: triangle prefers the lower-latency two-hop path", "[cluster][network]") {
  Network net;
  const SiteId a = net.add_site("a");
  const SiteId b = net.add_site("b");
  const SiteId c = net.add_site("c");
  const LinkId direct = net.add_link(a, c, 100 * kGbps, ms(50));
  const LinkId ab = net.add_link(a, b, 10 * kGbps, ms(20));
  const LinkId bc = net.add_link(b, c, 10 * kGbps, ms(20));
  const Route& r = net.route(a, c);
  CHECK(r.links == std::vector<LinkId>{ab, bc});
  CHECK(r.latency == ms(40));
  CHECK(r.bottleneck_bps == 10 * kGbps);
  // Latency first, even when the direct link would transfer faster.
  CHECK(net.transfer_time(a, c, 1e9) == Duration::millis(840));

  net.set_link_up(ab, false);
  CHECK(net.route(a, c).links == std::vector<LinkId>{direct});
  CHECK(net.transfer_time(a, c, 1e9) == Duration::millis(130));
  CHECK(net.route(a, b).links == std::vector<LinkId>{direct, bc});
  net.set_link_up(ab, false);  // idempotent
  net.set_link_up(ab, true);
  CHECK(net.route(a, c).links == std::vector<LinkId>{ab, bc});
}

TEST_CASE("Network: bottleneck on a multi-hop path", "[cluster][network]") {
  Network net;
  std::vector<SiteId> s;
  for (const char* n : {"s0", "s1", "s2", "s3", "s4"}) s.push_back(net.add_site(n));
  net.add_link(s[0], s[1], 100 * kGbps, ms(5));
  net.add_link(s[1], s[2], 40 * kGbps, ms(5));
  net.add_link(s[2], s[3], 8 * kGbps, ms(5));
  net.add_link(s[3], s[4], 100 * kGbps, ms(5));
  const Route& r = net.route(s[0], s[4]);
  CHECK(r.links.size() == 4);
  CHECK(r.bottleneck_bps == 8 * kGbps);
  CHECK(r.latency == ms(20));
  // 10 GB = 8e10 bits / 8e9 bits/s = 10 s, plus 20 ms.
  CHECK(net.transfer_time(s[0], s[4], 1e10) == Duration::millis(10'020));
  CHECK(net.route(s[0], s[2]).bottleneck_bps == 40 * kGbps);
}

TEST_CASE("Network: equal latency prefers the wider bottleneck", "[cluster][network]") {
  Network net;
  const SiteId a = net.add_site("a");
  const SiteId m1 = net.add_site("m1");
  const SiteId m2 = net.add_site("m2");
  const SiteId z = net.add_site("z");
  net.add_link(a, m1, 10 * kGbps, ms(10));  // narrow path first, with lower ids
  net.add_link(m1, z, 1 * kGbps, ms(10));
  const LinkId w1 = net.add_link(a, m2, 10 * kGbps, ms(10));
  const LinkId w2 = net.add_link(m2, z, 5 * kGbps, ms(10));
  CHECK(net.route(a, z).links == std::vector<LinkId>{w1, w2});
  CHECK(net.route(z, a).links == std::vector<LinkId>{w2, w1});
  CHECK(net.route(a, z).bottleneck_bps == 5 * kGbps);
}

TEST_CASE("Network: remaining ties break by hops then lowest link id", "[cluster][network]") {
  SECTION("parallel links") {
    Network net;
    const SiteId a = net.add_site("a");
    const SiteId b = net.add_site("b");
    const LinkId slow = net.add_link(a, b, kGbps, ms(10));
    const LinkId first = net.add_link(a, b, 2 * kGbps, ms(10));
    const LinkId second = net.add_link(a, b, 2 * kGbps, ms(10));
    CHECK(net.route(a, b).links == std::vector<LinkId>{first});
    CHECK(net.route(b, a).links == std::vector<LinkId>{first});
    net.set_link_up(first, false);
    CHECK(net.route(a, b).links == std::vector<LinkId>{second});
    net.set_link_up(second, false);
    CHECK(net.route(a, b).links == std::vector<LinkId>{slow});
  }
  SECTION("diamond of equal paths: lowest id of the last link") {
    Network net;
    const SiteId s = net.add_site("s");
    const SiteId x = net.add_site("x");
    const SiteId y = net.add_site("y");
    const SiteId t = net.add_site("t");
    const LinkId sy = net.add_link(s, y, kGbps, ms(10));
    const LinkId sx = net.add_link(s, x, kGbps, ms(10));
    const LinkId xt = net.add_link(x, t, kGbps, ms(10));
    const LinkId yt = net.add_link(y, t, kGbps, ms(10));
    CHECK(net.route(s, t).links == std::vector<LinkId>{sx, xt});
    CHECK(net.route(t, s).links == std::vector<LinkId>{yt, sy});
    // Same answer whatever order the lazily cached rows are filled in.
    Network copy = net;
    copy.set_link_up(sy, false);
    copy.set_link_up(sy, true);
    CHECK(copy.route(t, s).links == std::vector<LinkId>{yt, sy});
    CHECK(copy.route(s, t).links == std::vector<LinkId>{sx, xt});
  }
  SECTION("fewer hops before lower ids") {
    Network net;
    const SiteId s = net.add_site("s");
    const SiteId m = net.add_site("m");
    const SiteId t = net.add_site("t");
    net.add_link(s, m, kGbps, ms(10));
    net.add_link(m, t, kGbps, ms(10));
    const LinkId direct = net.add_link(s, t, kGbps, ms(20));
    CHECK(net.route(s, t).links == std::vector<LinkId>{direct});
  }
  SECTION("zero-latency cycle") {
    Network net;
    const SiteId a = net.add_site("a");
    const SiteId b = net.add_site("b");
    const SiteId c = net.add_site("c");
    const LinkId ab = net.add_link(a, b, kGbps, Duration::zero());
    const LinkId bc = net.add_link(b, c, kGbps, Duration::zero());
    const LinkId ca = net.add_link(c, a, kGbps, Duration::zero());
    CHECK(net.route(a, c).links == std::vector<LinkId>{ca});
    CHECK(net.route(b, c).links == std::vector<LinkId>{bc});
    CHECK(net.route(c, b).links == std::vector<LinkId>{bc});
    net.set_link_up(ca, false);
    CHECK(net.route(a, c).links == std::vector<LinkId>{ab, bc});
    CHECK(net.transfer_time(a, c, 1e9) == Duration::seconds(8));
  }
}

TEST_CASE("Network: unreachable sites give nullopt", "[cluster][network]") {
  Network net;
  const SiteId a = net.add_site("a");
  const SiteId b = net.add_site("b");
  const SiteId c = net.add_site("c");
  const SiteId d = net.add_site("d");
  net.add_link(a, b, kGbps, ms(1));
  net.add_link(c, d, kGbps, ms(1));
  const Route& r = net.route(a, d);
  CHECK_FALSE(r.reachable);
  CHECK(r.links.empty());
  CHECK(r.latency == Duration::max());
  CHECK(r.bottleneck_bps == 0.0);
  CHECK_FALSE(net.transfer_time(a, d, 1.0).has_value());
  CHECK_FALSE(net.transfer_time(d, b, 0.0).has_value());
  CHECK(net.transfer_time(c, d, 0.0) == ms(1));
  // A new link joins the islands; cached routes are dropped.
  net.add_link(b, c, kGbps, ms(1));
  CHECK(net.transfer_time(a, d, 0.0) == ms(3));
  // A new, isolated site is unreachable from everywhere.
  const SiteId e = net.add_site("e");
  CHECK_FALSE(net.route(a, e).reachable);
  CHECK_FALSE(net.route(e, a).reachable);
}

TEST_CASE("Network: partitioning a site and ending the partition", "[cluster][network]") {
  Network net;
  const SiteId a = net.add_site("a");
  const SiteId b = net.add_site("b");
  const SiteId c = net.add_site("c");
  const LinkId direct = net.add_link(a, c, kGbps, ms(50));
  const LinkId ab = net.add_link(a, b, kGbps, ms(10));
  const LinkId bc = net.add_link(b, c, kGbps, ms(10));
  CHECK(net.route(a, c).links == std::vector<LinkId>{ab, bc});

  net.set_site_partitioned(b, true);
  CHECK(net.site_partitioned(b));
  CHECK_FALSE(net.link_usable(ab));
  CHECK(net.link_up(ab));  // the link flag itself is untouched
  CHECK(net.route(a, c).links == std::vector<LinkId>{direct});
  CHECK_FALSE(net.transfer_time(a, b, 1.0).has_value());
  CHECK_FALSE(net.transfer_time(b, c, 1.0).has_value());

  net.set_site_partitioned(b, false);
  CHECK_FALSE(net.site_partitioned(b));
  CHECK(net.route(a, c).links == std::vector<LinkId>{ab, bc});
  CHECK(net.transfer_time(a, b, 0.0) == ms(10));

  // A link that was set down during a partition stays down after it ends.
  net.set_site_partitioned(c, true);
  net.set_link_up(bc, false);
  net.set_site_partitioned(c, false);
  CHECK(net.route(a, c).links == std::vector<LinkId>{direct});
}

TEST_CASE("Network: overlapping partitions need two ends", "[cluster][network]") {
  Line l;
  l.net.set_site_partitioned(l.b, true);
  l.net.set_site_partitioned(l.b, true);
  CHECK(l.net.partition_count(l.b) == 2);
  CHECK_FALSE(l.net.route(l.a, l.c).reachable);
  l.net.set_site_partitioned(l.b, false);
  CHECK(l.net.partition_count(l.b) == 1);
  CHECK_FALSE(l.net.route(l.a, l.c).reachable);
  l.net.set_site_partitioned(l.b, false);
  CHECK(l.net.route(l.a, l.c).reachable);
  CHECK_THROWS_AS(l.net.set_site_partitioned(l.b, false), std::logic_error);
  CHECK(l.net.partition_count(l.b) == 0);
}

TEST_CASE("Network: copies are deep and independent", "[cluster][network]") {
  Line l;
  CHECK(l.net.route(l.a, l.c).reachable);  // fill the cache before copying
  Network copy = l.net;
  copy.set_link_up(l.ab, false);
  CHECK_FALSE(copy.route(l.a, l.c).reachable);
  CHECK(l.net.route(l.a, l.c).reachable);
  Network moved = std::move(copy);
  CHECK_FALSE(moved.route(l.a, l.c).reachable);
  l.net = moved;
  CHECK_FALSE(l.net.link_up(l.ab));
}

namespace {

struct Label {
  int64_t latency_ns;
  double bottleneck_bps;
};

bool better(const Label& x, const Label& y) {
  if (x.latency_ns != y.latency_ns) return x.latency_ns < y.latency_ns;
  return x.bottleneck_bps > y.bottleneck_bps;
}

constexpr int64_t kNoPath = std::numeric_limits<int64_t>::max();

// All-pairs (min latency, then max bottleneck) by Floyd-Warshall over the
// usable links; this order is a distributive closed semiring for
// non-negative latencies, so the triple loop is exact.
std::vector<std::vector<Label>> floyd_warshall(const Network& net) {
  const size_t n = net.site_count();
  std::vector<std::vector<Label>> d(n, std::vector<Label>(n, Label{kNoPath, 0.0}));
  for (size_t i = 0; i < n; ++i) d[i][i] = {0, std::numeric_limits<double>::infinity()};
  for (LinkId l = 0; l < net.link_count(); ++l) {
    if (!net.link_usable(l)) continue;
    const Label c{net.link_latency(l).ns(), net.link_bandwidth_bps(l)};
    const SiteId a = net.link_a(l);
    const SiteId b = net.link_b(l);
    if (better(c, d[a][b])) d[a][b] = d[b][a] = c;
  }
  for (size_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) {
        if (d[i][k].latency_ns == kNoPath || d[k][j].latency_ns == kNoPath) continue;
        const Label via{d[i][k].latency_ns + d[k][j].latency_ns,
                        std::min(d[i][k].bottleneck_bps, d[k][j].bottleneck_bps)};
        if (better(via, d[i][j])) d[i][j] = via;
      }
    }
  }
  return d;
}

Network random_network(Lcg& rng) {
  Network net;
  const uint32_t n = 2 + rng.next(9);
  for (uint32_t i = 0; i < n; ++i) net.add_site("site" + std::to_string(i));
  const uint32_t m = rng.next(2 * n + 1);
  for (uint32_t i = 0; i < m; ++i) {
    const SiteId a = rng.next(n);
    const SiteId b = (a + 1 + rng.next(n - 1)) % n;
    // Few distinct values, so ties (and zero latencies) are common.
    const double bw = kGbps * (1 + rng.next(4));
    net.add_link(a, b, bw, Duration::millis(rng.next(6)));
  }
  for (LinkId l = 0; l < net.link_count(); ++l) {
    if (rng.next(6) == 0) net.set_link_up(l, false);
  }
  for (SiteId s = 0; s < n; ++s) {
    if (rng.next(8) == 0) net.set_site_partitioned(s, true);
  }
  return net;
}

// Route to `to` is the route to the previous site plus the last link.
void check_tree_prefix(const Network& net, SiteId from, SiteId to) {
  const Route& r = net.route(from, to);
  if (r.links.empty()) return;
  const LinkId last = r.links.back();
  const SiteId prev = net.link_a(last) == to ? net.link_b(last) : net.link_a(last);
  const std::vector<LinkId> prefix(r.links.begin(), r.links.end() - 1);
  CHECK(net.route(from, prev).links == prefix);
}

}  // namespace

TEST_CASE("Network: routes match a Floyd-Warshall reference on random graphs",
          "[cluster][network]") {
  Lcg rng(20240611);
  int reachable_pairs = 0;
  int unreachable_pairs = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Network net = random_network(rng);
    const auto ref = floyd_warshall(net);
    Network reversed_order = net;  // filled in the opposite order below
    const SiteId n = static_cast<SiteId>(net.site_count());
    for (SiteId i = 0; i < n; ++i) {
      for (SiteId j = 0; j < n; ++j) {
        const Route& r = net.route(i, j);
        const Label& want = ref[i][j];
        REQUIRE(r.reachable == (want.latency_ns != kNoPath));
        if (!r.reachable) {
          ++unreachable_pairs;
          CHECK_FALSE(net.transfer_time(i, j, 1e6).has_value());
          continue;
        }
        ++reachable_pairs;
        CHECK(r.latency.ns() == want.latency_ns);
        CHECK(r.bottleneck_bps == want.bottleneck_bps);
        check_route_is_path(net, i, j);
        check_tree_prefix(net, i, j);
        const Duration serial = Duration::from_seconds(1e6 * 8 / want.bottleneck_bps);
        CHECK(net.transfer_time(i, j, i == j ? 0.0 : 1e6) ==
              (i == j ? Duration::zero() : r.latency + serial));
      }
    }
    for (SiteId i = n; i-- > 0;) {
      for (SiteId j = n; j-- > 0;) {
        CHECK(reversed_order.route(i, j).links == net.route(i, j).links);
      }
    }
  }
  // The generator must exercise both outcomes.
  CHECK(reachable_pairs > 1000);
  CHECK(unreachable_pairs > 100);
}
