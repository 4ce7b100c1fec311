/* Replays files through the fuzz target without libFuzzer (a normal ctest,
 * so the plain and ASan+UBSan trees check every regression and seed):
 * replay_main [DIR...], by default the corpus and regressions folders. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* A target's start-up (libFuzzer calls it first when a target has one). */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replay_file(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return -1;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *d = malloc(n > 0 ? (size_t)n : 1);
    size_t got = n > 0 ? fread(d, 1, (size_t)n, fp) : 0;
    fclose(fp);
    LLVMFuzzerTestOneInput(d, got);
    free(d);
    return 0;
}

int main(int argc, char **argv) {
    int files = 0;
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
#if defined(LUDUS_FUZZ_CORPUS) && defined(LUDUS_FUZZ_REGRESSIONS)
    static char *defaults[] = {"replay", LUDUS_FUZZ_CORPUS, LUDUS_FUZZ_REGRESSIONS};
    if (argc < 2) {
        argc = 3;
        argv = defaults;
    }
#endif
    for (int i = 1; i < argc; i++) {
        DIR *dir = opendir(argv[i]);
        if (!dir) {
            if (i == 2 && argc == 3) continue; /* a target without regressions yet */
            fprintf(stderr, "cannot open %s\n", argv[i]);
            return 1;
        }
        struct dirent *e;
        while ((e = readdir(dir))) {
            if (e->d_name[0] == '.') continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
            if (replay_file(p) == 0) files++;
        }
        closedir(dir);
    }
    printf("replayed %d files\n", files);
    return files > 0 ? 0 : 1;
}
