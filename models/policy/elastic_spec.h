// Reading the elastic rules (ElasticSpec, elastic_group.h) that every policy
// built on elastic groups shares: elastic_data_parallel, diloco and
// decoupled_diloco read the same keys, with the same defaults and messages,
// through these functions, so none of them includes another policy's header.
#pragma once

#include <cstdint>
#include <optional>

#include "models/policy/elastic_group.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::policy {

// Reads downscale_time, upscale_time, restart_time and min_slices; rejects a
// min_slices above `max_slices` (when given).
// Also reads the resize rules (read_resize_rules).
ElasticSpec read_elastic_spec(scenario::ObjectReader& r, std::optional<uint32_t> max_slices);
// Reads resize_per_slice, during_pause, pause_extension, upscale_every and
// upscale_batch into `e` (see elastic_group.h).
void read_resize_rules(scenario::ObjectReader& r, ElasticSpec& e);

}  // namespace goodsim::models::policy
