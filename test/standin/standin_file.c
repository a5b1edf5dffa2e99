#include "standin_file.h"

#include <string.h>

int standin_next_word(char** line, char** key, char** value) {
  char* p = *line;
  while (*p == ' ' || *p == '\t') ++p;
  if (*p == '\0' || *p == '#' || *p == '\n') return 0;
  *key = p;
  while (*p && *p != '=' && *p != ' ' && *p != '\t' && *p != '\n') ++p;
  if (*p != '=') {
    *value = p;
    if (*p) *p++ = '\0';
    *line = p;
    return 1;
  }
  *p++ = '\0';
  if (*p == '"') {
    *value = ++p;
    while (*p && *p != '"') ++p;
  } else {
    *value = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n') ++p;
  }
  if (*p) *p++ = '\0';
  *line = p;
  return 1;
}

int standin_changed(const char* path, struct stat* last, int missing_is_empty) {
  struct stat now;
  if (stat(path, &now) != 0) {
    if (!missing_is_empty) return 0;
    memset(&now, 0, sizeof now);
  }
  if (now.st_ino == last->st_ino && now.st_size == last->st_size && now.st_mtim.tv_sec == last->st_mtim.tv_sec &&
      now.st_mtim.tv_nsec == last->st_mtim.tv_nsec)
    return 0;
  *last = now;
  return 1;
}
