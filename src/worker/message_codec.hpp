// The worker messages to and from the JSON that ipc/frame_pipe carries as CBOR: the protocol's one
// serialiser.
#pragma once

#include <nlohmann/json.hpp>

#include "worker/messages.hpp"

namespace evotune {

// Each decode reads what its encode writes, exactly (the cubin as binary data). A malformed message (a
// missing, mistyped or unknown field, an unknown engine, answer type, status or dtype) throws Error with one
// line naming the message and the field.
nlohmann::json encode(const WorkerSetup& setup);
WorkerSetup decode_setup(const nlohmann::json& message);
nlohmann::json encode(const JobMessage& job);
JobMessage decode_job(const nlohmann::json& message);
nlohmann::json encode(const WorkerAnswer& answer);
WorkerAnswer decode_answer(const nlohmann::json& message);

}  // namespace evotune
