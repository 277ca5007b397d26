// @@P@@.h: the host API of an exported kevo kernel (CUDA runtime API). See README.md.
#pragma once
#include <stddef.h>
#include <cuda_runtime_api.h>
@@TYPE_INCLUDES@@
#ifdef __cplusplus
extern "C" {
#endif

/* @@DEFINITION@@,
   on the current device, queued on stream.
   @@TENSOR_LIST@@ must be device pointers, 16-byte aligned, and must not overlap; a tensor the shape's mask kind
   does not read may be null (the kernel gets null for it, as in kevo). Allocates the plan's workspace (if
   any) on the stream with cudaMallocAsync and frees it after the launches. Returns cudaSuccess, or an error with
   the reason in @@P@@_last_error(): a runtime float outside what kevo judged (not finite, or not positive where
   kevo judged positive values only), a shape no plan covers, a launch the device cannot run (a
   cooperative grid that cannot be resident at once is refused here, never launched to hang), a launch error. */
cudaError_t @@P@@(@@PARAMS@@, @@SHAPE_PARAMS@@, cudaStream_t stream);

/* Bytes of workspace the plan needs for the shape on the current device (0 for plans without one). */
cudaError_t @@P@@_workspace_size(@@SHAPE_PARAMS@@, size_t* bytes);

/* As @@P@@, with a workspace of workspace_bytes (at least what @@P@@_workspace_size
   says, 256-byte aligned) that the caller owns. Its contents are undefined at each call and need no clearing; it must not be used by
   anything else until the launches on stream are done. */
cudaError_t @@P@@_with_workspace(@@PARAMS@@, @@SHAPE_PARAMS@@,
    void* workspace, size_t workspace_bytes, cudaStream_t stream);

/* Why the last call on this thread failed, in one line ("" after a success). */
const char* @@P@@_last_error(void);

#ifdef __cplusplus
}
#endif
