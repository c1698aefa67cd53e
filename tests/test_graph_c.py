"""C and C++ in the graph: functions, prototypes, types and macros, includes resolved to
project files (beside the includer or under an include folder), C++ classes with access
and out-of-line methods, headers read as C++ when they are, tests by folder, ranking."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from charter.config import Project
from charter.graph import extract_c
from charter.graph.build import build_graph
from charter.graph.resolve import Resolver
from tests.conftest import (
    symbol_spans,
    task_context_paths,
    write,
)

PUBLIC_H = """#ifndef RING_H
#define RING_H
#include <stddef.h>

#define RING_MAX_SLOTS 64
#define RING_EMPTY(r) ((r)->head == (r)->tail)

typedef struct ring_s ring_t;
typedef void (*ring_cb)(ring_t* ring, int status);

typedef enum {
  RING_OK = 0,
  RING_FULL
} ring_status;

struct ring_s {
  size_t head;
  size_t tail;
  void* slots[RING_MAX_SLOTS];
};

RING_EXTERN int ring_push(ring_t* ring, void* item);
int ring_drain(ring_t* ring, ring_cb cb);

#endif
"""
INTERNAL_H = """#ifndef RING_INTERNAL_H
#define RING_INTERNAL_H
#include "ring.h"

int ring__grow(ring_t* ring);

#endif
"""
RING_C = """#include "internal.h"
#include <stdlib.h>

static int ring__slot(const ring_t* ring, size_t i) {
  return (int) ((ring->head + i) % RING_MAX_SLOTS);
}

int ring_push(ring_t* ring, void* item) {
  if (ring__grow(ring) != 0)
    return RING_FULL;
  ring->slots[ring__slot(ring, 0)] = item;
  return RING_OK;
}

int ring_drain(ring_t* ring, ring_cb cb) {
  while (!RING_EMPTY(ring))
    ring->tail++;
  cb(ring, 0);
  return 0;
}
"""
GROW_C = """#include "internal.h"

int ring__grow(ring_t* ring) {
  return ring->head - ring->tail >= RING_MAX_SLOTS;
}
"""
TEST_C = """#include "ring.h"

int test_ring_push(void) {
  ring_t ring = {0};
  return ring_push(&ring, 0);
}
"""
TABLE_H = """#pragma once
#include <string>

namespace store {

class Table {
 public:
  explicit Table(std::string name);
  Status Get(const std::string& key, std::string* value) const;
  template <typename T> void Visit(T fn) { fn(name_); }

 private:
  void Compact();
  std::string name_;
};

struct Options {
  int block_size = 4096;
};

}  // namespace store
"""
TABLE_CC = """#include "store/table.h"

namespace store {

Table::Table(std::string name) : name_(std::move(name)) {}

Status Table::Get(const std::string& key, std::string* value) const {
  Compact();
  return Status::OK();
}

void Table::Compact() { cache_.Evict(); }

}  // namespace store
"""


def make_c_project(root: Path) -> None:
    write(root, "include/ring.h", PUBLIC_H)
    write(root, "src/internal.h", INTERNAL_H)
    write(root, "src/ring.c", RING_C)
    write(root, "src/grow.c", GROW_C)
    write(root, "test/test-ring.c", TEST_C)
    write(root, "include/store/table.h", TABLE_H)
    write(root, "src/table.cc", TABLE_CC)


def test_c_functions_prototypes_types_and_macros() -> None:
    header = extract_c.extract(PUBLIC_H.encode(), "c", header=True)
    assert header["language"] == "c"
    assert symbol_spans(header) == {
        "RING_MAX_SLOTS": ("macro", 5, True),
        "RING_EMPTY": ("macro", 6, True),  # the include guard defines nothing
        "ring_t": ("type", 8, True),
        "ring_cb": ("type", 9, True),
        "ring_status": ("enum", 11, True),  # an anonymous enum named by its typedef
        "ring_s": ("struct", 16, True),
        "ring_push": ("function", 22, True),  # a prototype behind an export macro
        "ring_drain": ("function", 23, True),
    }
    source = extract_c.extract(RING_C.encode(), "c")
    assert symbol_spans(source) == {
        "ring__slot": ("function", 4, False),  # static: not exported
        "ring_push": ("function", 8, True),
        "ring_drain": ("function", 15, True),
    }
    assert [(i["module"], i["system"]) for i in source["imports"]] == [
        ("internal.h", False),
        ("stdlib.h", True),
    ]
    assert {"ring__grow", "ring__slot", "cb"} <= set(source["calls"])
    assert "ring_t" in source["refs"]


def test_cpp_classes_access_and_out_of_line_methods() -> None:
    header = extract_c.extract(TABLE_H.encode(), "c", header=True)
    assert header["language"] == "cpp"  # the C grammar fails on it, C++ does not
    assert symbol_spans(header) == {
        "Table": ("class", 6, True),
        "Table.Table": ("method", 8, True),
        "Table.Get": ("method", 9, True),
        "Table.Visit": ("method", 10, True),  # a member template
        "Table.Compact": ("method", 13, False),  # under private:
        "Options": ("struct", 17, True),
    }
    source = extract_c.extract(TABLE_CC.encode(), "cpp")
    assert symbol_spans(source) == {
        "Table.Table": ("method", 5, True),
        "Table.Get": ("method", 7, True),
        "Table.Compact": ("method", 12, True),
    }
    assert {"Compact", "OK", "Evict"} <= set(source["calls"])
    assert {"Status", "Table"} <= set(source["refs"])


def test_includes_resolve_beside_the_includer_then_by_path_tail() -> None:
    files = ["include/ring.h", "src/internal.h", "src/ring.c", "src/win/internal.h", "x.h"]
    resolver = Resolver(files)
    assert resolver.c("src/ring.c", "internal.h", False) == ["src/internal.h"]
    assert resolver.c("src/internal.h", "ring.h", False) == ["include/ring.h"]
    assert resolver.c("src/ring.c", "ring.h", True) == ["include/ring.h"]  # <ring.h>
    assert resolver.c("src/ring.c", "stdio.h", True) == []  # the system's header
    # two headers of that name: the one sharing most folders with the includer
    assert resolver.c("src/win/core.c", "internal.h", True) == ["src/win/internal.h"]
    assert resolver.c("src/ring.c", "../x.h", False) == ["x.h"]


def test_c_graph_links_includes_calls_and_tests(repo: Path) -> None:
    make_c_project(repo)
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    assert graph.nodes["src:src/ring.c"].attrs["language"] == "c"
    assert graph.nodes["src:include/store/table.h"].attrs["language"] == "cpp"
    assert ("src:src/ring.c", "src:src/internal.h", "imports") in edges
    assert ("src:src/internal.h", "src:include/ring.h", "imports") in edges
    assert ("src:src/table.cc", "src:include/store/table.h", "imports") in edges
    # a call to a function the included header declares lands on that declaration
    assert ("src:src/ring.c", "sym:src/internal.h#ring__grow", "calls") in edges
    assert ("src:test/test-ring.c", "src:include/ring.h", "tests") in edges
    assert graph.nodes["src:test/test-ring.c"].attrs["test"]
    notes = [n.attrs.get("note") for n in graph.nodes.values() if n.type == "source"]
    assert not any(notes), notes  # an export macro's recoverable error is no note


def test_task_context_names_the_file_defining_a_c_function(
    repo: Path, run_charter: Callable[..., Any]
) -> None:
    make_c_project(repo)
    paths = task_context_paths(run_charter, repo, "ring__grow overflows when the ring is full")
    assert paths[0] == "src/grow.c"


KERNEL_CU = """#include "ring.h"

__global__ void scale_kernel(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

void launch_scale(float* x, int n, cudaStream_t stream) {
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, n);
}
"""


def test_cuda_kernels_and_shaders_are_read(repo: Path) -> None:
    """A GPU project's kernels were left with no words at all (``.cu`` was no known
    type): CUDA is read as C++, shaders as text, and search indexes both."""
    from charter.search.settings import SearchSettings

    write(repo, "include/ring.h", PUBLIC_H)
    write(repo, "src/scale.cu", KERNEL_CU)
    write(repo, "src/shaders/scale.comp", "#version 450\nvoid main() { scale_values(); }\n")
    graph = build_graph(Project.load(repo))
    assert graph.nodes["src:src/scale.cu"].attrs["language"] == "cpp"
    assert "sym:src/scale.cu#launch_scale" in graph.nodes
    assert "scale_values" in graph.records["src/shaders/scale.comp"]["tf"]
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    assert ("src:src/scale.cu", "src:include/ring.h", "imports") in edges
    code = SearchSettings().index.code_extensions
    assert {".cu", ".comp", ".gn", ".mojom"} <= set(code)
    write(repo, "shell/BUILD.gn", 'source_set("browser") {\n  sources = [ "scale.cu" ]\n}\n')
    graph = build_graph(Project.load(repo))
    assert "source_set" in graph.records["shell/BUILD.gn"]["tf"]


def test_a_forward_declaration_and_its_body_are_one_symbol() -> None:
    """A static function declared at the top and defined below gave one id twice: the
    graph kept one node but counted the name as defined twice, so calls to it from other
    files never linked by name. One symbol, spanning the body."""
    source = extract_c.extract(
        b"static int grow(int n);\n\nint push(int n) { return grow(n); }\n\n"
        b"static int grow(int n) {\n  return n * 2;\n}\n",
        "c",
    )
    assert symbol_spans(source) == {"grow": ("function", 5, False), "push": ("function", 3, True)}


CACHE_H = """#import <Foundation/Foundation.h>

NS_ASSUME_NONNULL_BEGIN

@interface RingCache : NSObject
@property (nonatomic, strong) NSString *name;
- (void)storeValue:(id)value forKey:(NSString *)key;
+ (instancetype)sharedCache NS_SWIFT_NAME(shared());
@end

NS_ASSUME_NONNULL_END
"""
CACHE_M = """#import "RingCache.h"

@implementation RingCache
- (void)storeValue:(id)value forKey:(NSString *)key {
    [self.memory setObject:value forKey:key];
}
+ (instancetype)sharedCache {
    return [[RingCache alloc] init];
}
@end
"""


def test_objective_c_classes_methods_and_messages(repo: Path) -> None:
    """Objective-C was text: a header's ``@interface`` (behind annotation macros no
    grammar expands) and a ``.m`` file's ``@implementation`` now give the class and its
    methods by the selector's first part; messages are calls; a MATLAB ``.m`` stays text."""
    header = extract_c.extract(CACHE_H.encode(), "c", header=True)
    assert header["language"] == "objc"
    assert symbol_spans(header) == {
        "RingCache": ("class", 5, True),
        "RingCache.name": ("method", 6, True),
        "RingCache.storeValue": ("method", 7, True),
        "RingCache.sharedCache": ("method", 8, True),
    }
    source = extract_c.extract(CACHE_M.encode(), "objc")
    assert {"RingCache.storeValue", "RingCache.sharedCache"} <= set(symbol_spans(source))
    assert {"setObject", "alloc", "init"} <= set(source["calls"])
    assert "RingCache" in source["refs"]
    write(repo, "Sources/RingCache.h", CACHE_H)
    write(repo, "Sources/RingCache.m", CACHE_M)
    write(repo, "analysis/fit_curve.m", "function y = fit_curve(x)\n  y = polyfit(x, 2);\nend\n")
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    assert ("src:Sources/RingCache.m", "src:Sources/RingCache.h", "imports") in edges
    assert graph.nodes["src:Sources/RingCache.m"].attrs["language"] == "objc"
    assert graph.nodes["src:analysis/fit_curve.m"].attrs["language"] == "text"
    assert "polyfit" in graph.records["analysis/fit_curve.m"]["tf"]
