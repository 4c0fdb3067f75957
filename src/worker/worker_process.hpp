// The worker process's main loop: a setup message, then one job at a time until its input closes.
#pragma once

namespace evotune {

// Reads messages from in_fd and answers on out_fd. Returns the process exit code: 0 at end of input, 2 when
// the engine could not set up, 3 after a job that left the GPU context unusable, 4 on a malformed message.
int run_worker(int in_fd, int out_fd);

// run_worker on the pipes a WorkerPool gives each worker (its job and answer fds).
int run_pool_worker();

}  // namespace evotune
