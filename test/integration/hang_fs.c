/* A FUSE file system that hangs on demand, the way a dead NFS or Lustre
 * server does, for test/integration/hang_test.sh. It serves:
 *   /data  a 1 TiB file of zeros (every new offset a reader asks for is a
 *          request to this server: nothing of it is in the page cache)
 *   /env   one page: "HANG_FS=1" and zeros
 * SIGUSR1 makes every request (lookup, getattr, open, readdir, read, flush) wait,
 * SIGUSR2 answers them again. SIGTERM/SIGINT unmount and exit (libfuse's
 * handlers); a waiting request is then answered with EIO.
 *
 *   hang_fs MOUNTPOINT      (stays in the foreground) */
#define FUSE_USE_VERSION 31
#include <fuse.h>
#include <fuse_lowlevel.h>

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static atomic_int hung;

static void on_signal(int sig) { atomic_store(&hung, sig == SIGUSR1); }

/* Waits while hung; nonzero when the file system is shutting down. */
static int wait_while_hung(void) {
  while (atomic_load(&hung)) {
    struct fuse_context *ctx = fuse_get_context();
    if (ctx && ctx->fuse && fuse_session_exited(fuse_get_session(ctx->fuse))) return -EIO;
    usleep(20 * 1000);
  }
  return 0;
}

static const off_t kDataSize = (off_t)1 << 40;
static const size_t kEnvSize = 4096;
static const char kEnv[] = "HANG_FS=1";

static void *hang_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
  (void)conn;
  /* Nothing cached by the kernel: every look at a file is a request. */
  cfg->entry_timeout = 0;
  cfg->attr_timeout = 0;
  cfg->negative_timeout = 0;
  cfg->kernel_cache = 0;
  return NULL;
}

static int hang_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
  (void)fi;
  int err = wait_while_hung();
  if (err) return err;
  memset(st, 0, sizeof *st);
  if (strcmp(path, "/") == 0) {
    st->st_mode = S_IFDIR | 0755;
    st->st_nlink = 2;
  } else if (strcmp(path, "/data") == 0) {
    st->st_mode = S_IFREG | 0644;
    st->st_nlink = 1;
    st->st_size = kDataSize;
  } else if (strcmp(path, "/env") == 0) {
    st->st_mode = S_IFREG | 0644;
    st->st_nlink = 1;
    st->st_size = (off_t)kEnvSize;
  } else {
    return -ENOENT;
  }
  return 0;
}

static int hang_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t offset, struct fuse_file_info *fi,
                        enum fuse_readdir_flags flags) {
  (void)offset;
  (void)fi;
  (void)flags;
  int err = wait_while_hung();
  if (err) return err;
  if (strcmp(path, "/") != 0) return -ENOENT;
  fill(buf, ".", NULL, 0, 0);
  fill(buf, "..", NULL, 0, 0);
  fill(buf, "data", NULL, 0, 0);
  fill(buf, "env", NULL, 0, 0);
  return 0;
}

static int hang_open(const char *path, struct fuse_file_info *fi) {
  (void)fi;
  int err = wait_while_hung();
  if (err) return err;
  if (strcmp(path, "/data") != 0 && strcmp(path, "/env") != 0) return -ENOENT;
  return 0;
}

static int hang_read(const char *path, char *buf, size_t size, off_t offset, struct fuse_file_info *fi) {
  (void)fi;
  int err = wait_while_hung();
  if (err) return err;
  off_t file_size = strcmp(path, "/data") == 0 ? kDataSize : (off_t)kEnvSize;
  if (offset >= file_size) return 0;
  if ((off_t)size > file_size - offset) size = (size_t)(file_size - offset);
  memset(buf, 0, size);
  if (strcmp(path, "/env") == 0 && offset < (off_t)sizeof kEnv)
    memcpy(buf, kEnv + offset, sizeof kEnv - (size_t)offset < size ? sizeof kEnv - (size_t)offset : size);
  return (int)size;
}

/* A close (also the close-on-exec of an execve) sends a flush. */
static int hang_flush(const char *path, struct fuse_file_info *fi) {
  (void)path;
  (void)fi;
  return wait_while_hung();
}

static const struct fuse_operations ops = {
    .init = hang_init,
    .getattr = hang_getattr,
    .readdir = hang_readdir,
    .open = hang_open,
    .read = hang_read,
    .flush = hang_flush,
};

int main(int argc, char **argv) {
  if (argc != 2) {
    static const char usage[] = "usage: hang_fs MOUNTPOINT\n";
    (void)!write(2, usage, sizeof usage - 1);
    return 2;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, NULL);
  sigaction(SIGUSR2, &sa, NULL);
  char *args[] = {argv[0], "-f", "-o", "fsname=hang_fs,noatime", argv[1], NULL};
  return fuse_main(5, args, &ops, NULL);
}
