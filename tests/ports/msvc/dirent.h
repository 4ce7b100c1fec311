/* opendir/readdir/closedir on FindFirstFile, for the unit tests' helpers in
 * the MSVC-ABI build (check_msvc.sh): MSVC's runtime has no <dirent.h> (and
 * Wine's is <direct.h>). Never part of the library. */
#ifndef LUDUS_MSVC_DIRENT_H
#define LUDUS_MSVC_DIRENT_H
#include <direct.h> /* mkdir, rmdir: where the tests look for them, as with mingw-w64 */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

struct dirent {
    char d_name[MAX_PATH];
};
typedef struct {
    HANDLE find;
    WIN32_FIND_DATAA data;
    int first; /* data holds an entry not returned yet */
    struct dirent entry;
} DIR;

static inline DIR *opendir(const char *path) {
    char pattern[MAX_PATH + 3];
    DIR *d;
    if (snprintf(pattern, sizeof pattern, "%s\\*", path) >= (int)sizeof pattern) return NULL;
    d = (DIR *)calloc(1, sizeof *d);
    if (!d) return NULL;
    d->find = FindFirstFileA(pattern, &d->data);
    if (d->find == INVALID_HANDLE_VALUE) {
        free(d);
        return NULL;
    }
    d->first = 1;
    return d;
}
static inline struct dirent *readdir(DIR *d) {
    if (!d->first && !FindNextFileA(d->find, &d->data)) return NULL;
    d->first = 0;
    snprintf(d->entry.d_name, sizeof d->entry.d_name, "%s", d->data.cFileName);
    return &d->entry;
}
static inline int closedir(DIR *d) {
    FindClose(d->find);
    free(d);
    return 0;
}
#endif
