// goodsim_bench [hold|cluster|inject|sweep|paper|paper-table1|bandwidth|calibrate]...: runs the named benchmarks (default: all).
#include <cstring>
#include <iostream>

#include "bench/bench.h"

int main(int argc, char** argv) {
  bool all = argc == 1;
  int rc = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "sweep") == 0) continue;
    if (std::strcmp(argv[i], "paper") == 0) continue;
    if (std::strcmp(argv[i], "paper-table1") == 0) continue;
    if (std::strcmp(argv[i], "bandwidth") == 0) continue;
    if (std::strcmp(argv[i], "calibrate") == 0) continue;
    if (std::strcmp(argv[i], "hold") != 0 && std::strcmp(argv[i], "cluster") != 0 &&
        std::strcmp(argv[i], "inject") != 0) {
      std::cerr << "usage: goodsim_bench [hold|cluster|inject]...\n";
      return 2;
    }
  }
  auto wanted = [&](const char* name) {
    if (all) return true;
    for (int i = 1; i < argc; ++i) {
      if (std::strcmp(argv[i], name) == 0) return true;
    }
    return false;
  };
  if (wanted("hold")) rc |= goodsim::bench::hold_model();
  if (wanted("cluster")) rc |= goodsim::bench::cluster_build();
  if (wanted("inject")) rc |= goodsim::bench::inject();
  if (wanted("sweep")) rc |= goodsim::bench::sweep();
  if (wanted("paper")) rc |= goodsim::bench::paper();
  if (wanted("paper-table1")) rc |= goodsim::bench::paper_table1();
  if (wanted("bandwidth")) rc |= goodsim::bench::bandwidth();
  if (wanted("calibrate")) rc |= goodsim::bench::calibrate();
  return rc;
}
