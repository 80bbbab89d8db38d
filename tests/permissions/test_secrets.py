"""The default secret places: one list for the file tools, the matcher and the sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from nehanda.fs import config_dir, state_dir
from nehanda.permissions.secrets import home_secrets, is_secret, secret_paths


@pytest.mark.parametrize(
    "relative",
    [
        ".ssh/id_ed25519",
        ".gnupg/private-keys-v1.d/x.key",
        ".aws/credentials",
        ".azure/accessTokens.json",
        ".config/gcloud/credentials.db",
        ".config/gh/hosts.yml",
        ".kube/config",
        ".docker/config.json",
        ".netrc",
        ".git-credentials",
        ".npmrc",
        ".pypirc",
        ".cargo/credentials.toml",
        ".cargo/credentials",
        ".password-store/mail.gpg",
        ".bash_history",
        ".zsh_history",
        ".local/share/fish/fish_history",
        ".mozilla/firefox/x.default/cookies.sqlite",
        ".config/google-chrome/Default/Login Data",
    ],
)
def test_the_default_set_covers_each_secret_place(relative: str) -> None:
    home = Path("/home/someone")
    assert is_secret(home / relative, home_secrets(home))


@pytest.mark.parametrize(
    "relative", [".sshd", "ssh", ".docker/other.json", "projects/app/.env.example", ".config"]
)
def test_neighbours_of_secret_places_are_not_secret(relative: str) -> None:
    home = Path("/home/someone")
    assert not is_secret(home / relative, home_secrets(home))


def test_nehanda_settings_and_state_are_secret(isolated_home: Path) -> None:
    found = secret_paths(isolated_home)
    assert is_secret(config_dir() / "settings.toml", found)
    assert is_secret(state_dir() / "sessions" / "x.jsonl", found)
    assert is_secret(isolated_home / ".ssh" / "id_rsa", found)
