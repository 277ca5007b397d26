// This campaign's baseline is built into kevo, not a kernel file: cuDNN 9.14.0's cudnnSoftmaxForward (CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL) from /usr/lib/x86_64-linux-gnu/libcudnn.so.9.
// campaign.yaml records it under baseline_choice.
