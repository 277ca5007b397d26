# Builds the exported kevo kernel as a PyTorch extension: pip install . (or python setup.py build_ext --inplace).
# Only host code is compiled: the kernels are the cubin kevo judged (@@P@@_cubin.h), loaded at run time on a GPU of its
# architecture; TORCH_CUDA_ARCH_LIST=9.0 (an H100) just spares nvcc building for the others.
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="@@P@@",
    version="@@VERSION@@",
    description="@@DOC@@",
    ext_modules=[CUDAExtension("@@P@@", ["@@P@@_torch.cpp", "@@P@@.cu"],
                               extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3"]})],
    cmdclass={"build_ext": BuildExtension},
)
