/* file_map.h on Windows: CreateFile (CREATE_NEW, a link never followed),
 * the allocation set before the size, CreateFileMapping and MapViewOfFile
 * (a view of a file's pages is the file's: the system keeps what was
 * stored when the process is killed); ReadProcessMemory on the process
 * itself reads memory that may not be mapped without an exception. */
#include "file_map.h"
#include "platform.h"

#include <windows.h>

#include <errno.h>

/* Maps file f (its handle closed here: the view keeps the file) */
static void *map_view(HANDLE f, size_t bytes, int writable, int *err) {
    HANDLE m = CreateFileMappingA(f, NULL, writable ? PAGE_READWRITE : PAGE_READONLY, (DWORD)((uint64_t)bytes >> 32),
                                  (DWORD)bytes, NULL);
    void *p = m ? MapViewOfFile(m, writable ? FILE_MAP_WRITE : FILE_MAP_READ, 0, 0, bytes) : NULL;
    *err = p ? 0 : ludus__win32_errno_of(GetLastError());
    if (m) CloseHandle(m);
    CloseHandle(f);
    return p;
}

int ludus__file_map_reserve_error;

void *ludus__file_map_new(const char *path, size_t bytes, ludus__file_id *id, int *err) {
    /* CREATE_NEW: never a file that exists; FILE_FLAG_OPEN_REPARSE_POINT: a
     * symbolic link (or junction) at path is the thing opened, never its
     * target, so a dangling one is refused as existing too */
    HANDLE f = CreateFileA(path, GENERIC_READ | GENERIC_WRITE | DELETE, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL,
                           CREATE_NEW, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
    if (f == INVALID_HANDLE_VALUE) {
        *err = ludus__win32_errno_of(GetLastError());
        return NULL;
    }
    BY_HANDLE_FILE_INFORMATION bi;
    int e = GetFileInformationByHandle(f, &bi) ? 0 : ludus__win32_errno_of(GetLastError());
    if (e == 0 && ludus__file_map_reserve_error) e = ludus__file_map_reserve_error;
    if (e == 0) {
        /* the blocks first (a full disk fails here, not as an in-page error
         * at a store), then the size */
        FILE_ALLOCATION_INFO alloc;
        alloc.AllocationSize.QuadPart = (LONGLONG)bytes;
        if (!SetFileInformationByHandle(f, FileAllocationInfo, &alloc, sizeof alloc)) {
            DWORD w = GetLastError();
            /* a file system that takes no allocation: the size alone (NTFS
             * allocates a file that is not sparse when it grows) */
            if (w != ERROR_INVALID_PARAMETER && w != ERROR_NOT_SUPPORTED && w != ERROR_CALL_NOT_IMPLEMENTED &&
                w != ERROR_INVALID_FUNCTION)
                e = ludus__win32_errno_of(w);
        }
    }
    LARGE_INTEGER size;
    size.QuadPart = (LONGLONG)bytes;
    if (e == 0 && (!SetFilePointerEx(f, size, NULL, FILE_BEGIN) || !SetEndOfFile(f))) /* zeros */
        e = ludus__win32_errno_of(GetLastError());
    if (e) {
        FILE_DISPOSITION_INFO gone = {TRUE}; /* ours: CREATE_NEW made it */
        SetFileInformationByHandle(f, FileDispositionInfo, &gone, sizeof gone);
        CloseHandle(f);
        *err = e;
        return NULL;
    }
    id->volume = bi.dwVolumeSerialNumber;
    id->index = (uint64_t)bi.nFileIndexHigh << 32 | bi.nFileIndexLow;
    void *p = map_view(f, bytes, 1, err);
    if (!p) ludus__file_remove_created(path, id);
    return p;
}

const void *ludus__file_map_existing(const char *path, size_t *bytes, int *err) {
    HANDLE f = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    if (f == INVALID_HANDLE_VALUE) {
        *err = ludus__win32_errno_of(GetLastError());
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

void ludus__file_remove_created(const char *path, const ludus__file_id *id) {
    HANDLE f = CreateFileA(path, DELETE | FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           NULL, OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT, NULL);
    if (f == INVALID_HANDLE_VALUE) return;
    BY_HANDLE_FILE_INFORMATION bi;
    if (GetFileInformationByHandle(f, &bi) && bi.dwVolumeSerialNumber == id->volume &&
        ((uint64_t)bi.nFileIndexHigh << 32 | bi.nFileIndexLow) == id->index) {
        FILE_DISPOSITION_INFO gone = {TRUE}; /* this very file, by its handle */
        SetFileInformationByHandle(f, FileDispositionInfo, &gone, sizeof gone);
    }
    CloseHandle(f);
}

int ludus__memory_read_checked(const void *addr, void *out, size_t n) {
    SIZE_T got = 0;
    return ReadProcessMemory(GetCurrentProcess(), addr, out, n, &got) && got == n ? 0 : -1;
}
