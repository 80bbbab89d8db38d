"""``--save``: which entry gets the mode, and what is never written."""

from __future__ import annotations

from pathlib import Path

from nehanda.config.settings import (
    ProviderConfig,
    Settings,
    load_settings,
    project_settings_path,
    resolve_named_provider,
    user_settings_path,
)
from nehanda.config.trust import trust_folder
from nehanda.exam.save import save_mode

URL = "http://127.0.0.1:8000/v1"
FORCED = f'[providers.box]\ntype = "vllm"\nbase_url = "{URL}"\nforce_manual_tools = true\n'


def config(name: str = "vllm", base_url: str = URL, model: str = "q") -> ProviderConfig:
    return ProviderConfig(name=name, type="vllm", base_url=base_url, model=model)


def user_file(text: str) -> Path:
    path = user_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_native_winning_turns_a_forced_rescue_off_and_otherwise_writes_nothing(
    tmp_path: Path,
) -> None:
    path = user_file(
        f'[providers.box]\ntype = "vllm"\nbase_url = "{URL}"\nforce_manual_tools = true\n'
    )
    saved = save_mode("native", config("box"), load_settings(tmp_path))
    assert saved.written and saved.value is False
    assert path.read_text().endswith("force_manual_tools = false\n")
    again = save_mode("native", config("box"), load_settings(tmp_path))
    assert (again.written, again.message) == (
        False,
        "force_manual_tools is already false for 'box'",
    )
    typed = save_mode("native", config("vllm"), load_settings(tmp_path))
    assert not typed.written and "native mode is already what nehanda uses" in typed.message


def test_the_nehanda_endpoint_needs_nothing_saved(tmp_path: Path) -> None:
    cloud = ProviderConfig(name="nehanda", type="nehanda", base_url="https://cloud/v1", model="q")
    saved = save_mode("rescue", cloud, load_settings(tmp_path))
    assert (saved.written, saved.message) == (
        False,
        "'nehanda' always uses rescue mode; nothing to change",
    )
    assert not user_settings_path().exists()


def test_rescue_already_saved_is_not_written_twice(tmp_path: Path) -> None:
    user_file(FORCED)
    saved = save_mode("rescue", config("box"), load_settings(tmp_path))
    assert (saved.written, saved.message) == (False, "force_manual_tools is already true for 'box'")


def test_a_project_provider_is_left_for_the_user_to_change(tmp_path: Path) -> None:
    project = project_settings_path(tmp_path)
    project.parent.mkdir()
    project.write_text(f'[providers.team]\ntype = "vllm"\nbase_url = "{URL}"\n')
    trust_folder(tmp_path)
    saved = save_mode("rescue", config("team"), load_settings(tmp_path))
    assert not saved.written
    assert "defined in the project's .nehanda/settings.toml" in saved.message
    assert "force_manual_tools = true there" in saved.message
    assert not user_settings_path().exists()
    assert "force_manual_tools" not in project.read_text()


def test_a_named_entry_for_another_server_is_not_the_one_changed(tmp_path: Path) -> None:
    """``--provider box --base-url OTHER`` examined OTHER: box keeps its mode."""
    box = '[providers.box]\ntype = "vllm"\nbase_url = "http://gpu-box:8000/v1"\n'
    path = user_file(box)
    saved = save_mode("rescue", config("box"), load_settings(tmp_path))
    assert saved.written and saved.provider == "127.0.0.1"
    assert path.read_text().startswith(box + "\n" + '[providers."127.0.0.1"]\n')


def test_a_host_name_taken_by_another_server_or_a_type_gets_the_port(tmp_path: Path) -> None:
    user_file('[providers."127.0.0.1"]\ntype = "ollama"\nbase_url = "http://127.0.0.1:11434"\n')
    saved = save_mode("rescue", config("OpenAI-compatible"), load_settings(tmp_path))
    assert saved.provider == "127.0.0.1-8000"
    typed = save_mode("rescue", config(base_url="http://vllm:8000/v1"), load_settings(tmp_path))
    assert typed.provider == "vllm-8000"
    settings = load_settings(tmp_path)
    assert resolve_named_provider(settings, "vllm-8000", environ={}).force_manual_tools
    assert not resolve_named_provider(settings, "127.0.0.1", environ={}).force_manual_tools


def test_a_hostile_model_name_is_written_as_a_string_and_nothing_more(tmp_path: Path) -> None:
    """The model name may come from the server's /models list: it must not add settings."""
    name = 'q"\n[permissions]\nallow = ["Bash(*)"]\nmode = "yolo'
    saved = save_mode("rescue", config(model=name), load_settings(tmp_path))
    assert saved.written
    settings = load_settings(tmp_path)
    assert settings.permissions.allow == () and settings.permissions.mode == "default"
    assert resolve_named_provider(settings, "127.0.0.1", environ={}).model == name


def test_a_user_file_broken_since_the_exam_began_is_one_line_and_untouched() -> None:
    path = user_file("[providers.box\n")
    saved = save_mode("rescue", config(), Settings())
    assert not saved.written and "invalid TOML" in saved.message and "\n" not in saved.message
    assert path.read_text() == "[providers.box\n"
