/* A stand-in libnvidia-ml.so.1 for the tests: the NVML calls petricore makes
 * (src/collect/nvml_api.h, the same ABI), answered from a text file that
 * describes the devices, their readings, the processes on them and the errors
 * to return. The file is named by $PETRICORE_NVML_STANDIN and read again
 * whenever it changed (nvmlInit_v2 and nvmlDeviceGetCount_v2 look), so a test
 * moves time on by rewriting it. One record per line, `key=value` words, a
 * value in double quotes may hold spaces, `#` starts a comment:
 *
 *   init code=9                          nvmlInit_v2 fails (9: driver not loaded)
 *   gpu minor=0 uuid=GPU-1 name="NVIDIA A100-SXM4-40GB" memory_total_mib=40960 mig=0
 *                                        a device, indexed in file order
 *   sample gpu=0 util=95 memory_util=40 memory_used_mib=2048 power_mw=250000
 *   process gpu=0 pid=1234 used_mib=2000
 *   fail gpu=0 call=utilization code=15  that call on that device fails
 *                                        (calls: handle minor uuid name memory
 *                                        utilization power processes mig)
 *   fail call=count code=999             nvmlDeviceGetCount_v2 fails
 *   instance gpu=0 gi=1 uuid=MIG-1 name="NVIDIA A100-SXM4-40GB MIG 3g.20gb" memory_total_mib=19968 memory_used_mib=512
 *                                        a MIG instance of a device with mig=1
 *   process gpu=0 gi=1 pid=1234          a process on that instance
 *
 * Files in the directory `<file>.d/` are read after the file, in name order,
 * as if appended to it (a sample there overrides the file's): a job of the
 * end-to-end tests puts its own processes and readings there as it runs.
 * The file and the directory are read again when either changed (its
 * mtime: replace a drop-in by rename, as the tests do).
 *
 * A handle of a device that a later version of the file no longer has answers
 * NVML_ERROR_GPU_IS_LOST, as a GPU that fell off the bus does; a MIG instance
 * that is gone, NVML_ERROR_NOT_FOUND. Not thread-safe, as petricore's one
 * sampling thread needs. */
#include "collect/nvml_api.h"

#include "standin_file.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_GPUS 64
#define MAX_PROCESSES 256
#define MAX_FAILS 64
#define MAX_INSTANCES 64
#define MAX_DROPINS 64

struct nvmlDevice_st {
  int present;
  unsigned minor;
  char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
  char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
  unsigned long long memory_total;
  unsigned mig;
  unsigned util, memory_util;
  unsigned long long memory_used;
  unsigned power_mw;
  /* A MIG instance: its GPU (index) and GPU instance id. */
  int is_instance;
  unsigned parent, gi;
};

struct process {
  unsigned gpu;
  unsigned gi; /* 0xFFFFFFFF: not on a MIG instance */
  unsigned pid;
  unsigned long long used;
};

struct fail {
  int gpu; /* -1: not a device call */
  char call[16];
  nvmlReturn_t code;
};

static struct nvmlDevice_st gpus[MAX_GPUS];
static unsigned gpu_count;
static struct nvmlDevice_st instances[MAX_INSTANCES];
static unsigned instance_count;
static struct process processes[MAX_PROCESSES];
static unsigned process_count;
static struct fail fails[MAX_FAILS];
static unsigned fail_count;
static nvmlReturn_t init_code;
static int initialised;
static struct stat loaded, loaded_dir; /* the file and its drop-in directory as last read */

static const unsigned long long kMiB = 1024ULL * 1024ULL;

static void copy_text(char* to, size_t room, const char* from) {
  snprintf(to, room, "%s", from);
}

static void load_file(const char* path) {
  FILE* file = fopen(path, "r");
  if (file == NULL) return;
  char buffer[1024];
  while (fgets(buffer, sizeof buffer, file) != NULL) {
    char* line = buffer;
    char *record, *key, *value;
    if (!standin_next_word(&line, &record, &value)) continue;
    if (strcmp(record, "gpu") == 0 && gpu_count < MAX_GPUS) {
      struct nvmlDevice_st* gpu = &gpus[gpu_count++];
      memset(gpu, 0, sizeof *gpu);
      gpu->present = 1;
      while (standin_next_word(&line, &key, &value)) {
        if (strcmp(key, "minor") == 0) gpu->minor = (unsigned)strtoul(value, NULL, 10);
        if (strcmp(key, "uuid") == 0) copy_text(gpu->uuid, sizeof gpu->uuid, value);
        if (strcmp(key, "name") == 0) copy_text(gpu->name, sizeof gpu->name, value);
        if (strcmp(key, "memory_total_mib") == 0) gpu->memory_total = strtoull(value, NULL, 10) * kMiB;
        if (strcmp(key, "mig") == 0) gpu->mig = (unsigned)strtoul(value, NULL, 10);
      }
    } else if (strcmp(record, "sample") == 0) {
      struct nvmlDevice_st sample;
      int gpu = -1;
      memset(&sample, 0, sizeof sample);
      while (standin_next_word(&line, &key, &value)) {
        if (strcmp(key, "gpu") == 0) gpu = atoi(value);
        if (strcmp(key, "util") == 0) sample.util = (unsigned)strtoul(value, NULL, 10);
        if (strcmp(key, "memory_util") == 0) sample.memory_util = (unsigned)strtoul(value, NULL, 10);
        if (strcmp(key, "memory_used_mib") == 0) sample.memory_used = strtoull(value, NULL, 10) * kMiB;
        if (strcmp(key, "power_mw") == 0) sample.power_mw = (unsigned)strtoul(value, NULL, 10);
      }
      if (gpu >= 0 && (unsigned)gpu < gpu_count) {
        gpus[gpu].util = sample.util;
        gpus[gpu].memory_util = sample.memory_util;
        gpus[gpu].memory_used = sample.memory_used;
        gpus[gpu].power_mw = sample.power_mw;
      }
    } else if (strcmp(record, "instance") == 0 && instance_count < MAX_INSTANCES) {
      struct nvmlDevice_st* mig = &instances[instance_count++];
      memset(mig, 0, sizeof *mig);
      mig->present = 1;
      mig->is_instance = 1;
      while (standin_next_word(&line, &key, &value)) {
        if (strcmp(key, "gpu") == 0) mig->parent = (unsigned)strtoul(value, NULL, 10);
        if (strcmp(key, "gi") == 0) mig->gi = (unsigned)strtoul(value, NULL, 10);
        if (strcmp(key, "uuid") == 0) copy_text(mig->uuid, sizeof mig->uuid, value);
        if (strcmp(key, "name") == 0) copy_text(mig->name, sizeof mig->name, value);
        if (strcmp(key, "memory_total_mib") == 0) mig->memory_total = strtoull(value, NULL, 10) * kMiB;
        if (strcmp(key, "memory_used_mib") == 0) mig->memory_used = strtoull(value, NULL, 10) * kMiB;
      }
    } else if (strcmp(record, "process") == 0 && process_count < MAX_PROCESSES) {
      struct process* p = &processes[process_count++];
      memset(p, 0, sizeof *p);
      p->gi = PETRICORE_NVML_NO_INSTANCE;
      while (standin_next_word(&line, &key, &value)) {
        if (strcmp(key, "gpu") == 0) p->gpu = (unsigned)strtoul(value, NULL, 10);
        if (strcmp(key, "gi") == 0) p->gi = (unsigned)strtoul(value, NULL, 10);
        if (strcmp(key, "pid") == 0) p->pid = (unsigned)strtoul(value, NULL, 10);
        if (strcmp(key, "used_mib") == 0) p->used = strtoull(value, NULL, 10) * kMiB;
      }
    } else if (strcmp(record, "fail") == 0 && fail_count < MAX_FAILS) {
      struct fail* f = &fails[fail_count++];
      f->gpu = -1;
      f->call[0] = '\0';
      f->code = NVML_ERROR_UNKNOWN;
      while (standin_next_word(&line, &key, &value)) {
        if (strcmp(key, "gpu") == 0) f->gpu = atoi(value);
        if (strcmp(key, "call") == 0) copy_text(f->call, sizeof f->call, value);
        if (strcmp(key, "code") == 0) f->code = (nvmlReturn_t)atoi(value);
      }
    } else if (strcmp(record, "init") == 0) {
      while (standin_next_word(&line, &key, &value))
        if (strcmp(key, "code") == 0) init_code = (nvmlReturn_t)atoi(value);
    }
  }
  fclose(file);
}

static int by_name(const void* a, const void* b) {
  return strcmp((const char*)a, (const char*)b);
}

/* The file, then its drop-ins in name order. */
static void load(const char* path) {
  for (unsigned i = 0; i < MAX_GPUS; ++i) gpus[i].present = 0;
  for (unsigned i = 0; i < MAX_INSTANCES; ++i) instances[i].present = 0;
  gpu_count = instance_count = process_count = fail_count = 0;
  init_code = NVML_SUCCESS;
  load_file(path);
  char dir_path[4096];
  snprintf(dir_path, sizeof dir_path, "%s.d", path);
  DIR* dir = opendir(dir_path);
  if (dir == NULL) return;
  static char names[MAX_DROPINS][256];
  unsigned count = 0;
  struct dirent* entry;
  while ((entry = readdir(dir)) != NULL && count < MAX_DROPINS)
    if (entry->d_name[0] != '.') copy_text(names[count++], sizeof names[0], entry->d_name);
  closedir(dir);
  qsort(names, count, sizeof names[0], by_name);
  for (unsigned i = 0; i < count; ++i) {
    char file_path[4096 + 256 + 2];
    snprintf(file_path, sizeof file_path, "%.4095s/%.255s", dir_path, names[i]);
    load_file(file_path);
  }
}

/* Reads the file and its drop-ins again when either changed since they were
 * last read. */
static void refresh(void) {
  const char* path = getenv("PETRICORE_NVML_STANDIN");
  if (path == NULL) return;
  char dir_path[4096];
  snprintf(dir_path, sizeof dir_path, "%s.d", path);
  struct stat file;
  if (stat(path, &file) != 0) return; /* keeps what it had */
  int file_changed = standin_changed(path, &loaded, 0);
  int dir_changed = standin_changed(dir_path, &loaded_dir, 1);
  if (file_changed || dir_changed) load(path);
}

static nvmlReturn_t failure(int gpu, const char* call) {
  for (unsigned i = 0; i < fail_count; ++i)
    if (fails[i].gpu == gpu && strcmp(fails[i].call, call) == 0) return fails[i].code;
  return NVML_SUCCESS;
}

/* NVML_SUCCESS when `device` is a device of the file now and `call` is not
 * set to fail on it. */
static nvmlReturn_t check(nvmlDevice_t device, const char* call) {
  if (!initialised) return NVML_ERROR_UNINITIALIZED;
  if (device >= instances && device < instances + MAX_INSTANCES) {
    if (!device->present || (unsigned)(device - instances) >= instance_count) return NVML_ERROR_NOT_FOUND;
    if (device->parent >= gpu_count) return NVML_ERROR_GPU_IS_LOST;
    return NVML_SUCCESS;
  }
  if (device < gpus || device >= gpus + MAX_GPUS) return NVML_ERROR_INVALID_ARGUMENT;
  if (!device->present || (unsigned)(device - gpus) >= gpu_count) return NVML_ERROR_GPU_IS_LOST;
  return failure((int)(device - gpus), call);
}

nvmlReturn_t nvmlInit_v2(void) {
  memset(&loaded, 0, sizeof loaded);
  refresh();
  if (getenv("PETRICORE_NVML_STANDIN") == NULL) return NVML_ERROR_DRIVER_NOT_LOADED;
  if (init_code != NVML_SUCCESS) return init_code;
  initialised = 1;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
  if (!initialised) return NVML_ERROR_UNINITIALIZED;
  initialised = 0;
  return NVML_SUCCESS;
}

const char* nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case NVML_SUCCESS:
      return "Success";
    case NVML_ERROR_UNINITIALIZED:
      return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT:
      return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED:
      return "Not Supported";
    case NVML_ERROR_NOT_FOUND:
      return "Not Found";
    case NVML_ERROR_NO_PERMISSION:
      return "Insufficient Permissions";
    case NVML_ERROR_INSUFFICIENT_SIZE:
      return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED:
      return "Driver Not Loaded";
    case NVML_ERROR_GPU_IS_LOST:
      return "GPU is lost";
    case NVML_ERROR_NO_DATA:
      return "No data";
    default:
      return "Unknown Error";
  }
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* deviceCount) {
  if (!initialised) return NVML_ERROR_UNINITIALIZED;
  if (deviceCount == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  refresh();
  nvmlReturn_t code = failure(-1, "count");
  if (code != NVML_SUCCESS) return code;
  *deviceCount = gpu_count;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  if (!initialised) return NVML_ERROR_UNINITIALIZED;
  if (device == NULL || index >= gpu_count) return NVML_ERROR_INVALID_ARGUMENT;
  nvmlReturn_t code = failure((int)index, "handle");
  if (code != NVML_SUCCESS) return code;
  *device = &gpus[index];
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int* minorNumber) {
  nvmlReturn_t code = check(device, "minor");
  if (code == NVML_SUCCESS) *minorNumber = device->minor;
  return code;
}

static nvmlReturn_t text(nvmlDevice_t device, const char* call, const char* value, char* out, unsigned length) {
  nvmlReturn_t code = check(device, call);
  if (code != NVML_SUCCESS) return code;
  if (out == NULL || strlen(value) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  memcpy(out, value, strlen(value) + 1);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
  return text(device, "uuid", device ? device->uuid : "", uuid, length);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  return text(device, "name", device ? device->name : "", name, length);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  nvmlReturn_t code = check(device, "memory");
  if (code != NVML_SUCCESS) return code;
  memory->total = device->memory_total;
  memory->used = device->memory_used;
  memory->free = device->memory_total > device->memory_used ? device->memory_total - device->memory_used : 0;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t* utilization) {
  nvmlReturn_t code = check(device, "utilization");
  if (code != NVML_SUCCESS) return code;
  /* as the driver with MIG on, and for an instance */
  if (device->mig == NVML_DEVICE_MIG_ENABLE || device->is_instance) return NVML_ERROR_NOT_SUPPORTED;
  utilization->gpu = device->util;
  utilization->memory = device->memory_util;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* power) {
  nvmlReturn_t code = check(device, "power");
  if (code == NVML_SUCCESS && device->is_instance) return NVML_ERROR_NOT_SUPPORTED;
  if (code == NVML_SUCCESS) *power = device->power_mw;
  return code;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int* infoCount,
                                                     nvmlProcessInfo_t* infos) {
  nvmlReturn_t code = check(device, "processes");
  if (code != NVML_SUCCESS) return code;
  if (infoCount == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  /* The whole GPU's: every process on it, its instances' included (as
   * NVML answers root); an instance's: those on it. */
  unsigned gpu = device->is_instance ? device->parent : (unsigned)(device - gpus), found = 0;
  for (unsigned i = 0; i < process_count; ++i) {
    if (processes[i].gpu != gpu || (device->is_instance && processes[i].gi != device->gi)) continue;
    if (infos != NULL && found < *infoCount) {
      infos[found].pid = processes[i].pid;
      infos[found].usedGpuMemory = processes[i].used;
      infos[found].gpuInstanceId = processes[i].gi;
      infos[found].computeInstanceId = processes[i].gi == PETRICORE_NVML_NO_INSTANCE ? PETRICORE_NVML_NO_INSTANCE : 0;
    }
    ++found;
  }
  code = found > *infoCount ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
  *infoCount = found;
  return code;
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int* currentMode, unsigned int* pendingMode) {
  nvmlReturn_t code = check(device, "mig");
  if (code != NVML_SUCCESS) return code;
  *currentMode = *pendingMode = device->mig;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int* count) {
  nvmlReturn_t code = check(device, "mig");
  if (code != NVML_SUCCESS) return code;
  if (device->is_instance) return NVML_ERROR_INVALID_ARGUMENT;
  *count = device->mig == NVML_DEVICE_MIG_ENABLE ? 7 : 0;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t* migDevice) {
  nvmlReturn_t code = check(device, "mig");
  if (code != NVML_SUCCESS) return code;
  if (device->is_instance || migDevice == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned gpu = (unsigned)(device - gpus), seen = 0;
  for (unsigned i = 0; i < instance_count; ++i) {
    if (instances[i].parent != gpu) continue;
    if (seen++ == index) {
      *migDevice = &instances[i];
      return NVML_SUCCESS;
    }
  }
  return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int* id) {
  nvmlReturn_t code = check(device, "mig");
  if (code != NVML_SUCCESS) return code;
  if (!device->is_instance) return NVML_ERROR_NOT_SUPPORTED;
  *id = device->gi;
  return NVML_SUCCESS;
}
