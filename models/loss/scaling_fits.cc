#include "models/loss/scaling_fits.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace goodsim::models::loss {
namespace {

using scenario::ObjectReader;

PowerFit read_fit(ObjectReader& r, PowerFit def, const char* what) {
  PowerFit f;
  f.a = r.unit("1").number("a", def.a, std::string("coefficient a of ") + what + " = a N^alpha", 1e-12);
  f.alpha = r.unit("1").number("alpha", def.alpha, std::string("exponent alpha of ") + what);
  return f;
}

void read_chinchilla(ObjectReader& r, ScalingFits& f) {
  f.e = r.unit("nats").number("e", f.e, "irreducible loss E of C(N, D) = E + A / N^alpha + B / D^beta", 0);
  f.model_term.coeff =
      r.unit("nats").number("a", f.model_term.coeff, "model-size coefficient A", 0);
  f.data_term.coeff = r.unit("nats").number("b", f.data_term.coeff, "data coefficient B", 0);
  f.model_term.exponent =
      r.unit("1").number("alpha", f.model_term.exponent, "model-size exponent alpha", 0);
  f.data_term.exponent =
      r.unit("1").number("beta", f.data_term.exponent, "data exponent beta", 1e-6);
  f.tokens_per_param = r.unit("tokens/param").number("tokens_per_param", f.tokens_per_param,
                                "budget D0 = tokens_per_param x N at which the fits hold", 1e-6);
}

void read_diloco_rows(ObjectReader& fits, ScalingFits& f) {
  std::vector<LearnerFit> rows;
  for (ObjectReader& row : fits.optional_object_list(
           "diloco", "per-M DiLoCo fits L = a N^alpha (default: the published M = 1, 2, 4, 8)")) {
    LearnerFit lf;
    lf.learners = static_cast<uint32_t>(row.count("learners", "M of this fit", 1, UINT32_MAX));
    lf.fit = read_fit(row, PowerFit{}, "the DiLoCo fit");
    if (!row.describing() && !rows.empty() && lf.learners <= rows.back().learners) {
      row.fail("learners", "rows must have strictly increasing learners");
    }
    rows.push_back(lf);
  }
  if (!fits.describing() && !rows.empty()) f.diloco = std::move(rows);
}

void read_fits(ObjectReader& r, ScalingFits& f) {
  if (auto dp = r.optional_object("data_parallel", "published data-parallel fit")) {
    f.data_parallel = read_fit(*dp, f.data_parallel, "the data-parallel fit");
  }
  read_diloco_rows(r, f);
  f.learner_exponent = r.unit("1").number("learner_exponent", f.learner_exponent,
                                "M exponent of the joint fit, used beyond the last row");
  f.min_params = r.unit("params").number("min_params", f.min_params,
                          "below it the DiLoCo penalty stays at its value here", 1);
  f.max_params = r.unit("params").number("max_params", f.max_params,
                          "above it the DiLoCo penalty stays at its value here", 1);
  if (!r.describing() && f.max_params < f.min_params) {
    r.fail("max_params", "must not be below min_params");
  }
}

void read_batch(ObjectReader& r, ScalingFits& f) {
  f.batch = read_fit(r, f.batch, "the optimal global batch B* = a N^alpha M^beta");
  f.batch_learner_exponent = r.unit("1").number("beta", f.batch_learner_exponent,
                                      "M exponent beta of the optimal global batch");
  f.batch_unit_tokens = r.unit("tokens").number("unit_tokens", f.batch_unit_tokens,
                                 "tokens per unit of the fit (a sequence)", 1e-6);
}

void read_interval(ObjectReader& r, ScalingFits& f) {
  f.interval_reference = r.unit("steps").number("reference", f.interval_reference,
                                  "H of the fits (f(H_ref) = 1)", 1);
  f.interval_optimum = r.unit("steps").number("optimum", f.interval_optimum,
                                "H where f(H) = 1 + s (H_opt / H + ln H - g(H_ref)) is lowest",
                                1e-6);
  f.interval_sensitivity = r.unit("1").number("sensitivity", f.interval_sensitivity,
                                    "s: relative loss per unit of g(H)", 0);
}

double clamp_params(const ScalingFits& f, double n) {
  return std::clamp(n, f.min_params, f.max_params);
}

double eval(const PowerFit& f, double n) { return f.a * std::pow(n, f.alpha); }

// F_M(N) from the per-M table (see the header).
double diloco_fit(const ScalingFits& f, double n, uint32_t m) {
  const std::vector<LearnerFit>& rows = f.diloco;
  if (m <= rows.front().learners) return eval(rows.front().fit, n);
  if (m >= rows.back().learners) {
    const double ratio = static_cast<double>(m) / rows.back().learners;
    return eval(rows.back().fit, n) * std::pow(ratio, f.learner_exponent);
  }
  size_t hi = 1;
  while (rows[hi].learners < m) ++hi;
  const LearnerFit& lo = rows[hi - 1];
  const LearnerFit& up = rows[hi];
  const double t = std::log(double(m) / lo.learners) / std::log(double(up.learners) / lo.learners);
  const double ln_a = std::log(lo.fit.a) + t * (std::log(up.fit.a) - std::log(lo.fit.a));
  const double alpha = lo.fit.alpha + t * (up.fit.alpha - lo.fit.alpha);
  return std::exp(ln_a + alpha * std::log(n));
}

}  // namespace

ScalingFits ScalingFits::from_json(ObjectReader& r) {
  ScalingFits f;
  if (auto c = r.optional_object("chinchilla", "Chinchilla law C(N, D) setting the shape in D")) {
    read_chinchilla(*c, f);
  }
  if (auto fits = r.optional_object("fits", "published loss fits at D = 20N, H = 30")) {
    read_fits(*fits, f);
  }
  if (auto b = r.optional_object("optimal_batch", "optimal global batch fit")) read_batch(*b, f);
  if (auto s = r.optional_object("sync_interval", "dependence on the sync interval H")) {
    read_interval(*s, f);
  }
  f.max_loss = r.unit("nats").number("max_loss", f.max_loss, "upper cap of the loss (before any token)", 0);
  return f;
}

double ScalingFits::chinchilla(double n, double d) const {
  if (d <= 0) return std::numeric_limits<double>::infinity();
  return e + model_term.at(n) + data_term.at(d);
}

double ScalingFits::method_fit(double n, uint32_t learners, bool is_data_parallel) const {
  const double dp = eval(data_parallel, n);
  if (is_data_parallel) return dp;
  const double nc = clamp_params(*this, n);
  return dp * diloco_fit(*this, nc, std::max<uint32_t>(learners, 1)) / eval(data_parallel, nc);
}

double ScalingFits::interval_factor(uint32_t h) const {
  if (h == 0) return 1;
  auto g = [this](double x) { return interval_optimum / x + std::log(x); };
  return 1 + interval_sensitivity * (g(h) - g(interval_reference));
}

double ScalingFits::optimal_batch(double n, uint32_t learners) const {
  return batch.a * std::pow(n, batch.alpha) *
         std::pow(std::max<uint32_t>(learners, 1), batch_learner_exponent) * batch_unit_tokens;
}

double ScalingFits::loss(double n, double d, uint32_t learners, uint32_t h) const {
  const double scale = method_fit(n, learners, h == 0) * interval_factor(h);
  const double l = scale * chinchilla(n, d) / chinchilla(n, budget_tokens(n));
  return std::min(max_loss, l);
}

double ScalingFits::limit_part(double n) const {
  return method_fit(n, 1, true) * (e + model_term.at(n)) / chinchilla(n, budget_tokens(n));
}

double ScalingFits::data_part(double n) const {
  return method_fit(n, 1, true) * data_term.at(budget_tokens(n)) /
         chinchilla(n, budget_tokens(n));
}

}  // namespace goodsim::models::loss
