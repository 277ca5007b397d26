// What both examples begin with: the C API, x's type, kevo's mask kinds, and the conversions the host reference
// reads x through (the lowest finite value of x's type, torch.finfo(dtype).min, as the harness's kv_lowest gives it).
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include "@@P@@.h"

#ifndef KEVO_INF
#define KEVO_INF INFINITY
#endif
typedef @@IN_T@@ KEVO_X;
@@MASK_DEFINES@@[[maybe_unused]] static inline float kevo_to_float(float v) { return v; }
#ifdef __CUDA_BF16_TYPES_EXIST__
[[maybe_unused]] static inline float kevo_to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
#endif
#ifdef __CUDA_FP16_TYPES_EXIST__
[[maybe_unused]] static inline float kevo_to_float(__half v) { return __half2float(v); }
#endif
[[maybe_unused]] static inline float kv_lowest(KEVO_X) { return @@LOWEST@@; }
