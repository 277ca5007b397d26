# Builds the exported kevo kernels as PyTorch extensions for training: pip install . (or python setup.py build_ext
# --inplace). @@FP@@ is the forward, @@BP@@ its gradient; @@FP@@_autograd.py joins them in one
# torch.autograd.Function. Only host code is compiled: the kernels are the cubins kevo judged (*_cubin.h), loaded at
# run time on a GPU of their architecture; TORCH_CUDA_ARCH_LIST=9.0 (an H100) spares nvcc building for the others.
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="@@FP@@_training",
    version="@@VERSION@@",
    description="@@DOC@@",
    ext_modules=[CUDAExtension("@@FP@@", ["@@FP@@_torch.cpp", "@@FP@@.cu"],
                               extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3"]}),
                 CUDAExtension("@@BP@@", ["@@BP@@_torch.cpp", "@@BP@@.cu"],
                               extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3"]})],
    py_modules=["@@FP@@_autograd"],
    cmdclass={"build_ext": BuildExtension},
)
