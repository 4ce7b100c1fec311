/* An event row of ludus_analysis_rows as the cells of its table's columns
 * (sql.h): the one place that says which column of slice, args, instant,
 * counter, log, flow_event and async_slice holds what. The loader binds the
 * cells into its INSERT statements (sql_load.c); the virtual tables hand
 * them to a query (sql_vtab.c). */
#ifdef LUDUS_TRACE_SQLITE
#include <string.h>

#include "sql.h"

static void c_int(lt_sql_cell *c, int64_t v) {
    c->type = LT_CELL_INT;
    c->i = v;
}
static void c_opt(lt_sql_cell *c, int has, int64_t v) {
    c->type = has ? LT_CELL_INT : LT_CELL_NULL;
    c->i = v;
}
static void c_real(lt_sql_cell *c, double v) {
    c->type = LT_CELL_REAL;
    c->d = v;
}
static void c_textn(lt_sql_cell *c, const char *v, size_t n) {
    c->type = v ? LT_CELL_TEXT : LT_CELL_NULL;
    c->s = v;
    c->n = v ? n : 0;
}
static void c_text(lt_sql_cell *c, const char *v) {
    c_textn(c, v, v ? strlen(v) : 0);
}

static const char *const levels[] = {"debug", "info", "warning", "error"};

int lt_sql_row_cells(const ludus_row *r, int64_t cap, uint64_t *args_of, lt_sql_cell *c) {
    int none_open = r->slice_id == LUDUS_ROW_NONE;
    switch (r->kind) {
    case LUDUS_ROW_SLICE:
        c_int(&c[LT_slice__capture_id], cap);
        c_int(&c[LT_slice__id], (int64_t)r->id);
        c_int(&c[LT_slice__ts], r->ts_ns);
        c_int(&c[LT_slice__dur], r->dur_ns);
        c_text(&c[LT_slice__name], r->name);
        c_text(&c[LT_slice__category], r->category);
        c_int(&c[LT_slice__depth], r->depth);
        c_opt(&c[LT_slice__parent_id], r->parent_id != LUDUS_ROW_NONE, (int64_t)r->parent_id);
        c_int(&c[LT_slice__utid], r->thread);
        c_int(&c[LT_slice__lane], r->lane);
        c_int(&c[LT_slice__frame], (int64_t)r->frame);
        c_opt(&c[LT_slice__path_id], r->path != UINT32_MAX, r->path);
        c_opt(&c[LT_slice__site_id], r->site != UINT32_MAX, r->site);
        c_opt(&c[LT_slice__arg_set_id], *args_of == r->id, (int64_t)r->id);
        c_int(&c[LT_slice__incomplete], (r->flags & LUDUS_ROW_INCOMPLETE) != 0);
        c_int(&c[LT_slice__unwound], (r->flags & LUDUS_ROW_UNWOUND) != 0);
        c_int(&c[LT_slice__is_span], (r->flags & LUDUS_ROW_SPAN) != 0);
        return LT_T_slice;
    case LUDUS_ROW_ARG:
        *args_of = r->slice_id;
        c_int(&c[LT_args__capture_id], cap);
        c_int(&c[LT_args__arg_set_id], (int64_t)r->slice_id);
        c_text(&c[LT_args__key], r->name);
        c_text(&c[LT_args__value_type], r->value_type == 1 ? "int" : r->value_type == 2 ? "real" : "string");
        c_opt(&c[LT_args__int_value], r->value_type == 1, r->int_value);
        if (r->value_type == 2)
            c_real(&c[LT_args__real_value], r->real_value);
        else
            c[LT_args__real_value].type = LT_CELL_NULL;
        c_textn(&c[LT_args__string_value], r->value_type == 3 ? r->text : NULL, r->text_len);
        return LT_T_args;
    case LUDUS_ROW_INSTANT:
        c_int(&c[LT_instant__capture_id], cap);
        c_int(&c[LT_instant__ts], r->ts_ns);
        c_int(&c[LT_instant__utid], r->thread);
        c_text(&c[LT_instant__name], r->name);
        c_text(&c[LT_instant__category], r->category);
        c_int(&c[LT_instant__frame], (int64_t)r->frame);
        c_opt(&c[LT_instant__slice_id], !none_open, (int64_t)r->slice_id);
        c_opt(&c[LT_instant__value], r->int_value != 0, r->int_value);
        return LT_T_instant;
    case LUDUS_ROW_COUNTER:
        c_int(&c[LT_counter__capture_id], cap);
        c_int(&c[LT_counter__ts], r->ts_ns);
        c_opt(&c[LT_counter__track_id], r->counter != UINT32_MAX, r->counter);
        c_real(&c[LT_counter__value], r->real_value);
        c_int(&c[LT_counter__utid], r->thread);
        c_int(&c[LT_counter__frame], (int64_t)r->frame);
        return LT_T_counter;
    case LUDUS_ROW_MESSAGE:
        c_int(&c[LT_log__capture_id], cap);
        c_int(&c[LT_log__ts], r->ts_ns);
        c_int(&c[LT_log__utid], r->thread);
        c_text(&c[LT_log__level], r->level >= 0 && r->level < 4 ? levels[r->level] : "info");
        c_textn(&c[LT_log__msg], r->text ? r->text : "", r->text ? r->text_len : 0);
        c_int(&c[LT_log__frame], (int64_t)r->frame);
        c_opt(&c[LT_log__slice_id], !none_open, (int64_t)r->slice_id);
        return LT_T_log;
    case LUDUS_ROW_FLOW:
        c_int(&c[LT_flow_event__capture_id], cap);
        c_int(&c[LT_flow_event__flow_id], r->int_value);
        c_text(&c[LT_flow_event__direction], r->flags & LUDUS_ROW_FLOW_IN ? "in" : "out");
        c_int(&c[LT_flow_event__ts], r->ts_ns);
        c_int(&c[LT_flow_event__utid], r->thread);
        c_opt(&c[LT_flow_event__slice_id], !none_open, (int64_t)r->slice_id);
        c_text(&c[LT_flow_event__name], r->site != UINT32_MAX ? r->name : NULL);
        return LT_T_flow_event;
    case LUDUS_ROW_ASYNC:
        c_int(&c[LT_async_slice__capture_id], cap);
        c_int(&c[LT_async_slice__id], (int64_t)r->id);
        c_int(&c[LT_async_slice__ts], r->ts_ns);
        c_int(&c[LT_async_slice__dur], r->dur_ns);
        c_text(&c[LT_async_slice__name], r->name);
        c_textn(&c[LT_async_slice__track], r->text, r->text_len);
        c_int(&c[LT_async_slice__depth], r->depth);
        c_opt(&c[LT_async_slice__utid], r->thread != UINT32_MAX, r->thread);
        c_opt(&c[LT_async_slice__end_utid], r->end_thread != UINT32_MAX, r->end_thread);
        c_int(&c[LT_async_slice__incomplete], (r->flags & LUDUS_ROW_INCOMPLETE) != 0);
        c_int(&c[LT_async_slice__frame], (int64_t)r->frame);
        return LT_T_async_slice;
    default:
        return -1;
    }
}
#else
typedef int lt_sql_cells_unused; /* built without SQLite */
#endif
