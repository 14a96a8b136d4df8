// The messages between the MPI ranks of a sweep, as byte buffers (MPI_BYTE).
//
// Tasks (rank 0 -> worker): a stop flag and (point, seed index, policies)
// per task. Results (worker -> rank 0): the rows of finished tasks, each
// metric as a presence byte and the double's bytes (exact: statistics on rank
// 0 are bit-identical to a one-process sweep), plus how many more tasks the
// worker can take. Ranks run the same goodsim binary on machines of one
// architecture (MPI's heterogeneous mode is not used).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/sweep/schedule.h"

namespace goodsim::app::mpi {

using Bytes = std::vector<unsigned char>;

struct TaskBatch {
  bool stop = false;
  std::vector<sweep::SweepTask> tasks;
};

struct ResultBatch {
  size_t want = 0;  // further tasks the worker asks for
  std::vector<sweep::TaskResult> results;
};

// Who a worker is, for messages about it.
struct WorkerInfo {
  int64_t pid = 0;
  std::string host;
};

Bytes encode(const TaskBatch& batch);
Bytes encode(const ResultBatch& batch);
Bytes encode(const WorkerInfo& info);
Bytes encode_text(const std::string& text);

// Decoders throw std::runtime_error on a truncated or malformed buffer.
TaskBatch decode_tasks(const Bytes& bytes);
ResultBatch decode_results(const Bytes& bytes);
WorkerInfo decode_worker(const Bytes& bytes);
std::string decode_text(const Bytes& bytes);

}  // namespace goodsim::app::mpi
