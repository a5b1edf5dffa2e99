/* The part of AMD's ROCm SMI C API (rocm_smi/rocm_smi.h, librocm_smi64.so)
 * that petricore calls, declared here because rocm_smi.h ships with ROCm, not
 * in Debian's main archive. Types, values and signatures are ROCm SMI's own,
 * from its header in github.com/ROCm/rocm_smi_lib (include/rocm_smi/rocm_smi.h,
 * 2017-2025 version): the real library and the test's stand-in
 * (test/standin/rocm_standin.c) are both built against this one header, and
 * petricore never links the library (gpu_rocm.cpp dlopen()s it). Every
 * function here is exported by librocm_smi64.so.5, .6 and .7 except
 * rsmi_dev_power_get (ROCm 6.0 and later), which gpu_rocm.cpp looks up as
 * optional. Keep to C: the stand-in is C. */
#ifndef PETRICORE_ROCM_SMI_API_H
#define PETRICORE_ROCM_SMI_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  RSMI_STATUS_SUCCESS = 0x0,
  RSMI_STATUS_INVALID_ARGS,
  RSMI_STATUS_NOT_SUPPORTED, /* also a sysfs file that is not there (ENOENT), as a device gone from the bus */
  RSMI_STATUS_FILE_ERROR,
  RSMI_STATUS_PERMISSION,
  RSMI_STATUS_OUT_OF_RESOURCES,
  RSMI_STATUS_INTERNAL_EXCEPTION,
  RSMI_STATUS_INPUT_OUT_OF_BOUNDS,
  RSMI_STATUS_INIT_ERROR,
  RSMI_STATUS_NOT_YET_IMPLEMENTED,
  RSMI_STATUS_NOT_FOUND, /* also a process that is gone (ESRCH) */
  RSMI_STATUS_INSUFFICIENT_SIZE,
  RSMI_STATUS_INTERRUPT,
  RSMI_STATUS_UNEXPECTED_SIZE,
  RSMI_STATUS_NO_DATA,
  RSMI_STATUS_UNEXPECTED_DATA,
  RSMI_STATUS_BUSY,
  RSMI_STATUS_REFCOUNT_OVERFLOW,
  RSMI_STATUS_SETTING_UNAVAILABLE,
  RSMI_STATUS_AMDGPU_RESTART_ERR,
  RSMI_STATUS_DRM_ERROR,
  RSMI_STATUS_FAIL_LOAD_MODULE,
  RSMI_STATUS_FAIL_LOAD_SYMBOL,
  RSMI_STATUS_UNKNOWN_ERROR = 0xFFFFFFFF
} rsmi_status_t;

typedef enum {
  RSMI_MEM_TYPE_FIRST = 0,
  RSMI_MEM_TYPE_VRAM = RSMI_MEM_TYPE_FIRST,
  RSMI_MEM_TYPE_VIS_VRAM,
  RSMI_MEM_TYPE_GTT,
  RSMI_MEM_TYPE_LAST = RSMI_MEM_TYPE_GTT
} rsmi_memory_type_t;

/* What rsmi_dev_power_get read: newer ASICs (MI300) give the current socket
 * power only, older ones the average. */
typedef enum { RSMI_AVERAGE_POWER = 0, RSMI_CURRENT_POWER, RSMI_INVALID_POWER = 0xFFFFFFFF } RSMI_POWER_TYPE;

/* One process using a GPU (any GPU: the list is the node's, not a device's). */
typedef struct {
  uint32_t process_id;
  uint32_t pasid;
  uint64_t vram_usage;   /* bytes */
  uint64_t sdma_usage;   /* microseconds */
  uint32_t cu_occupancy; /* percent */
} rsmi_process_info_t;

/* init_flags: 0, AMD devices only. Devices are enumerated here, once: the
 * count and the device indexes hold until rsmi_shut_down. */
rsmi_status_t rsmi_init(uint64_t init_flags);
rsmi_status_t rsmi_shut_down(void);
/* *status_string points at a static text. */
rsmi_status_t rsmi_status_string(rsmi_status_t status, const char** status_string);
rsmi_status_t rsmi_num_monitor_devices(uint32_t* num_devices);
rsmi_status_t rsmi_dev_name_get(uint32_t dv_ind, char* name, size_t len);
rsmi_status_t rsmi_dev_unique_id_get(uint32_t dv_ind, uint64_t* id);
/* Percent of time busy. */
rsmi_status_t rsmi_dev_busy_percent_get(uint32_t dv_ind, uint32_t* busy_percent);
rsmi_status_t rsmi_dev_memory_busy_percent_get(uint32_t dv_ind, uint32_t* busy_percent);
/* Bytes. */
rsmi_status_t rsmi_dev_memory_total_get(uint32_t dv_ind, rsmi_memory_type_t mem_type, uint64_t* total);
rsmi_status_t rsmi_dev_memory_usage_get(uint32_t dv_ind, rsmi_memory_type_t mem_type, uint64_t* used);
/* Microwatts. Deprecated since ROCm 6.1 for rsmi_dev_power_get, still exported. */
rsmi_status_t rsmi_dev_power_ave_get(uint32_t dv_ind, uint32_t sensor_ind, uint64_t* power);
/* Microwatts, the current socket power where the device gives it, else the
 * average. ROCm 6.0 and later. */
rsmi_status_t rsmi_dev_power_get(uint32_t dv_ind, uint64_t* power, RSMI_POWER_TYPE* type);
/* procs NULL: *num_items out is the number of processes. Otherwise *num_items
 * in is the room in procs, out the number written; RSMI_STATUS_INSUFFICIENT_SIZE
 * when there are more (and *num_items is left as the room). */
rsmi_status_t rsmi_compute_process_info_get(rsmi_process_info_t* procs, uint32_t* num_items);
/* The device indexes process `pid` uses, the same room convention. */
rsmi_status_t rsmi_compute_process_gpus_get(uint32_t pid, uint32_t* dv_indices, uint32_t* num_devices);

#ifdef __cplusplus
}
#endif

#endif /* PETRICORE_ROCM_SMI_API_H */
