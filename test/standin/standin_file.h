/* What the stand-in GPU libraries share: their file format's words and the
 * check that the file changed since it was last read. */
#ifndef PETRICORE_STANDIN_FILE_H
#define PETRICORE_STANDIN_FILE_H

#include <sys/stat.h>

/* The next `key=value` word of *line, NUL-terminated in place (a value in
 * double quotes may hold spaces; a word without '=' is a key with an empty
 * value); 0 at the end of the line or at a '#'. */
int standin_next_word(char** line, char** key, char** value);

/* Whether `path` changed since *last (inode, size, mtime), *last then updated.
 * A path that cannot be stat()ed is unchanged when `missing_is_empty` is 0
 * (the caller keeps what it read), else it is as an empty stat. */
int standin_changed(const char* path, struct stat* last, int missing_is_empty);

#endif
