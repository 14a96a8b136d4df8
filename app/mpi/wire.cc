#include "app/mpi/wire.h"

#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace goodsim::app::mpi {
namespace {

class Writer {
 public:
  template <typename T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const unsigned char*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  void put(const std::string& s) {
    put<uint64_t>(s.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
  }
  Bytes take() { return std::move(bytes_); }

 private:
  Bytes bytes_;
};

class Reader {
 public:
  explicit Reader(const Bytes& bytes) : bytes_(bytes) {}
  template <typename T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    need(sizeof(T));
    T value;
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  std::string text() {
    const auto n = get<uint64_t>();
    need(n);
    std::string s(reinterpret_cast<const char*>(bytes_.data() + at_), n);
    at_ += n;
    return s;
  }
  void finish() const {
    if (at_ != bytes_.size()) throw std::runtime_error("MPI message: trailing bytes");
  }

 private:
  void need(size_t n) const {
    if (n > bytes_.size() - at_) throw std::runtime_error("MPI message: truncated");
  }
  const Bytes& bytes_;
  size_t at_ = 0;
};

// A count, then each element.
template <typename T, typename PutOne>
void put_list(Writer& w, const std::vector<T>& items, PutOne put_one) {
  w.put<uint64_t>(items.size());
  for (const T& item : items) put_one(w, item);
}

template <typename T, typename GetOne>
void get_list(Reader& r, std::vector<T>& items, GetOne get_one) {
  const auto n = r.get<uint64_t>();
  for (uint64_t i = 0; i < n; ++i) items.push_back(get_one(r));
}

void put_task(Writer& w, const sweep::SweepTask& t) {
  w.put<uint64_t>(t.point);
  w.put<uint64_t>(t.k);
  put_list(w, t.policies, [](Writer& out, size_t p) { out.put<uint64_t>(p); });
}

sweep::SweepTask get_task(Reader& r) {
  sweep::SweepTask t;
  t.point = r.get<uint64_t>();
  t.k = r.get<uint64_t>();
  get_list(r, t.policies, [](Reader& in) { return static_cast<size_t>(in.get<uint64_t>()); });
  return t;
}

void put_row(Writer& w, const sweep::ResultRow& row) {
  w.put<uint64_t>(row.policy);
  w.put<uint64_t>(row.seed);
  for (const auto& v : row.metrics) {
    w.put<uint8_t>(v.has_value() ? 1 : 0);
    w.put<double>(v.value_or(0.0));
  }
  w.put(row.fingerprint);
}

sweep::ResultRow get_row(Reader& r, size_t point) {
  sweep::ResultRow row;
  row.point = point;
  row.policy = r.get<uint64_t>();
  row.seed = r.get<uint64_t>();
  for (auto& v : row.metrics) {
    const bool present = r.get<uint8_t>() != 0;
    const double x = r.get<double>();
    if (present) v = x;
  }
  row.fingerprint = r.text();
  return row;
}

}  // namespace

Bytes encode(const TaskBatch& batch) {
  Writer w;
  w.put<uint8_t>(batch.stop ? 1 : 0);
  put_list(w, batch.tasks, put_task);
  return w.take();
}

TaskBatch decode_tasks(const Bytes& bytes) {
  Reader r(bytes);
  TaskBatch batch;
  batch.stop = r.get<uint8_t>() != 0;
  get_list(r, batch.tasks, get_task);
  r.finish();
  return batch;
}

Bytes encode(const ResultBatch& batch) {
  Writer w;
  w.put<uint64_t>(batch.want);
  put_list(w, batch.results, [](Writer& out, const sweep::TaskResult& res) {
    put_task(out, res.task);
    put_list(out, res.rows, put_row);
  });
  return w.take();
}

ResultBatch decode_results(const Bytes& bytes) {
  Reader r(bytes);
  ResultBatch batch;
  batch.want = r.get<uint64_t>();
  get_list(r, batch.results, [](Reader& in) {
    sweep::TaskResult res{get_task(in), {}};
    get_list(in, res.rows, [&](Reader& rows) { return get_row(rows, res.task.point); });
    return res;
  });
  r.finish();
  return batch;
}

Bytes encode(const WorkerInfo& info) {
  Writer w;
  w.put<int64_t>(info.pid);
  w.put(info.host);
  return w.take();
}

WorkerInfo decode_worker(const Bytes& bytes) {
  Reader r(bytes);
  WorkerInfo info;
  info.pid = r.get<int64_t>();
  info.host = r.text();
  r.finish();
  return info;
}

Bytes encode_text(const std::string& text) {
  Writer w;
  w.put(text);
  return w.take();
}

std::string decode_text(const Bytes& bytes) {
  Reader r(bytes);
  std::string text = r.text();
  r.finish();
  return text;
}

}  // namespace goodsim::app::mpi
