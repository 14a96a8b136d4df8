// The MPI sweep's messages (app/mpi/wire.h) round-trip exactly: doubles bit
// for bit, missing metrics stay missing; a cut or padded buffer is rejected.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>

#include "app/mpi/wire.h"

namespace goodsim::app::mpi {
namespace {

TEST_CASE("mpi wire: task and result batches round-trip exactly", "[app][mpi]") {
  TaskBatch tasks{false, {{3, 7, {0, 2}}, {0, 0, {1}}}};
  const TaskBatch t = decode_tasks(encode(tasks));
  CHECK_FALSE(t.stop);
  REQUIRE(t.tasks.size() == 2);
  CHECK(t.tasks[0].point == 3);
  CHECK(t.tasks[0].k == 7);
  CHECK(t.tasks[0].policies == std::vector<size_t>{0, 2});
  CHECK(decode_tasks(encode(TaskBatch{true, {}})).stop);

  sweep::ResultRow row{3, 8, 2, {}, "0123456789abcdef"};
  row.metrics[0] = 0.1 + 0.2;  // not a short decimal: must survive bit for bit
  row.metrics[4] = std::numeric_limits<double>::denorm_min();
  row.metrics[6] = -0.0;
  const ResultBatch r = decode_results(encode(ResultBatch{5, {{tasks.tasks[0], {row, row}}}}));
  CHECK(r.want == 5);
  REQUIRE(r.results.size() == 1);
  CHECK(r.results[0].task.k == 7);
  REQUIRE(r.results[0].rows.size() == 2);
  const sweep::ResultRow& back = r.results[0].rows[1];
  CHECK(back.point == 3);
  CHECK(back.seed == 8);
  CHECK(back.policy == 2);
  CHECK(back.fingerprint == row.fingerprint);
  for (size_t m = 0; m < row.metrics.size(); ++m) {
    INFO(m);
    REQUIRE(back.metrics[m].has_value() == row.metrics[m].has_value());
    if (row.metrics[m]) {
      CHECK(std::memcmp(&*back.metrics[m], &*row.metrics[m], sizeof(double)) == 0);
    }
  }
  CHECK(decode_worker(encode(WorkerInfo{4242, "node-7"})).host == "node-7");
  CHECK(decode_text(encode_text("point 1 seed 2 failed")) == "point 1 seed 2 failed");
}

TEST_CASE("mpi wire: cut and padded buffers are rejected", "[app][mpi]") {
  Bytes b = encode(TaskBatch{false, {{1, 2, {0, 1, 2}}}});
  Bytes cut(b.begin(), b.end() - 1);
  CHECK_THROWS_WITH(decode_tasks(cut), Catch::Contains("truncated"));
  b.push_back(0);
  CHECK_THROWS_WITH(decode_tasks(b), Catch::Contains("trailing"));
  Bytes huge = encode_text("x");
  huge[0] = 0xff;  // a length far beyond the buffer
  CHECK_THROWS_WITH(decode_text(huge), Catch::Contains("truncated"));
}

}  // namespace
}  // namespace goodsim::app::mpi
