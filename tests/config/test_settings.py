"""Settings layers, provider defaults per type, and errors that name file and line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nehanda.config.settings import (
    Flags,
    load_settings,
    normalize_ollama_host,
    resolve_named_provider,
    user_settings_path,
)
from nehanda.config.trust import trust_folder
from nehanda.errors import ConfigError


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_user_file_lives_under_xdg_config_home(isolated_home: Path) -> None:
    assert user_settings_path() == Path(os.environ["XDG_CONFIG_HOME"]) / "nehanda/settings.toml"


def test_project_file_overrides_user_file_key_by_key(tmp_path: Path) -> None:
    write(
        user_settings_path(),
        'default_provider = "box"\n[providers.box]\ntype = "vllm"\n'
        'base_url = "http://box:8000/v1"\nmodel = "qwen"\n',
    )
    write(tmp_path / ".nehanda/settings.toml", '[providers.box]\ntype = "vllm"\nmodel = "llama"\n')
    settings = load_settings(tmp_path, environ={})
    config = resolve_named_provider(settings, "box", environ={})
    assert (config.base_url, config.model) == ("http://box:8000/v1", "llama")


def test_environment_and_flags_win_over_files(tmp_path: Path) -> None:
    write(tmp_path / ".nehanda/settings.toml", 'default_provider = "vllm"\nmax_turns = 7\n')
    env = {"NEHANDA_PROVIDER": "lmstudio", "NEHANDA_MODEL": "env-model"}
    settings = load_settings(tmp_path, environ=env)
    assert (settings.default_provider, settings.model, settings.max_turns) == (
        "lmstudio",
        "env-model",
        7,
    )
    flagged = load_settings(tmp_path, Flags(provider="ollama", model="m", max_turns=3), env)
    assert (flagged.default_provider, flagged.model, flagged.max_turns) == ("ollama", "m", 3)


@pytest.mark.parametrize(
    ("provider_type", "environ", "base_url", "key_env"),
    [
        ("openai", {}, "https://api.openai.com/v1", "OPENAI_API_KEY"),
        ("openai", {"OPENAI_BASE_URL": "http://gw/v1/"}, "http://gw/v1", "OPENAI_API_KEY"),
        ("lmstudio", {}, "http://127.0.0.1:1234/v1", None),
        ("vllm", {}, "http://127.0.0.1:8000/v1", None),
        ("ollama", {}, "http://127.0.0.1:11434", None),
        ("ollama", {"OLLAMA_HOST": "gpu:9999"}, "http://gpu:9999", None),
        ("anthropic", {}, "https://api.anthropic.com", "ANTHROPIC_API_KEY"),
        (
            "nehanda",
            {"NEHANDA_BASE_URL": "https://cloud/v1"},
            "https://cloud/v1",
            "NEHANDA_API_KEY",
        ),
    ],
)
def test_provider_type_defaults_without_settings_file(
    tmp_path: Path, provider_type: str, environ: dict[str, str], base_url: str, key_env: str | None
) -> None:
    config = resolve_named_provider(load_settings(tmp_path, environ={}), provider_type, environ)
    assert (config.type, config.base_url, config.api_key_env) == (provider_type, base_url, key_env)


def test_nehanda_without_base_url_says_how_to_set_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="NEHANDA_BASE_URL"):
        resolve_named_provider(load_settings(tmp_path, environ={}), "nehanda", {})


def test_unknown_provider_lists_types_and_configured_names(tmp_path: Path) -> None:
    write(tmp_path / ".nehanda/settings.toml", '[providers.box]\ntype = "vllm"\n')
    with pytest.raises(ConfigError, match=r"unknown provider 'bx'.*vllm.*Configured: box"):
        resolve_named_provider(load_settings(tmp_path, environ={}), "bx", {})


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ('default_provider = "x"\nmax_turns = = 3\n', 2, "invalid TOML"),
        ('[providers.a]\ntype = "vllm"\nmodle = "x"\n', 3, "unknown setting 'providers.a.modle'"),
        ('[providers.a]\n\ntype = "gpt"\n', 3, "must be one of openai, lmstudio"),
        ("max_turns = 0\n", 1, "max_turns"),
        ('[providers.a]\ntype = "vllm"\nforce_manual_tools = "yes please"\n', 3, "bool"),
        ('max_turns = 5\n[providers]\nb = { type = "vllm" }\na = { type = "gpt" }\n', 4, "one of"),
        ('max_turns = 5\nproviders.a.type = "vllm"\nproviders.a.modle = "x"\n', 3, "unknown"),
        ('[providers]\na.type = "vllm"\n\na.max_retries = "many"\n', 4, "max_retries"),
        ('[providers.a]\ntype = "vllm"\n[providers.b]\ntype = "gpt"\n', 4, "one of"),
    ],
)
def test_malformed_file_names_file_and_line(
    tmp_path: Path, text: str, line: int, says: str
) -> None:
    path = write(tmp_path / ".nehanda/settings.toml", text)
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path, environ={})
    assert f"{path}:{line}:" in str(caught.value)
    assert says in str(caught.value)


def test_api_key_read_from_named_variable_never_stored(tmp_path: Path) -> None:
    write(
        tmp_path / ".nehanda/settings.toml",
        '[providers.gw]\ntype = "openai"\nbase_url = "http://gw/v1"\napi_key_env = "GW_KEY"\n',
    )
    trust_folder(tmp_path)  # an untrusted project may not name a provider's key
    config = resolve_named_provider(load_settings(tmp_path, environ={}), "gw", {})
    assert config.api_key({"GW_KEY": "sk-secret"}) == "sk-secret"
    assert "sk-secret" not in repr(config)


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("", "http://127.0.0.1:11434"),
        ("  ", "http://127.0.0.1:11434"),
        ("gpu-box", "http://gpu-box:11434"),
        (" gpu-box:8080 ", "http://gpu-box:8080"),
        ("gpu-box:8080", "http://gpu-box:8080"),
        ("https://ollama.example.com", "https://ollama.example.com:443"),
        ("https://ollama.example.com:8443", "https://ollama.example.com:8443"),
        ("http://example.com", "http://example.com:80"),
        ("http://example.com/ollama", "http://example.com:80/ollama"),
        ("http://example.com/ollama/", "http://example.com:80/ollama"),
        ("http://box:80/", "http://box:80"),
        ("::1", "http://[::1]:11434"),
        ("[::1]", "http://[::1]:11434"),
        ("[::1]:9999", "http://[::1]:9999"),
        ("fe80:0:0::1", "http://[fe80::1]:11434"),
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("0.0.0.0:1234", "http://127.0.0.1:1234"),
        ("[::]:1234", "http://[::1]:1234"),
        (":1234", "http://127.0.0.1:1234"),
        ("gpu-box:99999", "http://gpu-box:11434"),
        ("gpu-box:port", "http://gpu-box:11434"),
        ("'gpu-box:8080'", "http://gpu-box:8080"),
    ],
)
def test_ollama_host_forms(host: str, url: str) -> None:
    assert normalize_ollama_host(host) == url


def test_context_window_and_auto_compact_are_read_and_checked(tmp_path: Path) -> None:
    write(
        tmp_path / ".nehanda/settings.toml",
        'auto_compact = false\n[providers.box]\ntype = "vllm"\ncontext_window = 16384\n',
    )
    settings = load_settings(tmp_path, environ={})
    assert settings.auto_compact is False
    assert resolve_named_provider(settings, "box", environ={}).context_window == 16384
    assert load_settings(tmp_path / "elsewhere", environ={}).auto_compact is True
    path = write(
        tmp_path / ".nehanda/settings.toml", '[providers.box]\ntype = "vllm"\ncontext_window = 12\n'
    )
    with pytest.raises(ConfigError, match=f"{path}:3:.*context_window"):
        load_settings(tmp_path, environ={})
