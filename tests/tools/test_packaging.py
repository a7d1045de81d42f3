"""The tools as one package: pyproject.toml's entry points name the real
main functions, and the wrappers in tools/ run as the README shows them."""
import importlib
import os
import subprocess
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_pyproject_entry_points_are_the_tools_main_functions():
    with open(os.path.join(ROOT, "tools", "pyproject.toml"), "rb") as f:
        doc = tomllib.load(f)
    scripts = doc["project"]["scripts"]
    assert sorted(scripts) == ["baremark-collect", "baremark-report"]
    for target in scripts.values():
        module, func = target.split(":")
        assert callable(getattr(importlib.import_module(module), func)), target
    assert doc["project"]["requires-python"] == ">=3.11" and sys.version_info >= (3, 11)
    assert doc["tool"]["setuptools"]["packages"] == ["baremark_report"]


def test_wrappers_in_tools_run_from_the_tree():
    for tool, word in (("baremark-report", "--db"), ("baremark-collect", "--token-file")):
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", tool), "--help"], capture_output=True,
                           text=True, cwd="/")
        assert p.returncode == 0 and word in p.stdout, (tool, p.stderr)
