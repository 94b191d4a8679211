"""The version has one source: the Cargo workspace's, which the wheel and the module carry."""

from __future__ import annotations

import importlib.metadata
import re

import pytest

import rserini
from support import REPO


def workspace_version() -> str:
    text = (REPO / "Cargo.toml").read_text(encoding="utf-8")
    section = text.split("[workspace.package]", 1)[1].split("\n[", 1)[0]
    match = re.search(r'^version\s*=\s*"([^"]+)"', section, re.MULTILINE)
    assert match, "no version in [workspace.package]"
    return match.group(1)


def test_module_version_is_the_cargo_workspace_version() -> None:
    assert rserini.__version__ == workspace_version()


def test_installed_distribution_has_the_same_version() -> None:
    try:
        installed = importlib.metadata.version("rserini")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("rserini is imported from the source tree, not installed")
    assert installed == rserini.__version__


def test_changelog_has_an_entry_for_the_version() -> None:
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{workspace_version()}]" in changelog
