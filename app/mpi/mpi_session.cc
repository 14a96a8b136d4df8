#include "app/mpi/mpi_session.h"

#include <signal.h>
#include <unistd.h>

#include <climits>
#include <stdexcept>

namespace goodsim::app::mpi {
namespace {

sigset_t term_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  return set;
}

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

}  // namespace

MpiSession::MpiSession() {
  const sigset_t set = term_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  if (provided < MPI_THREAD_FUNNELED) {
    MPI_Finalize();
    throw std::runtime_error("MPI: this MPI library does not support threads (FUNNELED)");
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
  MPI_Comm_size(local, &local_size_);
  MPI_Comm_free(&local);
}

MpiSession::~MpiSession() {
  complete_posts(true);
  MPI_Finalize();
}

std::string MpiSession::host() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  return std::string(name, static_cast<size_t>(len));
}

bool MpiSession::broadcast(bool flag) const {
  int value = flag ? 1 : 0;
  check(MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return value != 0;
}

void MpiSession::send(int to, Tag tag, const Bytes& bytes) const {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) throw std::runtime_error("MPI: message too big");
  check(MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to,
                 static_cast<int>(tag), MPI_COMM_WORLD),
        "MPI_Send");
}

void MpiSession::post(int to, Tag tag, Bytes bytes) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) throw std::runtime_error("MPI: message too big");
  posts_.emplace_back(MPI_REQUEST_NULL, std::move(bytes));
  auto& [request, buffer] = posts_.back();
  check(MPI_Isend(buffer.data(), static_cast<int>(buffer.size()), MPI_BYTE, to,
                  static_cast<int>(tag), MPI_COMM_WORLD, &request),
        "MPI_Isend");
}

void MpiSession::complete_posts(bool wait) {
  while (!posts_.empty()) {
    int done = 0;
    if (wait) {
      MPI_Wait(&posts_.front().first, MPI_STATUS_IGNORE);
      done = 1;
    } else {
      MPI_Test(&posts_.front().first, &done, MPI_STATUS_IGNORE);
    }
    if (!done) return;
    posts_.pop_front();
  }
}

std::optional<Bytes> MpiSession::poll(int& from, Tag& tag) const {
  int flag = 0;
  MPI_Status status;
  check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
  if (!flag) return std::nullopt;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  Bytes bytes(static_cast<size_t>(count));
  check(MPI_Recv(bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Recv");
  from = status.MPI_SOURCE;
  tag = static_cast<Tag>(status.MPI_TAG);
  return bytes;
}

void MpiSession::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  _exit(code);  // MPI_Abort does not return; this satisfies [[noreturn]]
}

bool MpiSession::teardown_requested() {
  sigset_t pending;
  sigemptyset(&pending);
  return sigpending(&pending) == 0 && sigismember(&pending, SIGTERM) == 1;
}

}  // namespace goodsim::app::mpi
