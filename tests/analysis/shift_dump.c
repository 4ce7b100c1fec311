/* Prints, as JSON, synthetic captures' per-call durations of site B (as
 * generated, not as analysed) and the diff of them: one run per side
 * (exact and binned) and three runs per side, so check_shift.py can
 * recompute the Hodges-Lehmann shift, its interval and the run-to-run
 * widening on its own and compare. */
#include <stdio.h>

#include "synth.h"

static const ludus_site S_FRAME = {"Frame", "fn", "dump.c", NULL, 1, 0};
static const ludus_site S_B = {"B", "fn", "dump.c", NULL, 2, 0};

/* 200 frames of Frame { B }: B ~ scale x 2000 ns, +-10% noise, rounded to
 * 10 ns (ties), one call in 25 preempted for 30 us. */
static syn *capture(uint64_t seed, double scale, int64_t *dur) {
    syn *s = syn_new(1, 0);
    uint64_t x = seed * 2654435761u + 7, t = 0;
    for (int f = 0; f < 200; f++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t d = (int64_t)(scale * 2000 * (0.9 + 0.2 * (double)(x % 10007) / 10007.0)) / 10 * 10;
        if (x % 25 == 0) d += 30000;
        dur[f] = d;
        syn_b(s, 0, t, &S_FRAME);
        syn_scope(s, 0, t + 5, t + 5 + (uint64_t)d, &S_B);
        syn_e(s, 0, t + 10 + (uint64_t)d);
        t += 10 + (uint64_t)d;
        syn_frame(s, 0, t);
    }
    s->c.end_ns = (int64_t)t + 1;
    return s;
}

static void print_durations(const int64_t *d, int n) {
    printf("[");
    for (int i = 0; i < n; i++) printf("%s%lld", i ? "," : "", (long long)d[i]);
    printf("]");
}

/* One case: nb BASE runs (scale 1, per-run scales) against nn NEW runs. */
static int run_case(const char *name, int exact, int nb, int nn, const double *scales, int first) {
    syn *s[6];
    ludus_analysis *an[6];
    int64_t dur[6][200];
    ludus_analysis_desc ad;
    memset(&ad, 0, sizeof ad);
    ad.exact = exact;
    for (int r = 0; r < nb + nn; r++) {
        s[r] = capture((uint64_t)(r + 1) * 977, scales[r], dur[r]);
        an[r] = syn_analyze(s[r], &ad);
        if (!an[r]) return 1;
    }
    ludus_diff *d = NULL;
    if (ludus_diff_create_runs((const ludus_analysis *const *)an, (uint32_t)nb, (const ludus_analysis *const *)an + nb,
                               (uint32_t)nn, NULL, &d) != 0)
        return 1;
    mem m = {0};
    if (ludus_diff_report(d, LUDUS_REPORT_JSON, mem_write, &m) != 0) return 1;
    printf("%s{\"name\":\"%s\",\"exact\":%s,\"base\":[", first ? "" : ",\n", name, exact ? "true" : "false");
    for (int r = 0; r < nb; r++) {
        printf(r ? "," : "");
        print_durations(dur[r], 200);
    }
    printf("],\"new\":[");
    for (int r = nb; r < nb + nn; r++) {
        printf(r > nb ? "," : "");
        print_durations(dur[r], 200);
    }
    printf("],\"diff\":%s}", m.p);
    free(m.p);
    ludus_diff_destroy(d);
    for (int r = 0; r < nb + nn; r++) {
        ludus_analysis_destroy(an[r]);
        syn_free(s[r]);
    }
    return 0;
}

int main(void) {
    static const double one[2] = {1.0, 1.06};
    static const double three[6] = {1.0, 1.01, 0.99, 1.06, 1.07, 1.05};
    printf("{\"cases\":[");
    int rc = run_case("one run, exact", 1, 1, 1, one, 1);
    rc |= run_case("one run, binned", 0, 1, 1, one, 0);
    rc |= run_case("three runs, exact", 1, 3, 3, three, 0);
    rc |= run_case("three runs, binned", 0, 3, 3, three, 0);
    printf("]}\n");
    return rc;
}
