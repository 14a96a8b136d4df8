// goodsim sweep-merge: the shards of a sweep (goodsim sweep --shard i/n, one
// directory each) combined into the files of the unsharded sweep.
//
// The result is byte-identical to running the sweep in one process: the
// merged results.csv is in canonical order, summary.csv and paired.csv are
// computed from it, and sweep.json is the definition without its shard.
// Refused (ScenarioError, exit 2, nothing written): a directory that is not a
// shard, shards of different sweeps (or of another goodsim version), a shard
// given twice, a missing shard, a row in the wrong shard, a shard whose runs
// are not all there (finish it with --resume), and an output directory that
// already holds a sweep.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace goodsim::app::sweep {

struct MergeOptions {
  std::vector<std::string> dirs;  // shard directories
  std::string out_dir;
  bool quiet = false;
};

// Returns 0. Throws ScenarioError on any of the refusals above.
int merge_command(const MergeOptions& options, std::ostream& out);

}  // namespace goodsim::app::sweep
