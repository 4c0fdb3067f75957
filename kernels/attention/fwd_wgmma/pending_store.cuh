// The wgmma forward template's deferred wait for a work tile's O store (persistent blocks, two Q tiles).
// Included by flash_attn_fwd_wgmma.cu after its tuning parameters, whose #defines it reads.
#pragma once

#include "config.cuh"

namespace attn {

// (PERSISTENT, two Q tiles, TMA store) A work tile's O store is waited for, and its Q tile handed back to the
// producer (q_empty), only once the next work tile's first S = Q K^T is issued: the bulk store reads the
// staging rows meanwhile, instead of holding the warpgroup's first warp (and with it the warpgroup's next
// wgmma) at the end of the epilogue. The producer needs that Q tile back only for the work tile after next.
constexpr bool DEFER_STORE_WAIT = PERSISTENT && Q_BUFFERS == 2 && TMA_STORE;

struct PendingStore {
  bool pending = false;  // (the warpgroup's first thread) a store still reads the staging rows of...
  unsigned q_empty = 0;  // ...the Q tile of this q_empty barrier

  // Waits for the pending store's read of its staging rows and hands the Q tile back; idempotent.
  __device__ __forceinline__ void settle() {
    if constexpr (DEFER_STORE_WAIT) {
      if (pending) {
        sm90::tma_wait_stores_read();
        sm90::mbarrier_arrive(q_empty);
        pending = false;
      }
    }
  }
};

}  // namespace attn
