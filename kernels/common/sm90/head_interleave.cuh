// The order in which a grid of (blocks of a head) x (heads) blocks takes its work when heads interleave: the
// hardware starts blocks in launch order (blockIdx.x fastest, then y, then z), and a grid whose x walks one
// head's blocks heaviest first, head after head (causal attention: the query or key blocks with the most
// tiles first), ends with the last heads' heaviest blocks running alone. Read as groups of `Heads` heads that
// take turns (block 0 of each head of the group, then block 1 of each, ...), every heavy block of a group
// starts before a lighter one, and the last wave holds light blocks; the blocks running at once still share
// the inputs of a few heads in L2.
#pragma once

namespace sm90 {

struct InterleavedBlock {
  int block;  // the block's position within its head (x of the grid's own order)
  int head;   // its head as the grid counts them: y + gridDim.y z
};

// This block's place when groups of `Heads` heads interleave (the last group may hold fewer).
template <int Heads>
__device__ __forceinline__ InterleavedBlock interleaved_block() {
  static_assert(Heads >= 1, "groups of at least one head");
  const int blocks = static_cast<int>(gridDim.x);
  const int heads = static_cast<int>(gridDim.y * gridDim.z);
  const int linear = static_cast<int>(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
  const int group = linear / (blocks * Heads);
  const int within = linear - group * blocks * Heads;
  const int group_heads = min(Heads, heads - group * Heads);
  return {within / group_heads, group * Heads + within % group_heads};
}

}  // namespace sm90
