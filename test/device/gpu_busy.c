/* Keeps one NVIDIA GPU busy for a while, with nothing but the driver: the
 * CUDA driver API (libcuda.so.1, part of every NVIDIA driver) is dlopen()ed
 * and a small hand-written PTX kernel, JIT-compiled by the driver, spins on
 * every multiprocessor. Also holds a device allocation, so the GPU's memory
 * in use goes up by a known amount. For test/device/gpu_check.sh, which needs
 * no CUDA toolkit on the GPU machine.
 *
 *   gpu_busy ORDINAL SECONDS MIB     exit 0 when it ran; 3 when the driver or
 *                                    the GPU could not be used (the reason
 *                                    on stderr)
 *
 * Prints "ready" on stdout once the kernel runs. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int CUresult; /* CUDA_SUCCESS = 0 */
typedef int CUdevice;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef unsigned long long CUdeviceptr;

static const char kPtx[] =
    ".version 6.0\n"
    ".target sm_50\n"
    ".address_size 64\n"
    ".visible .entry spin(.param .u64 out, .param .u32 iterations)\n"
    "{\n"
    "  .reg .u32 %r<4>;\n"
    "  .reg .u64 %rd<3>;\n"
    "  .reg .f32 %f<2>;\n"
    "  .reg .pred %p;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  ld.param.u32 %r1, [iterations];\n"
    "  mov.u32 %r2, 0;\n"
    "  mov.f32 %f1, 0f3F800000;\n"
    "LOOP:\n"
    "  fma.rn.f32 %f1, %f1, 0f3F7FFFFF, 0f3C23D70A;\n"
    "  add.u32 %r2, %r2, 1;\n"
    "  setp.lt.u32 %p, %r2, %r1;\n"
    "  @%p bra LOOP;\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  st.global.f32 [%rd2], %f1;\n"
    "  ret;\n"
    "}\n";

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

#define NEED(name)                                                  \
  name = dlsym(cuda, #name);                                        \
  if (name == NULL) {                                               \
    fprintf(stderr, "gpu_busy: libcuda.so.1 has no %s\n", #name); \
    return 3;                                                       \
  }
#define CALL(what)                                                      \
  if ((rc = (what)) != 0) {                                             \
    fprintf(stderr, "gpu_busy: %s failed with CUDA error %d\n", #what, rc); \
    return 3;                                                           \
  }

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: gpu_busy ORDINAL SECONDS MIB\n");
    return 2;
  }
  int ordinal = atoi(argv[1]);
  double seconds = atof(argv[2]);
  size_t mib = (size_t)strtoul(argv[3], NULL, 10);
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW);
  if (cuda == NULL) {
    fprintf(stderr, "gpu_busy: %s\n", dlerror());
    return 3;
  }
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuCtxCreate_v2)(CUcontext*, unsigned, CUdevice);
  CUresult (*cuModuleLoadData)(CUmodule*, const void*);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuMemAlloc_v2)(CUdeviceptr*, size_t);
  CUresult (*cuMemsetD8_v2)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*,
                             void**, void**);
  CUresult (*cuCtxSynchronize)(void);
  NEED(cuInit)
  NEED(cuDeviceGet)
  NEED(cuCtxCreate_v2)
  NEED(cuModuleLoadData)
  NEED(cuModuleGetFunction)
  NEED(cuMemAlloc_v2)
  NEED(cuMemsetD8_v2)
  NEED(cuLaunchKernel)
  NEED(cuCtxSynchronize)
  CUresult rc;
  CUdevice device;
  CUcontext context;
  CUmodule module;
  CUfunction spin;
  CUdeviceptr held, out;
  CALL(cuInit(0))
  CALL(cuDeviceGet(&device, ordinal))
  CALL(cuCtxCreate_v2(&context, 0, device))
  CALL(cuModuleLoadData(&module, kPtx))
  CALL(cuModuleGetFunction(&spin, module, "spin"))
  CALL(cuMemAlloc_v2(&held, mib * 1024 * 1024))
  CALL(cuMemsetD8_v2(held, 1, mib * 1024 * 1024)) /* touched, so it is really in use */
  CALL(cuMemAlloc_v2(&out, 4))
  unsigned iterations = 2000000;
  void* args[] = {&out, &iterations};
  double end = now() + seconds;
  int said = 0;
  while (now() < end) {
    /* Enough blocks for every multiprocessor of any current GPU. */
    CALL(cuLaunchKernel(spin, 4096, 1, 1, 256, 1, 1, 0, NULL, args, NULL))
    CALL(cuCtxSynchronize())
    if (!said) {
      printf("ready\n");
      fflush(stdout);
      said = 1;
    }
  }
  return 0;
}
