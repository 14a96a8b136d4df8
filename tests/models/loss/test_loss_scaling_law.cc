// The scaling_law loss tier and the "loss" scenario object (docs/loss.md).
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "models/loss/loss_config.h"
#include "models/loss/scaling_law.h"
#include "sim/scenario/error.h"
#include "tests/support/loss_training.h"

namespace goodsim::models::loss {
namespace {

using goodsim::testing::kPublishedFits;
using goodsim::testing::PublishedFit;
using goodsim::testing::train;

double chinchilla(double n, double d) {
  return 1.69 + 406.4 / std::pow(n, 0.34) + 410.7 / std::pow(d, 0.28);
}

TEST_CASE("scaling_law reproduces the published per-M fits at D = 20N", "[loss]") {
  // Calibration: L = Phi_M(N) f(H) C(N, D) / C(N, 20N) with f(30) = 1, so at the
  // fits' budget, optimal batch and H = 30 the law is the method's fit; this
  // drives it through the event API (token counting over fragments, batch
  // discount 1 at b*, no staleness, full merges).
  for (double n : {1e8, 2e8, 5e8, 1e9, 2e9, 5e9, 1e10}) {
    for (const PublishedFit& row : kPublishedFits) {
      for (uint32_t p : {1u, 4u}) {
        if (row.learners == 0 && p > 1) continue;
        ScalingLawLoss model(ScalingLawConfig{});
        const double loss = train(model, n, row.learners, row.learners == 0 ? 0 : 30, p, 20 * n);
        const double fit = row.a * std::pow(n, row.alpha);
        INFO("N = " << n << ", M = " << row.learners << ", P = " << p);
        CHECK(loss == Approx(fit).epsilon(0.005));
        CHECK(loss == Approx(fit).epsilon(1e-5));  // exact but for the whole steps of DP
      }
    }
  }
}

TEST_CASE("scaling_law moves with tokens along the Chinchilla form", "[loss]") {
  for (double n : {1e8, 1e9, 1e10}) {
    for (double mult : {0.1, 0.5, 2.0, 10.0}) {
      ScalingLawLoss model(ScalingLawConfig{});
      const double loss = train(model, n, 4, 30, 2, mult * 20 * n);
      const double expected =
          19.762 * std::pow(n, -0.0992) * chinchilla(n, mult * 20 * n) / chinchilla(n, 20 * n);
      CHECK(loss == Approx(expected).epsilon(1e-6));
    }
  }
  ScalingLawLoss fresh(ScalingLawConfig{});
  fresh.start({1e9, 1e6, 1, 0, 1}, core::Rng(1));
  CHECK(fresh.loss() == Approx(10.37));  // capped before any token
}

TEST_CASE("DiLoCo's penalty shrinks with N and the sync interval matters mildly", "[loss]") {
  const ScalingFits f;
  double previous = 1e9;
  for (double n = 1e8; n <= 1e10; n *= 1.5) {
    const double penalty = f.method_fit(n, 8, false) / f.method_fit(n, 1, true);
    CHECK(penalty < previous);
    previous = penalty;
  }
  // Outside the fits' range the penalty is frozen, not extrapolated.
  CHECK(f.method_fit(1e12, 8, false) / f.method_fit(1e12, 1, true) ==
        Approx(f.method_fit(1e10, 8, false) / f.method_fit(1e10, 1, true)));
  // Between table rows: between its neighbours; beyond: the joint fit's M^0.0116.
  CHECK(f.method_fit(1e9, 3, false) > f.method_fit(1e9, 2, false));
  CHECK(f.method_fit(1e9, 3, false) < f.method_fit(1e9, 4, false));
  CHECK(f.method_fit(1e9, 16, false) / f.method_fit(1e9, 8, false) ==
        Approx(std::pow(2.0, 0.0116)));
  CHECK(f.interval_factor(30) == 1);
  CHECK(f.interval_factor(0) == 1);
  for (uint32_t h = 2; h <= 1000; ++h) CHECK(f.interval_factor(h) < f.interval_factor(1));
  CHECK(f.interval_factor(15) < f.interval_factor(10));
  CHECK(f.interval_factor(100) > f.interval_factor(30));
  CHECK(f.interval_factor(300) - 1 < 0.005);  // slow rise
  CHECK(f.interval_factor(1) - 1 > 0.01);
}

TEST_CASE("scaling_law discounts are in (0, 1] and monotone", "[loss]") {
  ScalingLawLoss dp(ScalingLawConfig{}), diloco(ScalingLawConfig{});
  const ScalingFits f;
  dp.start({1e9, 1e6, 1, 0, 1}, core::Rng(1));
  diloco.start({1e9, 1e6, 8, 30, 1}, core::Rng(1));
  const double b_dp = f.optimal_batch(1e9, 1), b_8 = f.optimal_batch(1e9, 8) / 8;
  CHECK(dp.batch_efficiency(b_dp) == 1);
  CHECK(diloco.batch_efficiency(b_8) == 1);
  for (double x : {1.5, 2.0, 4.0, 16.0}) {
    CHECK(dp.batch_efficiency(b_dp * x) < dp.batch_efficiency(b_dp * x / 1.5));
    CHECK(dp.batch_efficiency(b_dp / x) < dp.batch_efficiency(b_dp / x * 1.5));
    CHECK(dp.batch_efficiency(b_dp * x) < dp.batch_efficiency(b_dp / x));  // too big hurts more
    CHECK(diloco.batch_efficiency(b_8 * x) > dp.batch_efficiency(b_dp * x));  // more tolerant
    CHECK(dp.batch_efficiency(b_dp * x) > 0);
  }
  CHECK(diloco.staleness_efficiency(0) == 1);
  CHECK(diloco.staleness_efficiency(30) == 1);
  CHECK(diloco.staleness_efficiency(30 + 4 * 30) == Approx(0.5));
  for (uint64_t s = 0; s < 3000; s += 7) {
    CHECK(diloco.staleness_efficiency(s + 7) <= diloco.staleness_efficiency(s));
  }
  CHECK(diloco.left_out_efficiency(8, 0) == 1);
  CHECK(diloco.left_out_efficiency(1, 7) == Approx(1 - 0.5 * 7 / 8.0));
}

// Two learners, merges of fragment 0 every round with the given staleness of learner 1.
double stale_run(uint64_t staleness) {
  ScalingLawLoss model(ScalingLawConfig{});
  const double b = ScalingFits{}.optimal_batch(1e9, 2) / 2;
  model.start({1e9, 2 * b, 2, 30, 1}, core::Rng(1));
  for (int r = 0; r < 1000; ++r) {
    model.on_inner_steps(0, 30, b);
    model.on_inner_steps(1, 30, b);
    model.on_merge(0, {{0, 30 * b * b, 30 * b, 30}, {1, 30 * b * b, 30 * b, staleness}});
  }
  return model.loss();
}

TEST_CASE("scaling_law: more staleness never helps", "[loss]") {
  double previous = 0;
  for (uint64_t s = 0; s <= 600; s += 15) {
    const double loss = stale_run(s);
    CHECK(loss >= previous);
    previous = loss;
  }
  CHECK(stale_run(300) > stale_run(30));
}

TEST_CASE("scaling_law: solo merges that leave out an active learner count less", "[loss]") {
  // The same tokens, merged (a) one learner at a time while the other trains
  // (quorum 1, no grace), (b) together (grace), (c) alone because the other left.
  const double b = ScalingFits{}.optimal_batch(1e9, 2) / 2;
  auto run = [&](int mode) {
    ScalingLawLoss model(ScalingLawConfig{});
    model.start({1e9, 2 * b, 2, 30, 1}, core::Rng(1));
    if (mode == 2) model.on_leave(1);
    for (int r = 0; r < 2000; ++r) {
      model.on_inner_steps(0, 30, b);
      if (mode == 1) {
        model.on_inner_steps(1, 30, b);
        model.on_merge(0, {{0, 30 * b * b, 30 * b, 30}, {1, 30 * b * b, 30 * b, 30}});
      } else {
        if (mode == 0) model.on_inner_steps(1, 30, b);
        model.on_merge(0, {{0, 30 * b * b, 30 * b, 30}});
        if (mode == 0) model.on_merge(0, {{1, 30 * b * b, 30 * b, 30}});
      }
    }
    return model;
  };
  const ScalingLawLoss solo = run(0), together = run(1), alone = run(2);
  CHECK(solo.effective_tokens() == Approx(0.75 * together.effective_tokens()));
  CHECK(solo.loss() > together.loss());
  // Alone after the other left: no left-out discount, half the tokens, and
  // b* is now one learner's, B*(N, 1), so the batch B*(N, 2) / 2 = 2^(0.3399 - 1)
  // B*(N, 1) is below it: eta = 1 / (1 + (0.2 / 2) ln(2^-0.6601)^2).
  const double x = std::log(std::pow(2.0, 0.3399 - 1));
  CHECK(alone.effective_tokens() ==
        Approx(0.5 * together.effective_tokens() / (1 + 0.1 * x * x)));
}

TEST_CASE("scaling_law: b* follows the learners taking part in a merge", "[loss]") {
  // 16 learners configured, 12 left (scavenged capacity lent out): a merge of
  // the 4 others, each 30 steps at batch b = 1e6 tokens, P = 1, counts
  // 4 x 30 b x eta(b) with b* = B*(N, 4) / 4 and the DiLoCo k = 1 / 2 above
  // b*. When 4 more join, b* = B*(N, 8) / 8 and the same merge counts less.
  const double n = 7e9, b = 1e6;
  const ScalingFits fits;
  auto merged = [&](uint32_t present) {
    ScalingLawLoss model(ScalingLawConfig{});
    model.start({n, 16 * b, 16, 30, 1}, core::Rng(1));
    for (uint32_t m = present; m < 16; ++m) model.on_leave(m);
    std::vector<Contribution> c;
    for (uint32_t m = 0; m < present; ++m) c.push_back({m, 30 * b * b, 30 * b, 0});
    model.on_merge(0, c);
    return model.effective_tokens() / present;  // per contributor
  };
  auto expected = [&](uint32_t m) {
    const double x = std::log(b / (fits.optimal_batch(n, m) / m));
    return 30 * b / (1 + 0.5 * x * x);
  };
  CHECK(merged(4) == Approx(expected(4)).epsilon(1e-12));
  CHECK(merged(8) == Approx(expected(8)).epsilon(1e-12));
  CHECK(merged(8) < merged(4));
}

TEST_CASE("the loss object selects and configures a tier", "[loss]") {
  const std::string file = "x.json";
  auto parse = [&](const nlohmann::json& j) {
    scenario::ObjectReader r(j, "loss", std::make_shared<const std::string>(file));
    LossConfig c = LossConfig::from_json(r);
    r.finish();
    return c;
  };
  const nlohmann::json one_row = {{"learners", 1}, {"a", 18.0}, {"alpha", -0.1}};
  const nlohmann::json sl = {{"type", "scaling_law"},
                             {"left_out_discount", 0.25},
                             {"staleness", {{"free", 2}}},
                             {"fits", {{"diloco", nlohmann::json::array({one_row})}}}};
  const LossConfig c = parse(sl);
  CHECK(c.type == "scaling_law");
  CHECK(c.scaling_law.left_out_discount == 0.25);
  CHECK(c.scaling_law.staleness_free == 2);
  CHECK(c.scaling_law.staleness_scale == 4);
  REQUIRE(c.scaling_law.fits.diloco.size() == 1);
  CHECK(c.scaling_law.fits.diloco[0].fit.a == 18.0);
  CHECK(dynamic_cast<ScalingLawLoss*>(make_loss_model(c).get()) != nullptr);

  const LossConfig n = parse({{"type", "nqm"}, {"dims", 64}, {"averaging", "radial_directional"}});
  CHECK(n.nqm.dims == 64);
  CHECK(n.nqm.radial_directional);
  CHECK(dynamic_cast<NqmLoss*>(make_loss_model(n).get()) != nullptr);

  // Strict: the other tier's keys are unknown; bad values name the path.
  CHECK_THROWS_WITH(parse({{"type", "scaling_law"}, {"dims", 64}}),
                    Catch::Contains("loss.dims: unknown key"));
  CHECK_THROWS_WITH(parse({{"type", "nqm"}, {"lr", 3}}), Catch::Contains("loss.lr"));
  CHECK_THROWS_WITH(parse({{"type", "nqm"}, {"outer_gradient", "glbal"}}),
                    Catch::Contains("did you mean \"global\""));
  const nlohmann::json row = {{"learners", 2}, {"a", 1}, {"alpha", 0}};
  const nlohmann::json twice = {{"type", "scaling_law"},
                                {"fits", {{"diloco", nlohmann::json::array({row, row})}}}};
  CHECK_THROWS_WITH(parse(twice), Catch::Contains("strictly increasing"));
  CHECK_THROWS_WITH(parse({{"type", "quadratic"}}), Catch::Contains("loss.type"));

  // Describe mode documents each tier without throwing.
  for (int tier = 0; tier < 2; ++tier) {
    scenario::ObjectReader d = scenario::ObjectReader::describe("loss");
    if (tier == 0) {
      ScalingLawConfig::from_json(d);
    } else {
      NqmConfig::from_json(d);
    }
    CHECK(d.docs().size() > 20);
  }
  CHECK(loss_model_types().size() == 2);
}

}  // namespace
}  // namespace goodsim::models::loss
