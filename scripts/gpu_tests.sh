#!/usr/bin/env bash
# The GPU tests alone (on a machine with a GPU): builds, then runs the tests labelled gpu.
exec "$(dirname "$0")/test.sh" -L gpu
