# Builds the exported kevo kernel as a PyTorch extension: pip install . (or python setup.py build_ext --inplace).
# TORCH_CUDA_ARCH_LIST picks the GPUs to build for, e.g. TORCH_CUDA_ARCH_LIST=9.0 for an H100; by default, the
# GPUs of this machine. No fast-math flags: kevo judged the kernel as NVRTC compiles it, with none.
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="kevo_softmax",
    version="@@VERSION@@",
    description="@@DOC@@",
    ext_modules=[CUDAExtension("kevo_softmax", ["kevo_softmax_torch.cpp", "kevo_softmax.cu"],
                               extra_compile_args={"cxx": ["-O3"], "nvcc": ["-O3"]})],
    cmdclass={"build_ext": BuildExtension},
)
