"""Kinds of files both the graph and search read as text, named once.

Search lists them among its default code extensions (``search.index.code_extensions``,
which a user may change) and the graph among the suffixes it reads as text: a file
type added for one and forgotten in the other left a project's kernels or build files
unsearchable or wordless in the graph.
"""

from __future__ import annotations

#: Typeset documents: LaTeX sources, a thesis's or a paper's chapters. Prose, with a
#: paragraph often on one line: search indexes them as text and the graph weighs them as
#: documents.
TYPESET = (".tex", ".ltx")
#: What a typeset document is built with: its bibliography, packages and class. Read as
#: words by the graph ("cite the 2019 survey" is a change to the ``.bib``); not indexed by
#: default, since a bibliography of thousands of entries would crowd a search.
TYPESET_SUPPORT = (".bib", ".sty", ".cls")
#: Sources of more languages, read as words (no parser): Fortran (free and fixed form),
#: Emacs Lisp, Common Lisp, Scheme and Racket, Crystal, Ada, Visual Basic, Tcl, Awk,
#: Haxe, Odin, COBOL, PureScript, Lean, Raku, Vala, fish and PowerShell modules. A
#: project in one had none of its code searchable and all of it weighed as documents.
MORE_LANGUAGES = (
    ".f90",
    ".f95",
    ".f03",
    ".f08",
    ".f",
    ".for",
    ".el",
    ".lisp",
    ".lsp",
    ".scm",
    ".ss",
    ".rkt",
    ".cr",
    ".adb",
    ".ads",
    ".vb",
    ".vbs",
    ".bas",
    ".tcl",
    ".awk",
    ".hx",
    ".odin",
    ".cob",
    ".cbl",
    ".purs",
    ".lean",
    ".raku",
    ".rakumod",
    ".vala",
    ".fish",
    ".psm1",
)
#: GPU kernels and shaders: OpenCL C, Metal, GLSL, HLSL, WGSL (CUDA is parsed as C++)
#: Hardware description sources: Verilog, SystemVerilog (and their headers) and VHDL.
HARDWARE_DESCRIPTION = (".v", ".vh", ".sv", ".svh", ".vhd", ".vhdl")

SHADERS = (".cl", ".metal", ".glsl", ".hlsl", ".wgsl", ".vert", ".frag", ".comp")
#: GN and GYP build files, Mojo and Web IDL interface definitions (Chromium-based apps)
#: Gradle's Groovy scripts, Bazel's Starlark, CMake modules, Jsonnet and CUE configuration
#: as well (a build is changed there as often as in the code).
BUILD_AND_INTERFACES = (
    ".gn",
    ".gni",
    ".gyp",
    ".gypi",
    ".mojom",
    ".idl",
    ".gradle",
    ".bzl",
    ".star",
    ".cmake",
    ".jsonnet",
    ".libsonnet",
    ".cue",
)
#: Page and component templates: plain HTML (Angular, Django), ERB, Haml and Slim (Rails),
#: EEx/HEEx (Phoenix), Jinja and Nunjucks, Handlebars and Mustache, EJS, Twig, Liquid,
#: Pug, Astro, Go's html/template, and Vue and Svelte single-file components. A task
#: names what a page shows ("the invoice page's total"), and the template is where that
#: is written.
TEMPLATES = (
    ".html",
    ".htm",
    ".erb",
    ".haml",
    ".slim",
    ".eex",
    ".heex",
    ".leex",
    ".jinja",
    ".jinja2",
    ".j2",
    ".njk",
    ".hbs",
    ".handlebars",
    ".mustache",
    ".ejs",
    ".twig",
    ".liquid",
    ".pug",
    ".astro",
    ".gohtml",
    ".tmpl",
    ".vue",
    ".svelte",
)
#: Sources of languages the graph reads as words only (no parser): R, OCaml, Haskell,
#: Erlang, Julia, Clojure, F#, Nim, Perl, Groovy, Nextflow, GDScript, Object Pascal (Delphi's and
#: Free Pascal's units, programs and packages) and the hardware description languages
#: (Verilog, SystemVerilog, VHDL). They are the project's
#: code, so task context weighs them as source files, not as documents (as templates).
SOURCES_READ_AS_TEXT = (
    ".r",
    ".ml",
    ".mli",
    ".hs",
    ".erl",
    ".jl",
    ".clj",
    ".cljs",
    ".cljc",
    ".fs",
    ".nim",
    ".pl",
    ".pm",
    ".groovy",
    ".nf",
    ".gd",
    ".pas",
    ".pp",
    ".dpr",
    ".dpk",
    ".lpr",
    *HARDWARE_DESCRIPTION,
    *MORE_LANGUAGES,
)
