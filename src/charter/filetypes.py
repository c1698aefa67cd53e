"""Kinds of files both the graph and search read as text, named once.

Search lists them among its default code extensions (``search.index.code_extensions``,
which a user may change) and the graph among the suffixes it reads as text: a file
type added for one and forgotten in the other left a project's kernels or build files
unsearchable or wordless in the graph.
"""

from __future__ import annotations

#: GPU kernels and shaders: OpenCL C, Metal, GLSL, HLSL, WGSL (CUDA is parsed as C++)
SHADERS = (".cl", ".metal", ".glsl", ".hlsl", ".wgsl", ".vert", ".frag", ".comp")
#: GN and GYP build files, Mojo and Web IDL interface definitions (Chromium-based apps)
BUILD_AND_INTERFACES = (".gn", ".gni", ".gyp", ".gypi", ".mojom", ".idl")
