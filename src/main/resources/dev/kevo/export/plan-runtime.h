// kevo plan arithmetic: what kevo's plan expressions mean, in host C++ with no CUDA.
// kevo computes exactly (arbitrary precision); this computes in 64-bit integers and fails, instead of wrapping,
// where a value leaves them. Division and remainder truncate like C; cdiv is ceiling division; a zero divisor
// fails, as in kevo. Both sides of && and || are evaluated, as in kevo, so a failure on either side fails the
// expression. A failure is recorded in the context (the first one wins) and every later value is ignored.
#ifndef KEVO_PLAN_RUNTIME_H
#define KEVO_PLAN_RUNTIME_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct kevo_plan_ctx {
    int64_t rows, cols, sms;
    const char* failure;
    const char* knobs;  /* ", NAME=value" for each integer knob, as kevo's messages list them; "" for none */
    /* The attention layout (Expr.Env): a plain shape is one batch entry of one head whose queries are its rows,
       masked by nothing (mask_kind 0). */
    int64_t batch, heads, queries, mask_kind;
    char env[256];  /* the values as kevo's messages list them, written by kevo_env */
} kevo_plan_ctx;

/* The values an expression was evaluated with, as Expr.Env writes them: rows, cols and sms, the attention layout
   where it is not a plain shape's, then the knobs. */
static inline const char* kevo_env(kevo_plan_ctx* c) {
    int used = snprintf(c->env, sizeof c->env, "rows=%lld, cols=%lld, sms=%lld", (long long)c->rows,
                        (long long)c->cols, (long long)c->sms);
    if (used > 0 && (size_t)used < sizeof c->env
        && (c->batch != 1 || c->heads != 1 || c->queries != c->rows || c->mask_kind != 0)) {
        used += snprintf(c->env + used, sizeof c->env - (size_t)used, ", batch=%lld, heads=%lld, queries=%lld, "
                         "mask_kind=%lld", (long long)c->batch, (long long)c->heads, (long long)c->queries,
                         (long long)c->mask_kind);
    }
    if (used > 0 && (size_t)used < sizeof c->env) snprintf(c->env + used, sizeof c->env - (size_t)used, "%s", c->knobs);
    return c->env;
}

static inline int64_t kevo_fail(kevo_plan_ctx* c, const char* why) {
    if (!c->failure) c->failure = why;
    return 0;
}

static inline int64_t kevo_add(kevo_plan_ctx* c, int64_t a, int64_t b) {
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return kevo_fail(c, "'+' leaves 64-bit integers");
    return a + b;
}

static inline int64_t kevo_sub(kevo_plan_ctx* c, int64_t a, int64_t b) {
    if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) return kevo_fail(c, "'-' leaves 64-bit integers");
    return a - b;
}

static inline int64_t kevo_mul(kevo_plan_ctx* c, int64_t a, int64_t b) {
    if (a != 0 && b != 0) {
        int over = a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
                         : (b > 0 ? a < INT64_MIN / b : a < INT64_MAX / b);
        if (over) return kevo_fail(c, "'*' leaves 64-bit integers");
    }
    return a * b;
}

static inline int64_t kevo_neg(kevo_plan_ctx* c, int64_t a) {
    if (a == INT64_MIN) return kevo_fail(c, "'-' leaves 64-bit integers");
    return -a;
}

static inline int64_t kevo_div(kevo_plan_ctx* c, int64_t a, int64_t b) {
    if (b == 0) return kevo_fail(c, "division by zero");
    if (a == INT64_MIN && b == -1) return kevo_fail(c, "'/' leaves 64-bit integers");
    return a / b;
}

static inline int64_t kevo_mod(kevo_plan_ctx* c, int64_t a, int64_t b) {
    if (b == 0) return kevo_fail(c, "division by zero");
    if (b == -1) return 0;  /* INT64_MIN % -1 is undefined in C; its value is 0 */
    return a % b;
}

static inline int64_t kevo_cdiv(kevo_plan_ctx* c, int64_t a, int64_t b) {
    if (b == 0) return kevo_fail(c, "division by zero");
    if (a == INT64_MIN && b == -1) return kevo_fail(c, "cdiv leaves 64-bit integers");
    int64_t q = a / b, r = a % b;
    return r != 0 && ((r > 0) == (b > 0)) ? q + 1 : q;
}

static inline int64_t kevo_min(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t kevo_max(int64_t a, int64_t b) { return a > b ? a : b; }
static inline bool kevo_and(bool a, bool b) { return a && b; }
static inline bool kevo_or(bool a, bool b) { return a || b; }

/* Stores an evaluated value if the evaluation succeeded and the value lies in [lo, hi]; else writes why into err. */
static inline bool kevo_bounded(kevo_plan_ctx* c, int64_t value, int64_t lo, int64_t hi, int64_t* out,
                                const char* what, const char* text, char* err, size_t n) {
    if (c->failure) {
        snprintf(err, n, "%s: '%s' at %s: %s", what, text, kevo_env(c), c->failure);
        return false;
    }
    if (value < lo || value > hi) {
        snprintf(err, n, "%s: '%s' = %lld at %s, outside [%lld, %lld]", what, text, (long long)value,
                 kevo_env(c), (long long)lo, (long long)hi);
        return false;
    }
    *out = value;
    return true;
}

/* PlanResolver's rules for a launch in thread-block clusters: the grid a multiple of the cluster, and a launch
   cooperative or clustered, not both. */
static inline bool kevo_cluster_rules(kevo_plan_ctx* c, int grid, int cluster, bool cooperative, const char* what,
                                      char* err, size_t n) {
    if (grid % cluster != 0) {
        snprintf(err, n, "%s: grid %d is not a multiple of cluster %d at %s (a cluster is that many consecutive "
                 "blocks)", what, grid, cluster, kevo_env(c));
        return false;
    }
    if (cluster > 1 && cooperative) {
        snprintf(err, n, "%s: a launch is cooperative or clustered, not both (cluster %d at %s)", what, cluster,
                 kevo_env(c));
        return false;
    }
    return true;
}

static inline bool kevo_condition(kevo_plan_ctx* c, bool value, bool* out, const char* what, const char* text,
                                  char* err, size_t n) {
    if (c->failure) {
        snprintf(err, n, "%s: '%s' at %s: %s", what, text, kevo_env(c), c->failure);
        return false;
    }
    *out = value;
    return true;
}
#endif
