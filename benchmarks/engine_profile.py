"""Engine-only workload for profilers: N scripted 20-round CaSiNo negotiations (trivial agents).

Instruction counts are immune to a busy machine, so engine changes are compared with
`valgrind --tool=callgrind --callgrind-out-file=/dev/null .venv/bin/python benchmarks/engine_profile.py N`
for N = 0 and N = 200: (Ir(200) − Ir(0)) / 200 is the cost of one negotiation.
"""

from __future__ import annotations

import argparse

from parley.domain import Value
from parley.protocol.actions import Accept, Action, Propose
from parley.protocol.rules import Rules
from parley.protocol.session import Session
from parley.protocol.view import PartyView
from parley.scenarios import load_scenario


class _Scripted:
    """Proposes a fixed cycle of packages; accepts whatever is on the table in the last round."""

    def __init__(self, packages: list[dict[str, Value]]) -> None:
        self._packages = packages
        self._moves = 0

    def act(self, view: PartyView) -> Action:
        self._moves += 1
        if view.round >= view.rules.max_rounds and view.offer is not None:
            return Accept()
        return Propose(self._packages[(self._moves * 7) % len(self._packages)])


def main() -> None:
    """Run the workload."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("negotiations", type=int)
    args = parser.parse_args()
    scenario = load_scenario("casino")
    packages = [scenario.space.outcome(i) for i in range(scenario.space.size)]
    rules = Rules(max_rounds=20, stagnation_rounds=100)
    setups = scenario.setups()
    names = scenario.party_names
    for _ in range(args.negotiations):
        negotiators = {name: _Scripted(packages) for name in names}
        Session(scenario.space, setups, negotiators, rules).run()


if __name__ == "__main__":
    main()
