// MPI for one goodsim process: initialized on construction, finalized on
// destruction, and the few point-to-point and collective calls a sweep uses.
//
// Threading: MPI_THREAD_FUNNELED; only the thread that made the session calls
// MPI (a sweep's worker threads never do).
// SIGTERM is blocked in every thread from construction on (threads started
// later, MPI's included, inherit the mask): when a rank dies, the MPI runtime
// stops the others with SIGTERM, and the sweep polls for it (teardown_requested)
// to say which rank and task were lost before it exits.
#pragma once

#include <chrono>

#include <mpi.h>

#include <deque>
#include <optional>
#include <string>
#include <utility>

#include "app/mpi/wire.h"

namespace goodsim::app::mpi {

// How long an MPI thread (the coordinator's or a worker's) sleeps when nothing
// happened: short against any run worth spreading over ranks, long enough not to
// spin a shared core.
inline constexpr auto kIdleWait = std::chrono::microseconds(200);

enum class Tag : int { kHello = 1, kResults = 2, kTasks = 3, kError = 4 };

class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_size() const { return local_size_; }  // ranks on this node
  static std::string host();

  // Rank 0's value of `flag`, on every rank (collective).
  bool broadcast(bool flag) const;

  // Blocking send (for workers: rank 0 always receives).
  void send(int to, Tag tag, const Bytes& bytes) const;
  // Non-blocking send (rank 0: never waits for a worker busy sending); the
  // buffer is kept until the send completes.
  void post(int to, Tag tag, Bytes bytes);
  // Frees the buffers of completed posts; with `wait`, waits for all first.
  void complete_posts(bool wait);
  // A message from any rank, if one is waiting: sets `from` and `tag`.
  std::optional<Bytes> poll(int& from, Tag& tag) const;
  // Ends the whole MPI job with `code` (MPI_Abort).
  [[noreturn]] void abort(int code) const;

  // A SIGTERM arrived (the runtime is stopping the job). Non-blocking.
  static bool teardown_requested();

 private:
  int rank_ = 0;
  int size_ = 1;
  int local_size_ = 1;
  std::deque<std::pair<MPI_Request, Bytes>> posts_;  // deque: buffers never move
};

}  // namespace goodsim::app::mpi
