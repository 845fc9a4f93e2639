"""Shared fixtures for the governance tests."""

from __future__ import annotations

import pytest

from parley.governance.config import DomainConfig, load_config


@pytest.fixture(scope="session")
def staffing() -> DomainConfig:
    return load_config("staffing")


@pytest.fixture(scope="session")
def procurement() -> DomainConfig:
    return load_config("procurement")


@pytest.fixture(scope="session")
def leasing() -> DomainConfig:
    return load_config("leasing")
