/* Compiled out: work_fn with every macro at LUDUS_PROFILE_LEVEL 0 must
 * compile to exactly the code of work_fn without them (compiled_out.sh
 * builds this file with -DWITH_MACROS=1 and =0 and compares). */
#include <ludus/profiling.h>

#if WITH_MACROS
#define M(...) __VA_ARGS__
#else
#define M(...)
#endif

struct job {
    int cost;
    uint64_t flow;
};

static const char *const names[2] = {"even", "odd"};

int work_fn(const int *data, int n, struct job *j);
int work_fn(const int *data, int n, struct job *j) {
    M(LUDUS_PROFILE_FUNCTION();)
    int sum = 0;
    M(LUDUS_PROFILE_BEGIN(Span);)
    for (int i = 0; i < n; i++) {
        M(LUDUS_PROFILE_SCOPE(Loop, category);)
        M(LUDUS_PROFILE_SCOPE("Literal name");)
        M(LUDUS_PROFILE_SCOPE_DYN(names[i & 1]);)
        M(LUDUS_PROFILE_SCOPE_FINE(Fine);)
        sum += data[i];
        M(LUDUS_PROFILE_MARK(Mark);)
        M(LUDUS_PROFILE_COUNT(Draws, j->cost++);) /* not evaluated */
        M(LUDUS_PROFILE_GAUGE(Level, data[i] * 2);)
        M(LUDUS_PROFILE_PLOT(Plot, sum * 0.5);)
        M(LUDUS_PROFILE_MESSAGE(j->cost++, "message");)         /* not evaluated */
        M(LUDUS_PROFILE_LOG(j->cost++, "log %d", j->cost++);)   /* not evaluated */
        M(LUDUS_PROFILE_ASYNC_BEGIN(Loading, j->cost++, Zone);) /* not evaluated */
        M(LUDUS_PROFILE_ASYNC_END(Loading, j->cost++);)
        M(LUDUS_PROFILE_ANNOTATE(Cost, j->cost++);) /* not evaluated */
        M(LUDUS_PROFILE_ANNOTATE_TEXT(Name, names[j->cost++ & 1]);)
    }
    M(LUDUS_PROFILE_END();)
    M((void)LUDUS_PROFILE_FLOW_OUT(Dispatch);)
    M(LUDUS_PROFILE_FLOW_IN(LUDUS_PROFILE_FLOW_OUT(Chained));)
    M(LUDUS_PROFILE_FLOW_IN(j->flow);) /* not even read */
    M(LUDUS_PROFILE_FRAME();)
    j->cost = sum;
    return sum;
}
