"""The project graph, the contract capsule and task context (seed 001); see graph.api."""
