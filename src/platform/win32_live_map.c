/* live_map.h on Windows. The block is a named file mapping over the paging
 * file, "Local\ludus-live-PID" (a section's size is fixed: nobody can
 * shrink it), and beside it an auto-reset event "Local\ludus-live-PID-ring"
 * that a watcher sets to wake the process's idle thread instead of a poll.
 * Both are created with a security descriptor whose owner is the process's
 * user and whose DACL holds one entry, that user's SID: no other user opens
 * them (administrators only by taking ownership). A name already taken is
 * refused, never reused (it could be another's). Both go when the process's
 * last handle does, kill included. The watcher checks the mapping's owner
 * is the process's user, and holds the process open (OpenProcess) to tell
 * its exit from a pid reused since. The capture file: CreateFile with
 * CREATE_NEW, never through a reparse point, then MoveFileEx over OUT. */
#include "live_map.h"

#include <windows.h>
#include <aclapi.h>

#ifdef _MSC_VER
#pragma comment(lib, "advapi32.lib") /* the security calls (mingw-w64's GCC links it by default) */
#endif

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <string.h>

#define NAME_CAP 64

static void block_name(char *out, uint64_t pid, int ring) {
    snprintf(out, NAME_CAP, "Local\\ludus-live-%llu%s", (unsigned long long)pid, ring ? "-ring" : "");
}

static void clear(ludus__live_map *m) {
    m->p = NULL;
    m->bytes = 0;
    m->fd = m->proc_fd = m->remote_fd = -1;
    m->section = m->ring = m->process = NULL;
}

/* A token's user: its SID copied into sid (SECURITY_MAX_SID_SIZE bytes). */
typedef union user_sid {
    SID sid;
    unsigned char bytes[SECURITY_MAX_SID_SIZE];
} user_sid;

static int token_user(HANDLE process, user_sid *out) {
    HANDLE tok;
    if (!OpenProcessToken(process, TOKEN_QUERY, &tok)) return -ludus__win32_errno();
    union {
        TOKEN_USER user;
        unsigned char bytes[sizeof(TOKEN_USER) + SECURITY_MAX_SID_SIZE];
    } info;
    DWORD len = 0;
    int rc = 0;
    if (!GetTokenInformation(tok, TokenUser, &info, sizeof info, &len) ||
        !CopySid(sizeof out->bytes, &out->sid, info.user.User.Sid))
        rc = -ludus__win32_errno();
    CloseHandle(tok);
    return rc;
}

/* The user's relative id (the last sub-authority): what an error shows. */
static uint32_t sid_rid(user_sid *s) {
    UCHAR n = *GetSidSubAuthorityCount(&s->sid);
    return n ? (uint32_t)*GetSidSubAuthority(&s->sid, n - 1u) : UINT32_MAX;
}

int ludus__live_map_create(size_t bytes, ludus__live_map *m) {
    clear(m);
    user_sid me;
    int e = token_user(GetCurrentProcess(), &me);
    if (e) return e;
    /* the one entry: this user, everything (GENERIC_ALL maps to each
     * object's own rights) */
    union {
        ACL acl;
        unsigned char bytes[sizeof(ACL) + sizeof(ACCESS_ALLOWED_ACE) + SECURITY_MAX_SID_SIZE];
    } dacl;
    SECURITY_DESCRIPTOR sd;
    if (!InitializeAcl(&dacl.acl, sizeof dacl, ACL_REVISION) ||
        !AddAccessAllowedAce(&dacl.acl, ACL_REVISION, GENERIC_ALL, &me.sid) ||
        !InitializeSecurityDescriptor(&sd, SECURITY_DESCRIPTOR_REVISION) ||
        !SetSecurityDescriptorOwner(&sd, &me.sid, FALSE) || !SetSecurityDescriptorDacl(&sd, TRUE, &dacl.acl, FALSE))
        return -ludus__win32_errno();
    SECURITY_ATTRIBUTES sa = {sizeof sa, &sd, FALSE};
    char name[NAME_CAP];
    uint64_t pid = (uint64_t)GetCurrentProcessId();
    /* the event first: a watcher that finds the mapping finds it too */
    block_name(name, pid, 1);
    m->ring = CreateEventA(&sa, FALSE, FALSE, name);
    int taken = m->ring && GetLastError() == ERROR_ALREADY_EXISTS;
    if (m->ring && !taken) {
        block_name(name, pid, 0);
        m->section = CreateFileMappingA(INVALID_HANDLE_VALUE, &sa, PAGE_READWRITE, (DWORD)((uint64_t)bytes >> 32),
                                        (DWORD)bytes, name);
        taken = m->section && GetLastError() == ERROR_ALREADY_EXISTS;
        if (m->section && !taken) m->p = MapViewOfFile(m->section, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, bytes);
    }
    if (m->p) {
        m->bytes = bytes;
        return 0;
    }
    e = taken ? EEXIST : ludus__win32_errno();
    ludus__live_map_close(m);
    return -e;
}

void ludus__live_map_close(ludus__live_map *m) {
    if (!m) return;
    if (m->p) UnmapViewOfFile(m->p);
    if (m->section) CloseHandle(m->section);
    if (m->ring) CloseHandle(m->ring);
    if (m->process) CloseHandle(m->process);
    clear(m);
}

void ludus__live_map_wait(const ludus__live_map *m, ludus__wakeup *quit, int64_t timeout_ns) {
    if (timeout_ns >= 0 || !m->ring) {
        ludus__wakeup_wait(quit, timeout_ns);
        return;
    }
    HANDLE h[2] = {quit->u.handle, m->ring};
    WaitForMultipleObjects(2, h, FALSE, INFINITE);
}

void ludus__live_map_ring(const ludus__live_map *m) {
    if (m->ring) SetEvent(m->ring);
}

int ludus__live_map_alive(const ludus__live_map *m) {
    return m && m->process && WaitForSingleObject(m->process, 0) == WAIT_TIMEOUT;
}

/* The process of that id, open for waiting on and reading its token. */
static int open_process(uint64_t pid, HANDLE *out) {
    *out = NULL;
    if (pid == 0 || pid > 0x7fffffffu) return -ESRCH;
    HANDLE h = OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid);
    if (!h) return GetLastError() == ERROR_ACCESS_DENIED ? -EACCES : -ESRCH; /* no such id: invalid parameter */
    if (WaitForSingleObject(h, 0) != WAIT_TIMEOUT) {
        CloseHandle(h);
        return -ESRCH;
    }
    *out = h;
    return 0;
}

int ludus__live_map_open(uint64_t pid, size_t min_bytes, ludus__live_map *m, uint32_t *uid_out) {
    clear(m);
    *uid_out = UINT32_MAX;
    HANDLE proc;
    int e = open_process(pid, &proc);
    if (e) return e;
    m->process = proc;
    user_sid owner, me;
    e = token_user(proc, &owner);
    if (e) {
        ludus__live_map_close(m);
        return e; /* -EACCES: another user's token cannot be read */
    }
    *uid_out = sid_rid(&owner);
    if ((e = token_user(GetCurrentProcess(), &me)) != 0 || !EqualSid(&owner.sid, &me.sid)) {
        ludus__live_map_close(m);
        return e ? e : -EACCES;
    }
    char name[NAME_CAP];
    block_name(name, pid, 0);
    m->section = OpenFileMappingA(FILE_MAP_READ | FILE_MAP_WRITE | READ_CONTROL, FALSE, name);
    if (!m->section) {
        e = GetLastError() == ERROR_FILE_NOT_FOUND ? ENOENT : ludus__win32_errno();
        ludus__live_map_close(m);
        return -e;
    }
    /* one of ours: its owner is the process's user (a name another user
     * took first is refused), and it is that big */
    PSID sec_owner = NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    int ours = GetSecurityInfo(m->section, SE_KERNEL_OBJECT, OWNER_SECURITY_INFORMATION, &sec_owner, NULL, NULL, NULL,
                               &sd) == ERROR_SUCCESS &&
               sec_owner && EqualSid(sec_owner, &owner.sid);
    if (sd) LocalFree(sd);
    MEMORY_BASIC_INFORMATION mbi;
    if (ours) m->p = MapViewOfFile(m->section, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, 0);
    if (!ours || !m->p || VirtualQuery(m->p, &mbi, sizeof mbi) != sizeof mbi || mbi.RegionSize < min_bytes) {
        ludus__live_map_close(m);
        return -EINVAL;
    }
    m->bytes = mbi.RegionSize;
    block_name(name, pid, 1);
    m->ring = OpenEventA(EVENT_MODIFY_STATE, FALSE, name);
    if (!m->ring) { /* the process makes it before the mapping */
        ludus__live_map_close(m);
        return -EINVAL;
    }
    return 0;
}

int ludus__live_absolute(const char *path, char *out, size_t cap) {
    DWORD n = GetFullPathNameA(path, (DWORD)(cap < 0x7fffffffu ? cap : 0x7fffffffu), out, NULL);
    if (n == 0) return -ludus__win32_errno();
    return n >= cap ? -ENAMETOOLONG : 0;
}

int ludus__live_pid_running(uint32_t pid) {
    HANDLE h;
    int e = open_process(pid, &h);
    if (e == 0) CloseHandle(h);
    return e == 0 || e == -EACCES;
}

/* ---- the capture file ---- */

int ludus__live_path_absolute(const char *p) {
    int sep0 = p[0] == '\\' || p[0] == '/';
    return (((p[0] | 0x20) >= 'a' && (p[0] | 0x20) <= 'z' && p[1] == ':' && (p[2] == '\\' || p[2] == '/')) ||
            (sep0 && (p[1] == '\\' || p[1] == '/')));
}

/* The temporary for path written by process pid: ".BASE.PID.live-tmp" in
 * its directory. 0, or -EINVAL for a path that names no file. */
static int live_map_tmp_name(char *out, size_t cap, const char *path, uint64_t pid) {
    const char *base = path;
    for (const char *p = path; *p; p++)
        if (*p == '/' || *p == '\\') base = p + 1;
    if (!ludus__live_path_absolute(path) || !*base) return -EINVAL;
    int n = snprintf(out, cap, "%.*s.%s.%llu.live-tmp", (int)(base - path), path, base, (unsigned long long)pid);
    return n > 0 && (size_t)n < cap ? 0 : -ENAMETOOLONG;
}

int ludus__live_out_create(const char *path, ludus__live_out *o) {
    o->fd = -1;
    o->tmp[0] = 0;
    size_t len = strlen(path);
    if (len >= sizeof o->path) return -EINVAL;
    memcpy(o->path, path, len + 1);
    int e = live_map_tmp_name(o->tmp, sizeof o->tmp, path, (uint64_t)GetCurrentProcessId());
    if (e) {
        o->tmp[0] = 0;
        return e;
    }
    for (int tries = 0; tries < 2; tries++) {
        /* CREATE_NEW, FILE_FLAG_OPEN_REPARSE_POINT: nothing there is
         * followed or reused */
        HANDLE h = CreateFileA(o->tmp, GENERIC_WRITE, 0, NULL, CREATE_NEW,
                               FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
        if (h != INVALID_HANDLE_VALUE) {
            o->fd = _open_osfhandle((intptr_t)h, _O_WRONLY | _O_BINARY);
            if (o->fd >= 0) return 0;
            CloseHandle(h);
            e = -EIO;
            break;
        }
        e = -ludus__win32_errno();
        if (e != -EEXIST || tries) break;
        ludus__live_out_remove_stale(path, (uint64_t)GetCurrentProcessId()); /* an earlier run of this pid's */
    }
    if (o->fd < 0 && e == -EIO) DeleteFileA(o->tmp);
    o->tmp[0] = 0;
    return e;
}

int ludus__live_out_write(void *out, const void *data, size_t n) {
    ludus__live_out *o = out;
    const char *p = data;
    while (n > 0) {
        unsigned chunk = n > (1u << 30) ? (1u << 30) : (unsigned)n;
        int w = _write(o->fd, p, chunk);
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int ludus__live_out_commit(ludus__live_out *o) {
    int rc = _close(o->fd) == 0 ? 0 : -errno;
    o->fd = -1;
    /* MoveFileEx replaces a link at path, never follows it */
    if (rc == 0 && !MoveFileExA(o->tmp, o->path, MOVEFILE_REPLACE_EXISTING)) rc = -ludus__win32_errno();
    if (rc) DeleteFileA(o->tmp);
    o->tmp[0] = 0;
    return rc;
}

int ludus__live_out_remove_stale(const char *path, uint64_t pid) {
    char tmp[4200];
    if (live_map_tmp_name(tmp, sizeof tmp, path, pid) != 0) return 0;
    DWORD a = GetFileAttributesA(tmp);
    if (a == INVALID_FILE_ATTRIBUTES || (a & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT))) return 0;
    return DeleteFileA(tmp) != 0; /* a link's own name, never its target */
}

void ludus__live_out_abort(ludus__live_out *o) {
    if (o->fd >= 0) _close(o->fd);
    if (o->tmp[0]) DeleteFileA(o->tmp);
    o->fd = -1;
    o->tmp[0] = 0;
}
