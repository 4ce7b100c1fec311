/* Ludus Profiling: native capture files (.ludus), read back.
 *
 * ludus_capture_save / ludus_capture_write (capture.h) write one; this header
 * opens one again as a capture object. The reader streams: it keeps the site
 * and thread tables and one event block in memory, never the whole event
 * stream. Every block carries a CRC-32C, so any damage is found; a
 * malformed, truncated or hostile file fails with LUDUS_EFORMAT and
 * ludus_last_error_detail() names the byte offset and the problem. The format
 * is documented in docs/format.md. */
#ifndef LUDUS_CAPTURE_FILE_H
#define LUDUS_CAPTURE_FILE_H

#include <ludus/capture.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opens and validates a capture file: header, tables, and the framing and
 * checksum of every record (block payloads are read when iterated). *out is
 * NULL on failure. LUDUS_EIO when it cannot be read, LUDUS_EFORMAT when
 * malformed, LUDUS_ENOMEM, LUDUS_EINVAL for NULL arguments. */
LUDUS_API int ludus_capture_open(const char *path, ludus_capture **out);
/* Opens a capture file for what it says about itself, in time that does not
 * grow with its events: the header, the tables and the summary, found
 * through the index at the end of the file (docs/format.md, "The index"),
 * each record's checksum checked; the blocks are neither read nor checked.
 * Such a capture has no event: ludus_capture_get_info, _get_thread, the GPU
 * and memory coverage tables answer; a stream, analysis, export or cut of it
 * fails with LUDUS_EUNSUPPORTED. ludus_capture_info.index_only says it. A
 * file without a sound index (written before it, a streamed file cut
 * short, a damaged end) is opened as ludus_capture_open opens it: every
 * record read and checked, a complete capture. Errors as ludus_capture_open.
 * `ludus-trace info` uses it. */
LUDUS_API int ludus_capture_open_index(const char *path, ludus_capture **out);
/* The same over a file's bytes in memory; data must stay valid and unchanged
 * until the capture (and every cut of it) is released. */
LUDUS_API int ludus_capture_open_memory(const void *data, size_t size, ludus_capture **out);

/* A capture read back from a pool file (ludus_capture_desc.pool_file) that
 * its process left behind: killed (kill -9), crashed without the crash
 * handler, or gone without ending the capture. Every event the file holds
 * is there; slices still open are closed as incomplete at the last event;
 * a site first met in the last journal period (20 ms) is named by its
 * address; killed before the journal's first pass, its clock is calibrated
 * by this machine's (the same invariant TSC). LUDUS_EFORMAT names the offset
 * and the problem; LUDUS_ENODATA when the capture had not started.
 * `ludus-trace recover FILE OUT` runs it. */
LUDUS_API int ludus_capture_recover(const char *path, ludus_capture **out);

/* What `ludus-trace info` prints; strings are owned by the capture. */
typedef struct ludus_capture_info {
    uint32_t version;
    const char *clock_name;  /* "tsc" or "monotonic" */
    uint64_t calib_ticks[2]; /* calibration points (begin, end) */
    int64_t calib_ns[2];
    int64_t start_ns, end_ns; /* CLOCK_MONOTONIC ns */
    uint32_t threads, sites;
    uint64_t blocks;
    int compact;    /* at least one block uses the compact encoding */
    uint64_t slots; /* 16-byte event slots in all blocks */
    uint64_t file_bytes;
    int pid;
    const char *process_name;
    const char *categories; /* NULL: all enabled */
    int cut;
    int64_t cut_from_ns, cut_to_ns;
    /* ended by a crash (ludus_crash_capture_begin): the signal (0: it was
     * not), its name, the thread it hit, when (CLOCK_MONOTONIC ns) */
    int crash_signal;
    const char *crash_signal_name;
    uint64_t crash_tid;
    int64_t crash_ns;
    int recovered; /* read back from a pool file its process left behind (ludus_capture_recover) */
    /* written by the rolling window for a trigger (rolling.h): its reason
     * ("hitch", "counter", "signal" or ludus_rolling_trigger's), when it fired
     * (CLOCK_MONOTONIC ns) and what it saw ("frame of 52.10 ms, 4.31 x the
     * running median 12.09 ms"); NULL reason: not a trigger's window */
    const char *trigger_reason;
    int64_t trigger_ns;
    const char *trigger_detail;
    ludus_capture_summary summary;
    int streamed;   /* written while it recorded (ludus_capture_desc.stream_path, format 6) */
    int stream_cut; /* ... and cut short (kill -9, a crash): every whole block is there; the losses, the
                       thread table and the summary written at the end are not (threads keep the names
                       the file gave them as they appeared) */
    /* The file's summary record, written at save: the frames as `report` counts them (the frame thread
       is the one with the most marks), known without analysing the capture. has_summary 0: an older
       file, or one cut short. */
    int has_summary;
    uint64_t summary_frame_marks;     /* marks on the frame thread */
    uint64_t summary_marks_elsewhere; /* marks on the other threads */
    const char *summary_frame_thread; /* its name; NULL when no mark */
    int index_only; /* opened by ludus_capture_open_index through the file's index: tables only, no event */
    /* a file written from a time cut (ludus_capture_cut, then saved as .ludus): the range of its source
       it holds, ns since the source's start (its own start is the source's plus from), and the source's
       duration; file_cut 0: not a cut */
    int file_cut;
    int64_t file_cut_from_ns, file_cut_to_ns, file_cut_of_ns;
    int compressed; /* at least one block is a zstd-compressed compact block (LUDUS_ZSTD builds write them) */
} ludus_capture_info;
LUDUS_API int ludus_capture_get_info(ludus_capture *c, ludus_capture_info *out);

/* A name read from a capture (or any text of one), shown for a terminal:
 * a capture is what people mail each other, so its names may hold anything.
 * Control characters (C0, DEL, C1: escape sequences among them) and bytes
 * that start no valid UTF-8 character are written \xHH, line separators and
 * bidirectional controls \uHHHH, everything else as it is; at most `width`
 * bytes (0: only cap bounds it), a longer text cut between two characters
 * and the cut marked with '~'. out (cap >= 2) is always NUL-terminated;
 * returns out, or "" when out or text is NULL or cap < 2. Thread-safe. */
LUDUS_API const char *ludus_text_show(char *out, size_t cap, const char *text, size_t width);

/* A text as one CSV field (RFC 4180), the one CSV writer of the library and
 * its tools (ludus-trace report --csv, sql --csv, .mode csv): quoted when it
 * holds a comma, a quote (doubled), CR or LF, or starts or ends with a
 * space. A text a spreadsheet would run as a formula (after any leading ',
 * one of = + - @ tab CR) is quoted and gets one more ' in front (OWASP's
 * advice): a reader gets the exact text back by dropping one leading '
 * wherever ' (after more ') is followed by one of those. Flags:
 * LUDUS_CSV_SHOW: control characters and escape sequences shown as
 * ludus_text_show shows them, never sent (a terminal; one record a line);
 * without it the bytes are written as they are (names round-trip).
 * LUDUS_CSV_QUOTE_EMPTY: an empty text is "" (apart from a missing value,
 * written as nothing). Writes through write (a failed write: LUDUS_EIO);
 * LUDUS_EINVAL when write is NULL or text is NULL with n > 0. Thread-safe. */
#define LUDUS_CSV_SHOW 1u
#define LUDUS_CSV_QUOTE_EMPTY 2u
LUDUS_API int ludus_text_csv(const char *text, size_t n, unsigned flags, ludus_write_fn write, void *user_data);

#ifdef __cplusplus
}
#endif

#endif /* LUDUS_CAPTURE_FILE_H */
