/* A stand-in librocm_smi64.so.6 for the tests: the ROCm SMI calls petricore
 * makes (src/collect/rocm_smi_api.h, the same ABI), answered from a text file
 * that describes the devices, their readings, the processes on them and the
 * errors to return. The file is named by $PETRICORE_ROCM_STANDIN and read
 * again whenever it changed (rsmi_init and rsmi_num_monitor_devices look), so
 * a test moves time on by rewriting it. One record per line, `key=value`
 * words, a value in double quotes may hold spaces, `#` starts a comment:
 *
 *   init code=8                          rsmi_init fails (8: RSMI_STATUS_INIT_ERROR)
 *   gpu name="AMD Instinct MI250X" unique_id=0x5a1b2c3d4e5f6071 memory_total_mib=65536
 *                                        a device, indexed in file order
 *   sample gpu=0 busy=95 memory_busy=40 memory_used_mib=2048 power_uw=250500000
 *   process pid=1234 gpus=0,1            a process and the devices it uses
 *   process pid=1235 gpus=0 ended=1      listed, but gone when its devices are asked
 *   fail gpu=0 call=busy code=3          that call on that device fails (calls:
 *                                        name unique_id busy memory_busy
 *                                        memory_total memory_usage power power_ave)
 *   fail call=count code=4294967295      rsmi_num_monitor_devices fails
 *   fail call=processes code=3           rsmi_compute_process_info_get fails
 *   fail pid=1234 call=process_gpus code=3
 *
 * As the real library, rsmi_init is counted and enumerates the devices at the
 * first call only: the count and the indexes hold until the last
 * rsmi_shut_down. A device of that enumeration that a later version of the
 * file no longer has answers RSMI_STATUS_NOT_SUPPORTED, as ROCm SMI does when
 * a GPU's sysfs files are gone (ENOENT); an index past the enumeration,
 * RSMI_STATUS_INVALID_ARGS. Not thread-safe, as petricore's one sampling
 * thread needs. */
#include "collect/rocm_smi_api.h"

#include "standin_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_GPUS 64
#define MAX_PROCESSES 256
#define MAX_PROCESS_GPUS 64
#define MAX_FAILS 64

struct gpu {
  char name[128];
  uint64_t unique_id;
  uint64_t memory_total;
  uint32_t busy, memory_busy;
  uint64_t memory_used;
  uint64_t power_uw;
};

struct process {
  uint32_t pid;
  uint32_t gpus[MAX_PROCESS_GPUS];
  uint32_t gpu_count;
  int ended;
};

struct fail {
  int gpu;  /* -1: not a device call */
  long pid; /* -1: not a process call */
  char call[16];
  rsmi_status_t code;
};

static struct gpu gpus[MAX_GPUS];
static uint32_t gpu_count;
static struct process processes[MAX_PROCESSES];
static uint32_t process_count;
static struct fail fails[MAX_FAILS];
static uint32_t fail_count;
static rsmi_status_t init_code;
static int references;      /* rsmi_init calls not yet shut down */
static uint32_t enumerated; /* the device count of the first rsmi_init */
static struct stat loaded;  /* the file as last read */

static const uint64_t kMiB = 1024ULL * 1024ULL;

static void read_gpu(char* line, struct gpu* gpu) {
  char *key, *value;
  memset(gpu, 0, sizeof *gpu);
  while (standin_next_word(&line, &key, &value)) {
    if (strcmp(key, "name") == 0) snprintf(gpu->name, sizeof gpu->name, "%s", value);
    if (strcmp(key, "unique_id") == 0) gpu->unique_id = strtoull(value, NULL, 0);
    if (strcmp(key, "memory_total_mib") == 0) gpu->memory_total = strtoull(value, NULL, 10) * kMiB;
  }
}

static void read_sample(char* line) {
  char *key, *value;
  struct gpu sample;
  int gpu = -1;
  memset(&sample, 0, sizeof sample);
  while (standin_next_word(&line, &key, &value)) {
    if (strcmp(key, "gpu") == 0) gpu = atoi(value);
    if (strcmp(key, "busy") == 0) sample.busy = (uint32_t)strtoul(value, NULL, 10);
    if (strcmp(key, "memory_busy") == 0) sample.memory_busy = (uint32_t)strtoul(value, NULL, 10);
    if (strcmp(key, "memory_used_mib") == 0) sample.memory_used = strtoull(value, NULL, 10) * kMiB;
    if (strcmp(key, "power_uw") == 0) sample.power_uw = strtoull(value, NULL, 10);
  }
  if (gpu < 0 || (uint32_t)gpu >= gpu_count) return;
  gpus[gpu].busy = sample.busy;
  gpus[gpu].memory_busy = sample.memory_busy;
  gpus[gpu].memory_used = sample.memory_used;
  gpus[gpu].power_uw = sample.power_uw;
}

static void read_process(char* line, struct process* p) {
  char *key, *value;
  memset(p, 0, sizeof *p);
  while (standin_next_word(&line, &key, &value)) {
    if (strcmp(key, "pid") == 0) p->pid = (uint32_t)strtoul(value, NULL, 10);
    if (strcmp(key, "ended") == 0) p->ended = atoi(value);
    if (strcmp(key, "gpus") == 0) {
      char* next = value;
      while (*next && p->gpu_count < MAX_PROCESS_GPUS) {
        p->gpus[p->gpu_count++] = (uint32_t)strtoul(next, &next, 10);
        if (*next == ',') ++next;
      }
    }
  }
}

static void read_fail(char* line, struct fail* f) {
  char *key, *value;
  f->gpu = -1;
  f->pid = -1;
  f->call[0] = '\0';
  f->code = RSMI_STATUS_UNKNOWN_ERROR;
  while (standin_next_word(&line, &key, &value)) {
    if (strcmp(key, "gpu") == 0) f->gpu = atoi(value);
    if (strcmp(key, "pid") == 0) f->pid = atol(value);
    if (strcmp(key, "call") == 0) snprintf(f->call, sizeof f->call, "%s", value);
    if (strcmp(key, "code") == 0) f->code = (rsmi_status_t)strtoul(value, NULL, 10);
  }
}

static void load(const char* path) {
  FILE* file = fopen(path, "r");
  if (file == NULL) return; /* keeps what it had */
  gpu_count = process_count = fail_count = 0;
  init_code = RSMI_STATUS_SUCCESS;
  char buffer[1024];
  while (fgets(buffer, sizeof buffer, file) != NULL) {
    char* line = buffer;
    char *record, *value;
    if (!standin_next_word(&line, &record, &value)) continue;
    if (strcmp(record, "gpu") == 0 && gpu_count < MAX_GPUS) {
      read_gpu(line, &gpus[gpu_count++]);
    } else if (strcmp(record, "sample") == 0) {
      read_sample(line);
    } else if (strcmp(record, "process") == 0 && process_count < MAX_PROCESSES) {
      read_process(line, &processes[process_count++]);
    } else if (strcmp(record, "fail") == 0 && fail_count < MAX_FAILS) {
      read_fail(line, &fails[fail_count++]);
    } else if (strcmp(record, "init") == 0) {
      char* key;
      while (standin_next_word(&line, &key, &value))
        if (strcmp(key, "code") == 0) init_code = (rsmi_status_t)strtoul(value, NULL, 10);
    }
  }
  fclose(file);
}

/* Reads the file again when it changed since it was last read. */
static void refresh(void) {
  const char* path = getenv("PETRICORE_ROCM_STANDIN");
  if (path != NULL && standin_changed(path, &loaded, 0)) load(path);
}

static rsmi_status_t failure(int gpu, long pid, const char* call) {
  for (uint32_t i = 0; i < fail_count; ++i)
    if (fails[i].gpu == gpu && fails[i].pid == pid && strcmp(fails[i].call, call) == 0) return fails[i].code;
  return RSMI_STATUS_SUCCESS;
}

/* RSMI_STATUS_SUCCESS when device `dv_ind` of the enumeration is in the file
 * now and `call` is not set to fail on it. */
static rsmi_status_t check(uint32_t dv_ind, const char* call, const void* out) {
  if (references == 0 || dv_ind >= enumerated) return RSMI_STATUS_INVALID_ARGS;
  if (dv_ind >= gpu_count) return RSMI_STATUS_NOT_SUPPORTED; /* its sysfs files are gone */
  rsmi_status_t code = failure((int)dv_ind, -1, call);
  if (code != RSMI_STATUS_SUCCESS) return code;
  return out == NULL ? RSMI_STATUS_INVALID_ARGS : RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_init(uint64_t init_flags) {
  (void)init_flags;
  if (references > 0) {
    ++references;
    return RSMI_STATUS_SUCCESS;
  }
  memset(&loaded, 0, sizeof loaded);
  refresh();
  if (getenv("PETRICORE_ROCM_STANDIN") == NULL) return RSMI_STATUS_INIT_ERROR;
  if (init_code != RSMI_STATUS_SUCCESS) return init_code;
  references = 1;
  enumerated = gpu_count;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_shut_down(void) {
  if (references > 0) --references;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_status_string(rsmi_status_t status, const char** status_string) {
  if (status_string == NULL) return RSMI_STATUS_INVALID_ARGS;
  switch (status) {
    case RSMI_STATUS_SUCCESS:
      *status_string = "RSMI_STATUS_SUCCESS: The function has been executed successfully.";
      break;
    case RSMI_STATUS_INVALID_ARGS:
      *status_string = "RSMI_STATUS_INVALID_ARGS: The provided arguments are not valid.";
      break;
    case RSMI_STATUS_NOT_SUPPORTED:
      *status_string = "RSMI_STATUS_NOT_SUPPORTED: This function is not supported.";
      break;
    case RSMI_STATUS_FILE_ERROR:
      *status_string = "RSMI_STATUS_FILE_ERROR: Problem accessing a file.";
      break;
    case RSMI_STATUS_PERMISSION:
      *status_string = "RSMI_STATUS_PERMISSION: Permission denied.";
      break;
    case RSMI_STATUS_INIT_ERROR:
      *status_string = "RSMI_STATUS_INIT_ERROR: An error occurred during initialization.";
      break;
    case RSMI_STATUS_NOT_FOUND:
      *status_string = "RSMI_STATUS_NOT_FOUND: An item was searched for but not found.";
      break;
    case RSMI_STATUS_INSUFFICIENT_SIZE:
      *status_string = "RSMI_STATUS_INSUFFICIENT_SIZE: Not enough resources were available.";
      break;
    default:
      *status_string = "An unknown error occurred";
      break;
  }
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_num_monitor_devices(uint32_t* num_devices) {
  if (references == 0) return RSMI_STATUS_INIT_ERROR;
  if (num_devices == NULL) return RSMI_STATUS_INVALID_ARGS;
  refresh();
  rsmi_status_t code = failure(-1, -1, "count");
  if (code != RSMI_STATUS_SUCCESS) return code;
  *num_devices = enumerated;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_name_get(uint32_t dv_ind, char* name, size_t len) {
  rsmi_status_t code = check(dv_ind, "name", name);
  if (code != RSMI_STATUS_SUCCESS) return code;
  size_t length = strlen(gpus[dv_ind].name) + 1;
  memcpy(name, gpus[dv_ind].name, length <= len ? length : len); /* only len bytes, as the real one */
  return length <= len ? RSMI_STATUS_SUCCESS : RSMI_STATUS_INSUFFICIENT_SIZE;
}

rsmi_status_t rsmi_dev_unique_id_get(uint32_t dv_ind, uint64_t* id) {
  rsmi_status_t code = check(dv_ind, "unique_id", id);
  if (code == RSMI_STATUS_SUCCESS) *id = gpus[dv_ind].unique_id;
  return code;
}

rsmi_status_t rsmi_dev_busy_percent_get(uint32_t dv_ind, uint32_t* busy_percent) {
  rsmi_status_t code = check(dv_ind, "busy", busy_percent);
  if (code == RSMI_STATUS_SUCCESS) *busy_percent = gpus[dv_ind].busy;
  return code;
}

rsmi_status_t rsmi_dev_memory_busy_percent_get(uint32_t dv_ind, uint32_t* busy_percent) {
  rsmi_status_t code = check(dv_ind, "memory_busy", busy_percent);
  if (code == RSMI_STATUS_SUCCESS) *busy_percent = gpus[dv_ind].memory_busy;
  return code;
}

rsmi_status_t rsmi_dev_memory_total_get(uint32_t dv_ind, rsmi_memory_type_t mem_type, uint64_t* total) {
  rsmi_status_t code = check(dv_ind, "memory_total", total);
  if (code != RSMI_STATUS_SUCCESS) return code;
  if (mem_type != RSMI_MEM_TYPE_VRAM) return RSMI_STATUS_NOT_SUPPORTED; /* only VRAM is described */
  *total = gpus[dv_ind].memory_total;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_memory_usage_get(uint32_t dv_ind, rsmi_memory_type_t mem_type, uint64_t* used) {
  rsmi_status_t code = check(dv_ind, "memory_usage", used);
  if (code != RSMI_STATUS_SUCCESS) return code;
  if (mem_type != RSMI_MEM_TYPE_VRAM) return RSMI_STATUS_NOT_SUPPORTED;
  *used = gpus[dv_ind].memory_used;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_power_ave_get(uint32_t dv_ind, uint32_t sensor_ind, uint64_t* power) {
  rsmi_status_t code = check(dv_ind, "power_ave", power);
  if (code != RSMI_STATUS_SUCCESS) return code;
  if (sensor_ind != 0) return RSMI_STATUS_NOT_SUPPORTED;
  *power = gpus[dv_ind].power_uw;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_power_get(uint32_t dv_ind, uint64_t* power, RSMI_POWER_TYPE* type) {
  rsmi_status_t code = check(dv_ind, "power", power);
  if (code != RSMI_STATUS_SUCCESS) return code;
  if (type == NULL) return RSMI_STATUS_INVALID_ARGS;
  *power = gpus[dv_ind].power_uw;
  *type = RSMI_CURRENT_POWER;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_compute_process_info_get(rsmi_process_info_t* procs, uint32_t* num_items) {
  if (num_items == NULL) return RSMI_STATUS_INVALID_ARGS;
  rsmi_status_t code = failure(-1, -1, "processes");
  if (code != RSMI_STATUS_SUCCESS) return code;
  if (procs == NULL) {
    *num_items = process_count;
    return RSMI_STATUS_SUCCESS;
  }
  for (uint32_t i = 0; i < process_count && i < *num_items; ++i) {
    memset(&procs[i], 0, sizeof procs[i]);
    procs[i].process_id = processes[i].pid;
    procs[i].pasid = 0x8000 + i;
  }
  if (*num_items < process_count) return RSMI_STATUS_INSUFFICIENT_SIZE; /* *num_items stays the room */
  *num_items = process_count;
  return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_compute_process_gpus_get(uint32_t pid, uint32_t* dv_indices, uint32_t* num_devices) {
  if (num_devices == NULL) return RSMI_STATUS_INVALID_ARGS;
  rsmi_status_t code = failure(-1, (long)pid, "process_gpus");
  if (code != RSMI_STATUS_SUCCESS) return code;
  const struct process* found = NULL;
  for (uint32_t i = 0; i < process_count && found == NULL; ++i)
    if (processes[i].pid == pid && !processes[i].ended) found = &processes[i];
  if (found == NULL) return RSMI_STATUS_NOT_FOUND; /* ESRCH, as for a process that ended */
  if (dv_indices == NULL) {
    *num_devices = found->gpu_count;
    return RSMI_STATUS_SUCCESS;
  }
  uint32_t written = 0;
  for (; written < found->gpu_count && written < *num_devices; ++written) dv_indices[written] = found->gpus[written];
  if (written < found->gpu_count) return RSMI_STATUS_INSUFFICIENT_SIZE;
  *num_devices = written;
  return RSMI_STATUS_SUCCESS;
}
