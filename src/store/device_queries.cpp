// Store: which devices hold measurements of a space and problem, and what is known of each (for `record`).
#include "store/store.hpp"

namespace evotune {

std::vector<DeviceMeasurements> Store::measured_devices(std::int64_t space_id,
                                                        std::int64_t problem_id) const {
  sql::Statement select(*db_, R"(
      SELECT d.id, d.name, d.cc_major, d.cc_minor, d.driver_version, d.nvrtc_version, d.sm_count, d.l2_bytes,
             d.max_smem_per_block, count(*) AS n
      FROM measurements m
      JOIN configs c ON c.id = m.config_id
      JOIN devices d ON d.id = m.device_id
      WHERE c.space_id = ?1 AND m.problem_id = ?2
      GROUP BY d.id ORDER BY n DESC, d.id)");
  select.bind_int(1, space_id).bind_int(2, problem_id);
  std::vector<DeviceMeasurements> devices;
  while (select.step()) {
    DeviceMeasurements& row = devices.emplace_back();
    row.device.id = select.int64(0);
    DeviceInfo& info = row.device.info;
    info.name = select.text(1);
    info.cc_major = static_cast<int>(select.int64(2));
    info.cc_minor = static_cast<int>(select.int64(3));
    info.driver_version = static_cast<int>(select.int64(4));
    row.device.nvrtc_version = select.text(5);
    info.sm_count = static_cast<int>(select.int64(6));
    info.l2_bytes = select.int64(7);
    info.max_smem_per_block = static_cast<int>(select.int64(8));
    row.measurements = select.int64(9);
  }
  return devices;
}

}  // namespace evotune
