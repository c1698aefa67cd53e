"""Protocol Buffers in the graph: messages, enums and services named by package and
nesting (``acme.jobs.v1.Job.State``), rpcs as ``Service.Method``, ``import`` resolved
beside the importer or under an include root, and field and rpc types resolved by
protoc's scope rules to the file defining them (ranking is in
``tests/test_graph_grammars.py``)."""

from __future__ import annotations

from pathlib import Path

from charter.config import Project
from charter.graph import extract_proto
from charter.graph.build import build_graph
from tests.conftest import symbol_spans, write

JOBS_PROTO = """syntax = "proto3";

// A comment naming message Fake {} is no message.
package acme.jobs.v1;

import "google/protobuf/timestamp.proto";
import "acme/common/v1/page.proto";

option go_package = "example.com/acme/jobs/v1;jobsv1";
option (acme.meta) = { owner: "jobs" labels { key: "tier" } };

/* message Hidden {} */
message Job {
  message State {
    enum Kind { KIND_UNSPECIFIED = 0; KIND_RUNNING = 1; }
    Kind kind = 1;
  }
  string id = 1;
  State state = 2 [(validate.rules).message.required = true];
  map<string, acme.common.v1.Label> labels = 3;
  google.protobuf.Timestamp created_at = 4;
  oneof target {
    Retry retry = 5;
    .acme.common.v1.Page page = 6;
  }
  reserved 7, 8;
  reserved "legacy";
}

message Retry {
  int32 attempts = 1;
  Job.State.Kind on_kind = 2;
}

service JobService {
  option (acme.service) = "jobs";
  rpc CreateJob(CreateJobRequest) returns (Job) {
    option (google.api.http) = { post: "/v1/jobs" body: "*" };
  }
  rpc WatchJobs(stream WatchJobsRequest) returns (stream Job);
}

message CreateJobRequest { Job job = 1; acme.common.v1.Page page = 2; }
message WatchJobsRequest {}
"""
PAGE_PROTO = """syntax = "proto3";
package acme.common.v1;

message Page { int32 size = 1; string token = 2; }
message Label { string value = 1; }
"""
LEGACY_PROTO = """syntax = "proto2";
package acme.legacy;

import "page.proto";

message SearchResponse {
  repeated group Result = 1 {
    required string url = 2;
    optional Page page = 3;
  }
  extensions 100 to 199;
}

extend SearchResponse {
  optional int32 score = 100;
}
"""
#: a file that says a task's words and uses the job message (ranking)
AUDIT_PROTO = """syntax = "proto3";
package acme.jobs.v1;

import "acme/jobs/v1/jobs.proto";

// audit of JobService.CreateJob: should keep the retry of retried jobs
// (each retried job's retry is kept for the audit)
message AuditEntry { Job job = 1; Retry retry = 2; }
"""


def make_proto_project(root: Path) -> None:
    write(root, "proto/acme/jobs/v1/jobs.proto", JOBS_PROTO)
    write(root, "proto/acme/common/v1/page.proto", PAGE_PROTO)
    write(root, "proto/acme/legacy/legacy.proto", LEGACY_PROTO)
    write(root, "proto/acme/legacy/page.proto", "syntax = 'proto2';\npackage acme.legacy;\n")
    # a vendored copy of the common protos elsewhere: the importer's own tree wins
    write(root, "third_party/acme/common/v1/page.proto", PAGE_PROTO)


def test_proto_types_and_rpcs_are_symbols_named_by_package_and_nesting() -> None:
    out = extract_proto.extract(JOBS_PROTO.encode())
    assert out["proto_package"] == "acme.jobs.v1"
    assert symbol_spans(out) == {
        "acme.jobs.v1.Job": ("class", 13, True),
        "acme.jobs.v1.Job.State": ("class", 14, True),
        "acme.jobs.v1.Job.State.Kind": ("enum", 15, True),
        "acme.jobs.v1.Retry": ("class", 30, True),
        "acme.jobs.v1.JobService": ("interface", 35, True),
        "acme.jobs.v1.JobService.CreateJob": ("method", 37, True),
        "acme.jobs.v1.JobService.WatchJobs": ("method", 40, True),
        "acme.jobs.v1.CreateJobRequest": ("class", 43, True),
        "acme.jobs.v1.WatchJobsRequest": ("class", 44, True),
    }
    spans = {s["qualname"]: (s["line_start"], s["line_end"]) for s in out["symbols"]}
    assert spans["acme.jobs.v1.Job"] == (13, 28)
    assert spans["acme.jobs.v1.JobService.CreateJob"] == (37, 39)
    # the name a task and generated code write for it
    assert {s["name"] for s in out["symbols"]} >= {"Job", "State", "CreateJob"}
    assert [i["module"] for i in out["imports"]] == [
        "google/protobuf/timestamp.proto",
        "acme/common/v1/page.proto",
    ]
    # each type used, with the scope it was written in; scalars are no types
    refs = {tuple(r) for r in out["type_refs"]}
    assert {
        ("acme.jobs.v1.Job", "State"),
        ("acme.jobs.v1.Job", "acme.common.v1.Label"),  # a map's value
        ("acme.jobs.v1.Job", "Retry"),  # inside a oneof
        ("acme.jobs.v1.Job", ".acme.common.v1.Page"),  # fully qualified
        ("acme.jobs.v1.Job.State", "Kind"),
        ("acme.jobs.v1.Retry", "Job.State.Kind"),
        ("acme.jobs.v1", "CreateJobRequest"),  # an rpc's request and response
        ("acme.jobs.v1", "WatchJobsRequest"),
        ("acme.jobs.v1", "Job"),
    } <= refs
    assert not any(name in ("string", "int32", "Fake", "Hidden") for _, name in refs)
    assert out["parse_errors"] is False


def test_proto2_groups_and_extend_and_broken_input() -> None:
    out = extract_proto.extract(LEGACY_PROTO.encode())
    assert set(symbol_spans(out)) == {
        "acme.legacy.SearchResponse",
        "acme.legacy.SearchResponse.Result",
    }
    refs = {tuple(r) for r in out["type_refs"]}
    assert ("acme.legacy.SearchResponse.Result", "Page") in refs
    assert ("acme.legacy", "SearchResponse") in refs  # what ``extend`` extends
    # an unclosed message keeps what was read before it and says it had errors
    broken = extract_proto.extract(b"package a;\nmessage Ok {}\nmessage Broken {\n  int32 x = \n")
    assert set(symbol_spans(broken)) == {"a.Ok", "a.Broken"}
    assert broken["parse_errors"] is True


def test_proto_imports_and_type_uses_resolve_across_files(repo: Path) -> None:
    make_proto_project(repo)
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    jobs = "src:proto/acme/jobs/v1/jobs.proto"
    assert graph.nodes[jobs].attrs["language"] == "proto"
    # ``import`` under the include root, not the vendored copy; a library's is no file
    assert (jobs, "src:proto/acme/common/v1/page.proto", "imports") in edges
    assert (jobs, "src:third_party/acme/common/v1/page.proto", "imports") not in edges
    assert sum(1 for s, _, r in edges if s == jobs and r == "imports") == 1
    # a type of another file, by its package-qualified name
    page = "sym:proto/acme/common/v1/page.proto#acme.common.v1"
    assert (jobs, f"{page}.Page", "references") in edges
    assert (jobs, f"{page}.Label", "references") in edges
    # a nested message hangs under the message declaring it; an rpc under its service
    assert (
        "sym:proto/acme/jobs/v1/jobs.proto#acme.jobs.v1.Job",
        "sym:proto/acme/jobs/v1/jobs.proto#acme.jobs.v1.Job.State",
        "defines",
    ) in edges
    assert (
        "sym:proto/acme/jobs/v1/jobs.proto#acme.jobs.v1.JobService",
        "sym:proto/acme/jobs/v1/jobs.proto#acme.jobs.v1.JobService.CreateJob",
        "defines",
    ) in edges
    # ``import "page.proto"`` beside the importer; ``Page`` inside package acme.legacy is
    # resolved innermost scope first: there is no acme.legacy.Page, so it is no edge to
    # the other package's Page written without its package
    legacy = "src:proto/acme/legacy/legacy.proto"
    assert (legacy, "src:proto/acme/legacy/page.proto", "imports") in edges
    assert not any(s == legacy and r == "references" for s, _, r in edges)


def test_proto_scope_resolution_prefers_the_innermost_definition(repo: Path) -> None:
    write(
        repo,
        "api/a.proto",
        "package acme;\nmessage Config {}\nmessage Outer {\n  message Config {}\n"
        "  Config inner = 1;\n}\nmessage User { Config c = 1; Outer.Config oc = 2; }\n",
    )
    write(
        repo, "api/b.proto", 'package acme.sub;\nimport "a.proto";\nmessage B { Config c = 1; }\n'
    )
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    # ``Config`` in package acme.sub is acme.Config, found one scope out
    assert ("src:api/b.proto", "sym:api/a.proto#acme.Config", "references") in edges
    assert ("src:api/b.proto", "sym:api/a.proto#acme.Outer.Config", "references") not in edges
