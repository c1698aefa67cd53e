"""Terraform in the graph: blocks named by their addresses (``aws_s3_bucket.logs``,
``data.x.y``, ``module.vpc``, ``var.region``, ``local.tags``, ``output.arn``), variables
and outputs as a module's interface, a module block's local ``source`` as an import of
that folder's files, and references linking a folder's files to each other (ranking is
in ``tests/test_graph_grammars.py``)."""

from __future__ import annotations

from pathlib import Path

from charter.config import Project
from charter.graph import extract_hcl
from charter.graph.build import build_graph
from tests.conftest import symbol_spans, write

MAIN_TF = """module "network" {
  source     = "./modules/network"
  cidr_block = var.cidr_block
  tags       = local.tags
}

module "storage" {
  source    = "./modules/storage"
  subnet_id = module.network.private_subnet_id
}

module "dns" {
  source  = "terraform-aws-modules/route53/aws"
  version = "~> 3.0"
}

provider "aws" {
  region = var.region
}
"""
VARIABLES_TF = """variable "region" {
  type    = string
  default = "eu-west-1"
}

variable "cidr_block" {
  type = string
}
"""
LOCALS_TF = """locals {
  tags = {
    team = "platform"
  }
  name = "acme-${var.region}"
}
"""
OUTPUTS_TF = """output "bucket_arn" {
  value = module.storage.bucket_arn
}
"""
NETWORK_MAIN_TF = """resource "aws_vpc" "main" {
  cidr_block = var.cidr_block
  tags       = var.tags
}

resource "aws_subnet" "private" {
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet(var.cidr_block, 8, 1)
}
"""
NETWORK_IO_TF = """variable "cidr_block" {
  type = string
}

variable "tags" {
  type    = map(string)
  default = {}
}

output "private_subnet_id" {
  value = aws_subnet.private.id
}
"""
STORAGE_MAIN_TF = """data "aws_iam_policy_document" "logs" {
  statement {
    actions   = ["s3:PutObject"]
    resources = ["${aws_s3_bucket.logs.arn}/*"]
  }
}

resource "aws_s3_bucket" "logs" {
  bucket = "acme-logs"
}

resource "aws_s3_bucket_policy" "logs" {
  bucket = aws_s3_bucket.logs.id
  policy = data.aws_iam_policy_document.logs.json
}
"""
STORAGE_IO_TF = """variable "subnet_id" {
  type = string
}

output "bucket_arn" {
  value = aws_s3_bucket.logs.arn
}
"""
#: a file of the storage module that says a task's words and uses the bucket
LIFECYCLE_TF = """# expire old log objects of the logs bucket after ninety days
resource "aws_s3_bucket_lifecycle_configuration" "expire" {
  bucket = aws_s3_bucket.logs.id

  rule {
    id     = "expire-old-logs"
    status = "Enabled"
    expiration {
      days = 90
    }
  }
}
"""
TERRAGRUNT_HCL = """include "root" {
  path = find_in_parent_folders()
}

terraform {
  source = "../../../modules//storage"
}

dependency "network" {
  config_path = "../network"
}

inputs = {
  subnet_id = dependency.network.outputs.private_subnet_id
}
"""


def make_terraform_project(root: Path) -> None:
    write(root, "main.tf", MAIN_TF)
    write(root, "variables.tf", VARIABLES_TF)
    write(root, "locals.tf", LOCALS_TF)
    write(root, "outputs.tf", OUTPUTS_TF)
    write(root, "modules/network/main.tf", NETWORK_MAIN_TF)
    write(root, "modules/network/io.tf", NETWORK_IO_TF)
    write(root, "modules/storage/main.tf", STORAGE_MAIN_TF)
    write(root, "modules/storage/io.tf", STORAGE_IO_TF)


def test_terraform_blocks_are_symbols_named_by_their_addresses() -> None:
    main = extract_hcl.extract(MAIN_TF.encode(), "main.tf")
    assert symbol_spans(main) == {
        "module.network": ("module", 1, False),
        "module.storage": ("module", 7, False),
        "module.dns": ("module", 12, False),
        "provider.aws": ("module", 17, False),
    }
    # local sources are imports, with the arguments as the variables they set; a
    # registry source is no file
    assert main["imports"] == [
        {"module": "./modules/network", "names": ["var.cidr_block", "var.tags"], "level": 0},
        {"module": "./modules/storage", "names": ["var.subnet_id"], "level": 0},
    ]
    assert {"var.cidr_block", "local.tags", "module.network", "var.region"} <= set(main["refs"])
    storage = extract_hcl.extract(STORAGE_MAIN_TF.encode(), "modules/storage/main.tf")
    assert symbol_spans(storage) == {
        "data.aws_iam_policy_document": ("class", 1, False),
        "data.aws_iam_policy_document.logs": ("resource", 1, False),
        "aws_s3_bucket": ("class", 8, False),  # the resource type: what a task names
        "aws_s3_bucket.logs": ("resource", 8, False),
        "aws_s3_bucket_policy": ("class", 12, False),
        "aws_s3_bucket_policy.logs": ("resource", 12, False),
    }
    # a reference inside a string template counts; a data source's address has 3 parts
    assert {"aws_s3_bucket.logs", "data.aws_iam_policy_document.logs"} <= set(storage["refs"])
    # variables and outputs are the module's interface; locals are its own
    io = symbol_spans(extract_hcl.extract(STORAGE_IO_TF.encode(), "modules/storage/io.tf"))
    assert io == {
        "var.subnet_id": ("variable", 1, True),
        "output.bucket_arn": ("variable", 5, True),
    }
    locals_ = symbol_spans(extract_hcl.extract(LOCALS_TF.encode(), "locals.tf"))
    assert locals_ == {"local.tags": ("variable", 2, False), "local.name": ("variable", 5, False)}


def test_terragrunt_sources_and_dependencies_are_imports() -> None:
    out = extract_hcl.extract(TERRAGRUNT_HCL.encode(), "live/prod/storage/terragrunt.hcl")
    assert [i["module"] for i in out["imports"]] == ["../../../modules//storage", "../network"]
    assert all(not i["names"] for i in out["imports"])
    assert "dependency.network" in symbol_spans(out)
    assert "dependency.network" in out["refs"]
    # a provider lock file is no module
    lock = 'provider "registry.terraform.io/hashicorp/aws" {\n  version = "5.0.0"\n}\n'
    assert extract_hcl.extract(lock.encode(), ".terraform.lock.hcl")["symbols"] == []


def test_module_sources_resolve_to_folders_and_references_link_a_folder(repo: Path) -> None:
    make_terraform_project(repo)
    write(repo, "live/prod/storage/terragrunt.hcl", TERRAGRUNT_HCL)
    write(repo, "live/prod/network/terragrunt.hcl", 'terraform {\n  source = "../x"\n}\n')
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target, e.relation) for e in graph.edges}
    assert graph.nodes["src:main.tf"].attrs["language"] == "hcl"
    # a module block imports every file of its source folder
    for target in ("modules/network/main.tf", "modules/network/io.tf"):
        assert ("src:main.tf", f"src:{target}", "imports") in edges
    assert ("src:main.tf", "src:modules/storage/io.tf", "imports") in edges
    # the arguments it passes reference the called module's variables
    assert ("src:main.tf", "sym:modules/network/io.tf#var.tags", "references") in edges
    # a folder's files see each other's blocks without importing them
    assert ("src:main.tf", "sym:variables.tf#var.region", "references") in edges
    assert ("src:main.tf", "sym:locals.tf#local.tags", "references") in edges
    assert ("src:outputs.tf", "sym:main.tf#module.storage", "references") in edges
    assert (
        "src:modules/network/io.tf",
        "sym:modules/network/main.tf#aws_subnet.private",
        "references",
    ) in edges
    # ... but never another module's (the root's ``var.cidr_block`` is its own), but for
    # the variables a module block sets
    assert ("src:main.tf", "sym:modules/network/io.tf#var.cidr_block", "references") in edges
    assert ("src:variables.tf", "sym:modules/network/io.tf#var.cidr_block", "references") not in (
        edges
    )
    assert not any(
        s == "src:modules/storage/main.tf" and t.startswith("sym:modules/network/")
        for s, t, _ in edges
    )
    # a resource hangs under its type
    assert (
        "sym:modules/storage/main.tf#aws_s3_bucket",
        "sym:modules/storage/main.tf#aws_s3_bucket.logs",
        "defines",
    ) in edges
    # Terragrunt: ``terraform { source }`` (``//`` marks a subfolder) and ``config_path``
    live = "src:live/prod/storage/terragrunt.hcl"
    assert (live, "src:modules/storage/main.tf", "imports") in edges
    assert (live, "src:live/prod/network/terragrunt.hcl", "imports") in edges
    # a source outside the project is no file
    assert not any(
        s == "src:live/prod/network/terragrunt.hcl" for s, _, r in edges if r == "imports"
    )
