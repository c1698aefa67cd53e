"""`charter eval ir` on a tiny BEIR folder built here, and the metrics against hand sums."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

from charter.eval.ir_metrics import ndcg_at, recall_at, trec_lines

CHARTER = Path(sys.executable).with_name("charter")

DOCS = {
    "d1": ("Solar panels", "Photovoltaic cells convert sunlight into electricity."),
    "d2": ("Wind turbines", "Turbine blades capture kinetic energy from moving air."),
    "d3": ("Coffee", "Roasted beans are brewed with hot water."),
    "d4": ("Batteries", "Lithium-ion cells store electrical energy chemically."),
    "d5": ("Tea", "Leaves of Camellia sinensis are steeped in hot water."),
}
QUERIES = {
    "q1": "how do solar cells make power",
    "q2": "brewing roasted coffee beans",
    "q3": "storing electricity in lithium batteries",
}
QRELS = {"q1": "d1", "q2": "d3", "q3": "d4"}


def _beir(root: Path) -> Path:
    data = root / "tiny"
    (data / "qrels").mkdir(parents=True)
    with open(data / "corpus.jsonl", "w") as handle:
        for doc_id, (title, text) in DOCS.items():
            handle.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    with open(data / "queries.jsonl", "w") as handle:
        for qid, text in QUERIES.items():
            handle.write(json.dumps({"_id": qid, "text": text}) + "\n")
    lines = ["query-id\tcorpus-id\tscore"] + [f"{q}\t{d}\t1" for q, d in QRELS.items()]
    (data / "qrels" / "test.tsv").write_text("\n".join(lines) + "\n")
    return data


def test_metrics_match_hand_computation() -> None:
    run = {"a": {"x": 3.0, "y": 2.0, "z": 1.0}, "b": {"p": 2.0, "q": 1.0}}
    qrels = {"a": {"y": 1}, "b": {"r": 1, "q": 1}}
    expected_a = 1 / math.log2(3)
    expected_b = (1 / math.log2(3)) / (1 + 1 / math.log2(3))
    assert math.isclose(ndcg_at(run, qrels, 10), (expected_a + expected_b) / 2)
    assert math.isclose(recall_at(run, qrels, 100), (1 + 0.5) / 2)
    assert trec_lines(run)[0] == "a Q0 x 1 3.000000 charter"


def test_eval_ir_cli_runs_from_any_directory(tmp_path: Path) -> None:
    data = _beir(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run_file = tmp_path / "run.trec"
    done = subprocess.run(
        [str(CHARTER), "eval", "ir", "--data", str(data), "--json", "--run-out", str(run_file)],
        capture_output=True,
        text=True,
        cwd=elsewhere,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["queries"] == 3 and result["documents"] == 5
    assert result["ndcg@10"] == 1.0  # each query has one obvious answer
    assert result["recall@100"] == 1.0
    lines = run_file.read_text().splitlines()
    first = lines[0].split()
    assert len(first) == 6 and first[1] == "Q0" and first[3] == "1"
    assert {line.split()[0] for line in lines} == {"q1", "q2", "q3"}
    assert not (elsewhere / ".charter").exists()  # the index was temporary


def test_eval_ir_bad_folder_is_one_line_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(CHARTER), "eval", "ir", "--data", str(tmp_path)], capture_output=True, text=True
    )
    assert done.returncode != 0 and "no corpus.jsonl" in done.stderr
    assert "Traceback" not in done.stderr
