// The two loss tiers against each other and against the published fits
// (docs/loss.md, "Where each tier is valid").
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "models/loss/nqm.h"
#include "models/loss/scaling_fits.h"
#include "models/loss/scaling_law.h"
#include "tests/support/loss_training.h"

namespace goodsim::models::loss {
namespace {

using goodsim::testing::kPublishedFits;
using goodsim::testing::PublishedFit;
using goodsim::testing::train;

TEST_CASE("loss tiers: both within 1% of each other and of the fits over N, M and batch",
          "[loss]") {
  // The fits were measured at D = 20N, H = 30 and each method's optimal batch;
  // the batch fit B*(N, M) grows with M. DiLoCo is checked at B*(N, M) and
  // half-way (geometric) to the data-parallel optimum B*(N, 1), DP at B*(N, 1).
  const ScalingFits fits;
  for (double n : {1e8, 1e9, 1e10}) {
    for (const PublishedFit& row : kPublishedFits) {
      const uint32_t m = row.learners;
      const double b1 = fits.optimal_batch(n, 1), bm = fits.optimal_batch(n, m == 0 ? 1 : m);
      for (double batch : {std::sqrt(b1 * bm), bm}) {
        ScalingLawLoss law(ScalingLawConfig{});
        NqmLoss nqm{NqmConfig{}};
        const double l_law = train(law, n, m, m == 0 ? 0 : 30, 1, 20 * n, batch);
        const double l_nqm = train(nqm, n, m, m == 0 ? 0 : 30, 1, 20 * n, batch);
        const double fit = row.a * std::pow(n, row.alpha);
        INFO("N = " << n << ", M = " << m << ", batch / B*(N, 1) = " << batch / b1 << ": law "
                    << l_law << ", nqm " << l_nqm << ", fit " << fit);
        CHECK(l_law == Approx(fit).epsilon(0.01));
        CHECK(l_nqm == Approx(fit).epsilon(0.01));
        CHECK(l_nqm == Approx(l_law).epsilon(0.01));
      }
    }
  }
}

TEST_CASE("loss tiers: DiLoCo at the data-parallel batch, where the tiers part", "[loss]") {
  // A known disagreement (docs/loss.md): at B*(N, 1), below DiLoCo's optimum,
  // both tiers put the loss above the fit, the nqm more steeply (measured:
  // +0.3% for M = 2 up to +3.9% for M = 8 at N = 1e8; the law's chosen batch
  // discount gives +0.1% to +0.4%). Bounds: both at or above the fit, within 5%.
  const ScalingFits fits;
  for (double n : {1e8, 1e9, 1e10}) {
    for (const PublishedFit& row : kPublishedFits) {
      if (row.learners < 2) continue;
      const double b1 = fits.optimal_batch(n, 1);
      ScalingLawLoss law(ScalingLawConfig{});
      NqmLoss nqm{NqmConfig{}};
      const double fit = row.a * std::pow(n, row.alpha);
      const double l_law = train(law, n, row.learners, 30, 1, 20 * n, b1);
      const double l_nqm = train(nqm, n, row.learners, 30, 1, 20 * n, b1);
      INFO("N = " << n << ", M = " << row.learners << ": law " << l_law << ", nqm " << l_nqm
                  << ", fit " << fit);
      CHECK(l_law >= fit * (1 - 1e-9));
      CHECK(l_nqm >= fit * (1 - 1e-9));
      CHECK(l_law <= fit * 1.05);
      CHECK(l_nqm <= fit * 1.05);
    }
  }
}

}  // namespace
}  // namespace goodsim::models::loss
