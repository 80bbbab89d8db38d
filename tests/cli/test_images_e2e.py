"""Images through the real CLI: ``nehanda run --image`` against scripted OpenAI-compatible,
Anthropic and Ollama servers (each gets the image in its own format), Read of a picture,
a model that cannot see (a note, and the user told once), and ``--resume``.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from cli_process import nehanda, run_json
from scripted_server import Reply, ScriptedServer, fixture_body

PNG = Path(__file__).parents[1] / "fixtures" / "images" / "red_2x2.png"
B64 = base64.b64encode(PNG.read_bytes()).decode()
DATA_URL = f"data:image/png;base64,{B64}"
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    shutil.copy(PNG, tmp_path / "shot.png")
    # Named as text, but a PNG by its bytes: known by its content.
    shutil.copy(PNG, tmp_path / "diagram.txt")
    return tmp_path


def result(done: Any) -> dict[str, Any]:
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def test_an_openai_compatible_server_gets_the_image_as_a_data_url(
    server: ScriptedServer, workspace: Path
) -> None:
    server.stream("e2e_vllm_answer.sse")
    args = ("What is this?", "--image", "shot.png", "--image", "diagram.txt")
    result(run_json(server.base_url, *args, cwd=workspace))
    user = server.requests[0].body["messages"][-1]
    assert user == {
        "role": "user",
        "content": [
            {"type": "text", "text": "What is this?"},
            {"type": "image_url", "image_url": {"url": DATA_URL}},
            {"type": "image_url", "image_url": {"url": DATA_URL}},
        ],
    }


def test_an_image_mentioned_with_at_goes_with_the_prompt_known_by_its_content(
    server: ScriptedServer, workspace: Path
) -> None:
    server.stream("e2e_vllm_answer.sse")
    result(run_json(server.base_url, "Compare @shot.png and @diagram.txt", cwd=workspace))
    content = server.requests[0].body["messages"][-1]["content"]
    assert [part["type"] for part in content] == ["text", "image_url", "image_url"]
    assert content[1]["image_url"]["url"] == DATA_URL == content[2]["image_url"]["url"]
    assert "The user attached the image @shot.png" in content[0]["text"]
    assert "\x89PNG" not in content[0]["text"]


def test_an_image_outside_the_workspace_is_not_attached_where_nobody_can_be_asked(
    server: ScriptedServer, workspace: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside") / "secret.png"
    shutil.copy(PNG, outside)
    server.stream("e2e_vllm_answer.sse")
    done = run_json(server.base_url, f"Look at @{outside}", cwd=workspace)
    content = server.requests[0].body["messages"][-1]["content"]
    assert isinstance(content, str) or all(part["type"] == "text" for part in content)
    assert f"@{outside} was not attached" in done.stderr


def test_anthropic_gets_a_base64_image_block(server: ScriptedServer, workspace: Path) -> None:
    server.stream("anthropic_answer.sse")
    env = {"ANTHROPIC_BASE_URL": server.root_url, "ANTHROPIC_API_KEY": "sk-ant-test"}
    done = nehanda(
        "run", "What is this?", "--image", "shot.png", "--provider", "anthropic",
        "--model", "claude-sonnet-4-5", "--output", "json", cwd=workspace, env=env,
    )  # fmt: skip
    result(done)
    assert server.requests[0].body["messages"][-1]["content"] == [
        {"type": "text", "text": "What is this?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": B64}},
    ]


def ollama_run(server: ScriptedServer, workspace: Path, show: str, model: str) -> Any:
    server.route("GET", "/api/tags", Reply(200, fixture_body("ollama_tags.json"), JSON))
    server.route("POST", "/api/show", Reply(200, fixture_body(show), JSON))
    server.stream("ollama_chat_answer.ndjson", "application/x-ndjson")
    return nehanda(
        "run", "What is this?", "--image", "shot.png", "--provider", "ollama",
        "--base-url", server.root_url, "--model", model, cwd=workspace,
    )  # fmt: skip


def test_ollama_gets_the_images_list(server: ScriptedServer, workspace: Path) -> None:
    done = ollama_run(server, workspace, "ollama_show_gemma3_vision.json", "gemma3:4b")
    assert done.returncode == 0, done.stderr
    user = server.received("/api/chat")[0].body["messages"][-1]
    assert user["images"] == [B64] and user["content"].startswith("What is this?")
    assert "cannot see images" not in done.stderr


def test_a_model_that_cannot_see_gets_a_note_and_the_user_is_told(
    server: ScriptedServer, workspace: Path
) -> None:
    done = ollama_run(server, workspace, "ollama_show_qwen3.json", "qwen3:8b")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("qwen3:8b cannot see images; it gets a note in their place") == 1
    user = server.received("/api/chat")[0].body["messages"][-1]
    assert "images" not in user
    assert "[an image was attached (shot.png); this model cannot see images]" in user["content"]


def test_read_of_a_picture_shows_it_to_the_model(server: ScriptedServer, workspace: Path) -> None:
    server.stream("e2e_vllm_read_picture.sse").stream("e2e_vllm_answer.sse")
    result(run_json(server.base_url, "What does shot.png show?", cwd=workspace))
    sent = server.requests[1].body["messages"]
    assert sent[-2] == {
        "role": "tool",
        "tool_call_id": "chatcmpl-tool-4b2c",
        "content": "shot.png: PNG image, 73 bytes.",
    }
    assert sent[-1]["content"][1] == {"type": "image_url", "image_url": {"url": DATA_URL}}


def test_a_file_that_is_no_image_is_refused_in_one_line(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "fake.png").write_text("not a picture")
    done = run_json(server.base_url, "What is this?", "--image", "fake.png", cwd=workspace)
    assert done.returncode == 1
    assert "fake.png is not a PNG, JPEG, GIF or WebP image (by its content)" in done.stdout
    assert "Traceback" not in done.stderr and not server.requests


def test_resume_sends_the_image_again_from_beside_the_log(
    server: ScriptedServer, workspace: Path
) -> None:
    server.stream("e2e_vllm_answer.sse").stream("e2e_vllm_answer.sse")
    first = result(run_json(server.base_url, "What is this?", "--image", "shot.png", cwd=workspace))
    sessions = Path(os.environ["XDG_STATE_HOME"]) / "nehanda" / "sessions"
    assert B64[:40] not in (sessions / f"{first['session_id']}.jsonl").read_text()
    assert len(list((sessions / "images").iterdir())) == 1

    (workspace / "shot.png").unlink()
    result(run_json(server.base_url, "And now?", "--resume", first["session_id"], cwd=workspace))
    shown = server.requests[1].body["messages"][1]
    assert shown["content"][1] == {"type": "image_url", "image_url": {"url": DATA_URL}}
