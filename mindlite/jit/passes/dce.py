"""dead_node_elimination: drop CNodes whose value no graph output needs (side-effect nodes
always stay; FuncGraphManager.dce), then forget nested graphs nothing references any more
(a branch graph whose Switch was folded away), so dumps and free-variable scans skip them.
"""
from ...ir.manager import reachable_graphs


def run(root, manager):
    changed = manager.dce()
    live = {g.id for g in reachable_graphs(root)}
    for g in manager.graphs():
        kept = [c for c in g.children if c.id in live]
        if len(kept) != len(g.children):
            g.children = kept
            changed = True
    return changed
