/* libFuzzer target for the capture file reader: open the input as a .ludus
 * file, then stream every thread through the JSON and protobuf exporters
 * (into a discarding writer), a re-save, and a cut, thread-subset view.
 * Any input must end in success or a clean error: no crash, no hang, no
 * unbounded allocation. Also built without libFuzzer by replay_main.c. */
#include <ludus/capture_file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/native_format.h"
#include "export/export_formats.h"
#include "export/export_internal.h"

static int discard(void *ud, const void *p, size_t n) {
    (void)p;
    *(size_t *)ud += n;
    return 0;
}

static ludus__writer wr;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static char path[64];
    if (!path[0]) snprintf(path, sizeof path, "/tmp/ludus-fuzz-%d.ludus", (int)getpid());
    FILE *fp = fopen(path, "wb");
    if (!fp) return 0;
    if (size && fwrite(data, 1, size, fp) != size) {
        fclose(fp);
        return 0;
    }
    fclose(fp);
    ludus_capture_file *f;
    if (ludus_capture_open(path, &f) != 0) return 0;
    ludus_capture_file_info info;
    ludus_capture_file_get_info(f, &info);
    size_t bytes = 0;
    ludus__captured *c = ludus__capture_file_view(f);
    ludus__w_init(&wr, discard, &bytes);
    ludus__export_chrome_json(c, &wr);
    ludus__w_init(&wr, discard, &bytes);
    ludus__export_pftrace(c, &wr);
    ludus__w_init(&wr, discard, &bytes);
    ludus__save_native(c, &wr, LUDUS_SAVE_COMPACT);
    unsigned char keep[4] = {1, 0, 1, 0};
    ludus__captured *v;
    if (info.threads <= 4 && ludus__capture_file_subview(f, keep, 1, 1000, 1000000, &v) == 0) {
        ludus__w_init(&wr, discard, &bytes);
        ludus__export_chrome_json(v, &wr);
        ludus__capture_view_free(v);
    }
    ludus_capture_close(f);
    return 0;
}
