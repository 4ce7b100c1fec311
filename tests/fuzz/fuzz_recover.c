/* libFuzzer target of recover: the input is a pool file (what a process
 * that recorded with ludus_capture_desc.pool_file leaves behind), given
 * sparse, as a pool file is (a header, a journal and a pool of several MiB,
 * mostly zeros): segments {u32 offset, u16 length, the bytes}, little-endian,
 * over zeros up to the last segment's end (at most 16 MiB). It is written to
 * a file of this process and read back with ludus_capture_recover; what it
 * returns is exported (the .ludus must open again) and reported. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>

#include "fuzz_common.h"

#define MAX_FILE (16u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char path[64];
    snprintf(path, sizeof path, "/tmp/ludus-fuzz-pool-%d", (int)getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return 0;
    uint64_t end = 0;
    for (size_t i = 0; i + 6 <= size;) {
        uint32_t off =
            (uint32_t)data[i] | (uint32_t)data[i + 1] << 8 | (uint32_t)data[i + 2] << 16 | (uint32_t)data[i + 3] << 24;
        size_t len = (size_t)data[i + 4] | (size_t)data[i + 5] << 8;
        i += 6;
        if (len > size - i) len = size - i;
        if ((uint64_t)off + len <= MAX_FILE) {
            if (pwrite(fd, data + i, len, off) != (ssize_t)len) break;
            if (off + len > end) end = off + len;
        }
        i += len;
    }
    int ok = ftruncate(fd, (off_t)end) == 0;
    close(fd);
    ludus_capture *c;
    if (ok && ludus_capture_recover(path, &c) == 0) {
        fuzz_exports(c); /* the .ludus written from it must open again */
        fuzz_reports(c, NULL);
        ludus_capture_release(c);
    }
    unlink(path);
    return 0;
}
