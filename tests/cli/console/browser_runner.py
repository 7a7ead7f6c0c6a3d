"""Runs a browser script of tests/cli/console (walk.mjs, override.mjs, ...)
in Debian's Chromium through playwright-core, which npm installs into
NODE_DIR (package-lock.json) on first use. Returns the CompletedProcess;
the script prints one JSON line of what it saw.
"""
import os
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def run_node(node_dir, script, *args, timeout=180):
    node_modules = os.path.join(node_dir, "node_modules", "playwright-core")
    if not os.path.isdir(node_modules):
        os.makedirs(node_dir, exist_ok=True)
        for f in ("package.json", "package-lock.json"):
            shutil.copy(os.path.join(HERE, f), node_dir)
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=node_dir,
                       check=True, capture_output=True, timeout=300)
    env = dict(os.environ, NODE_PATH=os.path.join(node_dir, "node_modules"))
    # The script imports from node_dir: run a copy there (ESM ignores
    # NODE_PATH), with the module the scripts share.
    for f in (script, "browser.mjs"):
        shutil.copy(os.path.join(HERE, f), node_dir)
    return subprocess.run(["node", os.path.join(node_dir, script), *args],
                          capture_output=True, text=True, timeout=timeout, env=env)
