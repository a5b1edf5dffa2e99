/* One synthetic Slurm job for the collector benchmark (see README.md).
 *
 *   bench_worker CGROUP-ROOT ROOT-NAME JOB-ID NPROCS FILE-DIR READY-PATH
 *
 * Creates the job's cgroups in the v1 Slurm layout
 *   {cpuacct,memory}/ROOT-NAME/uid_0/job_J/step_batch/task_0
 *   {cpuset,freezer}/ROOT-NAME/uid_0/job_J/step_batch
 * (cpuset.cpus and cpuset.mems copied from the parent at every level, a
 * 1 GiB job memory limit), moves itself into them, and becomes a process
 * group of NPROCS processes: itself plus NPROCS-1 forked children. Every
 * process opens 8 regular files of its own under FILE-DIR, starts 3 extra
 * threads (4 in all) and sleeps. When all are set up, one line "<pid>\n" is
 * appended to READY-PATH (a file or a FIFO). The Slurm environment
 * (SLURM_JOB_ID, ...) is whatever the caller exec'd it with.
 *
 * Stop a job with kill(-leader_pid, SIGKILL), then rmdir its cgroups.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

enum { kFilesPerProcess = 8, kThreadsPerProcess = 4 };

static void die(const char *what) {
  fprintf(stderr, "bench_worker: %s: %s\n", what, strerror(errno));
  exit(2);
}

static void write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) die(path);
  ssize_t n = (ssize_t)strlen(text);
  if (write(fd, text, (size_t)n) != n) die(path);
  close(fd);
}

static void read_file(const char *path, char *buf, size_t size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) die(path);
  ssize_t n = read(fd, buf, size - 1);
  if (n < 0) die(path);
  buf[n] = '\0';
  close(fd);
}

static void make_dir(const char *path) {
  if (mkdir(path, 0755) != 0 && errno != EEXIST) die(path);
}

/* mkdir -p of ctrl/root/uid_0/job_J/step_batch[/task_0]; cpuset levels get
   their parent's cpus and mems, written top-down by every job so concurrent
   jobs never see an unset parent. */
static void make_job_cgroup(const char *cgroot, const char *ctrl, const char *root, const char *job, int task_level,
                            char *leaf, size_t leaf_size) {
  const char *levels[5];
  char job_name[64];
  snprintf(job_name, sizeof job_name, "job_%s", job);
  levels[0] = root;
  levels[1] = "uid_0";
  levels[2] = job_name;
  levels[3] = "step_batch";
  levels[4] = "task_0";
  int depth = task_level ? 5 : 4;
  char path[4096], parent[4096];
  snprintf(path, sizeof path, "%s/%s", cgroot, ctrl);
  int is_cpuset = strcmp(ctrl, "cpuset") == 0;
  for (int i = 0; i < depth; ++i) {
    snprintf(parent, sizeof parent, "%s", path);
    size_t used = strlen(path);
    snprintf(path + used, sizeof path - used, "/%s", levels[i]);
    make_dir(path);
    if (is_cpuset) {
      char value[256], file[4200];
      const char *names[2] = {"cpuset.cpus", "cpuset.mems"};
      for (int k = 0; k < 2; ++k) {
        snprintf(file, sizeof file, "%s/%s", parent, names[k]);
        read_file(file, value, sizeof value);
        snprintf(file, sizeof file, "%s/%s", path, names[k]);
        write_file(file, value);
      }
    }
    if (i == 2 && strcmp(ctrl, "memory") == 0) {
      char file[4200];
      snprintf(file, sizeof file, "%s/memory.limit_in_bytes", path);
      write_file(file, "1073741824");
    }
  }
  snprintf(leaf, leaf_size, "%s", path);
}

/* stdio on /dev/null, so a log file is not one more open regular file. */
static void quiet_stdio(void) {
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null < 0) die("/dev/null");
  for (int fd = 0; fd < 3; ++fd) dup2(null, fd);
  close(null);
}

static void *sleeper(void *arg) {
  (void)arg;
  for (;;) pause();
  return NULL;
}

/* The part every process of the job does: 8 files, 3 more threads. */
static void become_job_process(const char *file_dir, const char *job, int index) {
  for (int i = 0; i < kFilesPerProcess; ++i) {
    char path[4096];
    snprintf(path, sizeof path, "%s/j%s_p%02d_f%d", file_dir, job, index, i);
    if (open(path, O_RDWR | O_CREAT, 0644) < 0) die(path);
  }
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  for (int i = 1; i < kThreadsPerProcess; ++i) {
    pthread_t t;
    if (pthread_create(&t, &attr, sleeper, NULL) != 0) die("pthread_create");
  }
  pthread_attr_destroy(&attr);
  quiet_stdio();
}

int main(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: bench_worker CGROUP-ROOT ROOT-NAME JOB-ID NPROCS FILE-DIR READY-PATH\n");
    return 2;
  }
  const char *cgroot = argv[1], *root = argv[2], *job = argv[3], *file_dir = argv[5], *ready_path = argv[6];
  int nprocs = atoi(argv[4]);
  if (nprocs < 1) nprocs = 1;
  if (setpgid(0, 0) != 0) die("setpgid");

  static const struct { const char *ctrl; int task_level; } controllers[] = {
      {"cpuset", 0}, {"cpuacct", 1}, {"memory", 1}, {"freezer", 0}};
  char pid_text[32];
  snprintf(pid_text, sizeof pid_text, "%d\n", (int)getpid());
  for (size_t i = 0; i < sizeof controllers / sizeof controllers[0]; ++i) {
    char leaf[4096], procs[4200];
    make_job_cgroup(cgroot, controllers[i].ctrl, root, job, controllers[i].task_level, leaf, sizeof leaf);
    snprintf(procs, sizeof procs, "%s/cgroup.procs", leaf);
    write_file(procs, pid_text);
  }

  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) die("pipe");
  for (int i = 1; i < nprocs; ++i) {
    pid_t pid = fork();
    if (pid < 0) die("fork");
    if (pid == 0) {
      close(ready[0]);
      become_job_process(file_dir, job, i);
      if (write(ready[1], "r", 1) != 1) die("ready pipe");
      close(ready[1]);
      for (;;) pause();
    }
  }
  close(ready[1]);
  for (int got = 1; got < nprocs;) {
    char buf[64];
    ssize_t n = read(ready[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) die("a job process failed to start");
    got += (int)n;
  }
  close(ready[0]);
  become_job_process(file_dir, job, 0);

  int fd = open(ready_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) die(ready_path);
  ssize_t n = (ssize_t)strlen(pid_text);
  if (write(fd, pid_text, (size_t)n) != n) die(ready_path);
  close(fd);
  for (;;) pause();
}
