"""Mutation testing of the SSRF guard's tables, which mutmut 3 does not mutate.

mutmut changes code inside functions only; ``_BLOCKED_NETWORKS`` and ``_FALLBACK_CHECKS`` in
:mod:`a2a_app.push.ssrf` are module constants. ``python -m scripts.mutation_tables`` mutates
each entry in place (dropped; its range emptied or its property set to ``None``; its reason
re-spelled), runs tests/test_ssrf.py in this process against each, and prints the count
killed and every survivor (docs/testing.md explains them). The tests read the tables when
they call the guard, so replacing the module's attributes is enough; nothing is written.
"""

from __future__ import annotations

import ipaddress
import sys

import pytest

from a2a_app.push import ssrf

#: A range of one address no test uses: an entry "emptied" without being dropped.
_NOWHERE = {4: ipaddress.ip_network("0.0.0.0/32"), 6: ipaddress.ip_network("::/128")}


def mutants() -> list[tuple[str, tuple, tuple]]:
    """(name, blocked networks, fallback checks) for each mutant."""
    blocked, fallback = ssrf.BLOCKED_NETWORKS, ssrf._FALLBACK_CHECKS
    found = []
    for i, (network, why) in enumerate(blocked):
        before, after = blocked[:i], blocked[i + 1 :]
        found.append((f"drop {network}", before + after, fallback))
        if network != _NOWHERE[network.version]:
            emptied = ((_NOWHERE[network.version], why),)
            found.append((f"empty {network}", before + emptied + after, fallback))
        found.append(
            (f"reason of {network}", before + ((network, f"XX{why}XX"),) + after, fallback)
        )
    for i, (check, why) in enumerate(fallback):
        before, after = fallback[:i], fallback[i + 1 :]
        found.append((f"drop {check}", blocked, before + after))
        found.append((f"{check} -> None", blocked, before + ((None, why),) + after))
        found.append((f"reason of {check}", blocked, before + ((check, f"XX{why}XX"),) + after))
    return found


def main() -> int:
    blocked, fallback = ssrf.BLOCKED_NETWORKS, ssrf._FALLBACK_CHECKS
    arguments = ["-qq", "-x", "--tb=no", "-p", "no:cacheprovider", "tests/test_ssrf.py"]
    if pytest.main(arguments) != 0:
        print("tests/test_ssrf.py fails on the unmutated tables")
        return 1
    survivors = []
    all_mutants = mutants()
    try:
        for name, ssrf.BLOCKED_NETWORKS, ssrf._FALLBACK_CHECKS in all_mutants:
            if pytest.main(arguments) == 0:
                survivors.append(name)
    finally:
        ssrf.BLOCKED_NETWORKS, ssrf._FALLBACK_CHECKS = blocked, fallback
    killed = len(all_mutants) - len(survivors)
    print(f"\nSSRF tables: {len(all_mutants)} mutants, {killed} killed, survived:")
    for name in survivors:
        print(f"  {name}")
    # The same bar as scripts.mutation's modules.
    return 0 if killed >= 0.9 * len(all_mutants) else 1


if __name__ == "__main__":
    sys.exit(main())
