/* file_map.h on Windows: CreateFile, CreateFileMapping and MapViewOfFile
 * (a view of a file's pages is the file's: the system keeps what was
 * stored when the process is killed); ReadProcessMemory on the process
 * itself reads memory that may not be mapped without an exception. */
#include "file_map.h"

#include <windows.h>

#include <errno.h>

static int errno_of(DWORD e) {
    switch (e) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
        return ENOENT;
    case ERROR_ACCESS_DENIED:
        return EACCES;
    case ERROR_DISK_FULL:
        return ENOSPC;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
        return ENOMEM;
    default:
        return EIO;
    }
}

/* Maps file f (its handle closed here: the view keeps the file) */
static void *map_view(HANDLE f, size_t bytes, int writable, int *err) {
    HANDLE m = CreateFileMappingA(f, NULL, writable ? PAGE_READWRITE : PAGE_READONLY, (DWORD)((uint64_t)bytes >> 32),
                                  (DWORD)bytes, NULL);
    void *p = m ? MapViewOfFile(m, writable ? FILE_MAP_WRITE : FILE_MAP_READ, 0, 0, bytes) : NULL;
    *err = p ? 0 : errno_of(GetLastError());
    if (m) CloseHandle(m);
    CloseHandle(f);
    return p;
}

void *ludus__file_map_new(const char *path, size_t bytes, int *err) {
    HANDLE f = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL, CREATE_ALWAYS,
                           FILE_ATTRIBUTE_NORMAL, NULL);
    if (f == INVALID_HANDLE_VALUE) {
        *err = errno_of(GetLastError());
        return NULL;
    }
    LARGE_INTEGER size;
    size.QuadPart = (LONGLONG)bytes;
    if (!SetFilePointerEx(f, size, NULL, FILE_BEGIN) || !SetEndOfFile(f)) { /* zeros */
        *err = errno_of(GetLastError());
        CloseHandle(f);
        return NULL;
    }
    return map_view(f, bytes, 1, err);
}

const void *ludus__file_map_existing(const char *path, size_t *bytes, int *err) {
    HANDLE f = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    if (f == INVALID_HANDLE_VALUE) {
        *err = errno_of(GetLastError());
        return NULL;
    }
    LARGE_INTEGER size;
    if (!GetFileSizeEx(f, &size) || size.QuadPart <= 0) {
        *err = EINVAL;
        CloseHandle(f);
        return NULL;
    }
    *bytes = (size_t)size.QuadPart;
    return map_view(f, *bytes, 0, err);
}

void ludus__file_unmap(const void *p, size_t bytes) {
    (void)bytes;
    if (p) UnmapViewOfFile(p);
}

void ludus__file_remove(const char *path) {
    DeleteFileA(path);
}

int ludus__memory_read_checked(const void *addr, void *out, size_t n) {
    SIZE_T got = 0;
    return ReadProcessMemory(GetCurrentProcess(), addr, out, n, &got) && got == n ? 0 : -1;
}
