/* Ludus Profiling: native capture files (.ludus), read back.
 *
 * ludus_save_capture (capture.h) writes the last ended capture; this header
 * opens such a file again. The reader streams: it keeps the site and thread
 * tables and one event block in memory, never the whole event stream. Any
 * malformed, truncated or hostile file fails with LUDUS_EFORMAT and
 * ludus_last_error_detail() names the byte offset and the problem. The
 * format is documented in docs/format.md. Not thread-safe: one thread uses
 * one opened file at a time. */
#ifndef LUDUS_CAPTURE_FILE_H
#define LUDUS_CAPTURE_FILE_H

#include <ludus/capture.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Block encodings for ludus_save_capture_ex. */
#define LUDUS_SAVE_RAW 0u     /* default: the 16-byte events as recorded (a memory copy) */
#define LUDUS_SAVE_COMPACT 1u /* delta ticks and varints: smaller, slower to write */

/* ludus_save_capture with a choice of block encoding (LUDUS_SAVE_*). Same
 * errors: LUDUS_ENODATA (empty capture, PATH untouched), LUDUS_EIO (the
 * capture is kept), LUDUS_EINVAL. */
int ludus_save_capture_ex(const char *path, unsigned flags);

typedef struct ludus_capture_file ludus_capture_file;

/* Opens and validates a capture file: header, site and thread tables, and
 * the framing of every block (block payloads are read when iterated).
 * *out is NULL on failure. LUDUS_EIO when it cannot be read, LUDUS_EFORMAT
 * when malformed, LUDUS_ENOMEM, LUDUS_EINVAL for NULL arguments. */
int ludus_capture_open(const char *path, ludus_capture_file **out);
/* Closes the file and frees its tables; NULL is a no-op. */
void ludus_capture_close(ludus_capture_file *f);

/* What `ludus-trace info` prints; strings are owned by the file. */
typedef struct ludus_capture_file_info {
    uint32_t version;
    const char *clock_name;  /* "tsc" or "monotonic" */
    uint64_t calib_ticks[2]; /* calibration points (begin, end) */
    int64_t calib_ns[2];
    int64_t start_ns, end_ns; /* CLOCK_MONOTONIC ns */
    uint32_t threads, sites, blocks;
    int compact;    /* at least one block uses the compact encoding */
    uint64_t slots; /* raw 16-byte slots in all blocks */
    uint64_t events, dropped, filtered, incomplete, orphan_ends, frames;
    uint64_t file_bytes;
    int pid;
    const char *process_name;
    const char *categories; /* NULL: all enabled */
} ludus_capture_file_info;
int ludus_capture_file_get_info(const ludus_capture_file *f, ludus_capture_file_info *out);
/* Per-thread counts; index < info.threads. */
int ludus_capture_file_get_thread(const ludus_capture_file *f, uint32_t index, ludus_thread_summary *out);

#ifdef __cplusplus
}
#endif

#endif /* LUDUS_CAPTURE_FILE_H */
