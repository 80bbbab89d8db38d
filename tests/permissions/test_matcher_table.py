"""The audit's attacks on the Bash matcher, as a table: each is refused, asked, or harmless.

Every row gives the mode, the rules and a command, and the verdict ``decide`` must
reach. ``D`` deny, ``A`` ask, ``Y`` allow.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fakes import checked
from nehanda.config.permission_modes import Mode
from nehanda.permissions.decision import PermissionRules, decide
from nehanda.types import ToolUse
from nehanda.verdicts import Allow, Ask, Deny

DENY_RM = {"deny": ["Bash(rm:*)"]}
DENY_PUSH = {"deny": ["Bash(git push:*)"]}
ASK_PUSH = {"allow": ["Bash(git:*)"], "ask": ["Bash(git push:*)"]}
SSH = {"deny": ["Read(~/.ssh/**)"]}

CASES: list[tuple[Mode, dict[str, list[str]], str, str]] = [
    # the command word built so that no rule can read it
    ("yolo", DENY_RM, "/bin/r[m] -f X", "D"),
    ("yolo", DENY_RM, "$'\\x72m' -f X", "D"),
    ("yolo", DENY_RM, "{rm,-f,X}", "D"),
    ("yolo", DENY_RM, "x=rm; $x -f X", "D"),
    ("yolo", DENY_RM, "r''m -f X", "D"),
    ("yolo", DENY_RM, "'r'm -f X", "D"),
    ("yolo", DENY_RM, "\\rm -f X", "D"),
    ("yolo", DENY_RM, "$(echo rm) -f X", "D"),
    ("yolo", DENY_RM, "`echo rm` -f X", "D"),
    ("yolo", DENY_RM, "${x:-rm} -f X", "D"),
    ("yolo", DENY_RM, "/bin/?m -f X", "D"),
    ("yolo", DENY_RM, "eval rm -f X", "D"),
    ("yolo", DENY_RM, "source ./script.sh", "D"),
    ("yolo", DENY_RM, ". ./script.sh", "D"),
    ("default", DENY_RM, "$'\\x72m' -f X", "A"),
    ("accept-edits", DENY_RM, "{rm,-f,X}", "A"),
    # shell syntax before the command
    ("yolo", DENY_RM, "{ rm -f X; }", "D"),
    ("yolo", DENY_RM, "if true; then rm -f X; fi", "D"),
    ("yolo", DENY_RM, "for f in a; do rm -f $f; done", "D"),
    ("yolo", DENY_RM, "while rm -f X; do :; done", "D"),
    ("yolo", DENY_RM, "! rm -f X", "D"),
    ("yolo", DENY_RM, "function f { rm -f X; }; f", "D"),
    ("yolo", DENY_RM, "coproc rm -f X", "D"),
    # a shell reading a script or its input
    ("yolo", DENY_RM, "echo 'rm -f X' | bash", "D"),
    ("yolo", DENY_RM, "bash <<< 'rm -f X'", "D"),
    ("yolo", DENY_RM, "sh script.sh", "D"),
    ("yolo", DENY_RM, "sh -c \"$(printf 'rm -f X')\"", "D"),
    ("yolo", DENY_RM, "git -c alias.x='!rm -f X' x", "D"),
    # wrappers
    ("yolo", DENY_RM, "taskset -c 0 rm -f X", "D"),
    ("yolo", DENY_RM, "chrt -f 10 rm -f X", "D"),
    ("yolo", DENY_RM, "numactl --cpunodebind=0 rm -f X", "D"),
    ("yolo", DENY_RM, "prlimit --nofile=10 rm -f X", "D"),
    ("yolo", DENY_RM, "setpriv --reuid=1000 rm -f X", "D"),
    ("yolo", DENY_RM, "fakeroot rm -f X", "D"),
    ("yolo", DENY_RM, "nsenter -t 1 -m rm -f X", "D"),
    ("yolo", DENY_RM, "firejail --quiet rm -f X", "D"),
    ("yolo", DENY_RM, "stdbuf -oL rm -f X", "D"),
    ("yolo", DENY_RM, "unbuffer rm -f X", "D"),
    ("yolo", DENY_RM, "flock /tmp/l rm -f X", "D"),
    ("yolo", DENY_RM, "flock /tmp/l -c 'rm -f X'", "D"),
    ("yolo", DENY_RM, "time rm -f X", "D"),
    ("yolo", DENY_RM, "watch -n 1 'rm -f X'", "D"),
    ("yolo", DENY_RM, "sudo bash -c 'rm -f X'", "D"),
    ("yolo", DENY_RM, "nice -n 1 ionice -c 2 -n 7 timeout -s KILL 5 rm -f X", "D"),
    ("yolo", DENY_RM, "env -S 'rm -f X'", "D"),
    ("yolo", DENY_RM, "su -c 'rm -f X' root", "D"),
    ("yolo", DENY_RM, "timeout 5 $x -f X", "D"),
    ("yolo", DENY_RM, " ".join(["nice"] * 12) + " rm -f X", "D"),
    # find
    ("yolo", DENY_RM, "find X -delete", "D"),
    ("yolo", DENY_RM, "find . -name '*.o' -exec rm {} +", "D"),
    ("yolo", DENY_RM, "find . -exec $x {} \\;", "D"),
    # git's own options
    ("yolo", DENY_PUSH, "git -C . push", "D"),
    ("yolo", DENY_PUSH, "git -c k=v push", "D"),
    ("yolo", DENY_PUSH, "git --no-pager push", "D"),
    ("yolo", DENY_PUSH, "git --git-dir=.git --work-tree=. push origin main", "D"),
    ("yolo", DENY_PUSH, "git -p --bare --namespace x push", "D"),
    ("yolo", DENY_PUSH, "/usr/bin/git -C . push", "D"),
    ("default", ASK_PUSH, "git --no-pager push", "A"),
    ("default", ASK_PUSH, "git -C . push", "A"),
    ("default", ASK_PUSH, "git -c k=v push", "A"),
    ("default", ASK_PUSH, "git --paginate push", "A"),
    ("default", ASK_PUSH, "git status", "Y"),
    ("default", ASK_PUSH, "git --no-pager log", "Y"),
    ("default", ASK_PUSH, "git -p log", "A"),
    ("default", {"allow": ["Bash(git log:*)"]}, "git --no-pager log -1", "Y"),
    ("default", {"allow": ["Bash(git status:*)"]}, "git -C /elsewhere status", "A"),
    # options that write or run, under prefix rules that name the command
    ("default", {"allow": ["Bash(git log:*)"]}, "git log --output=/tmp/x", "A"),
    ("default", {"allow": ["Bash(git log:*)"]}, "git log --outp=/tmp/x", "A"),
    ("default", {"allow": ["Bash(git diff:*)"]}, "git diff --output=/tmp/x", "A"),
    ("default", {"allow": ["Bash(git diff:*)"]}, "git diff --ext-diff", "A"),
    ("default", {"allow": ["Bash(git format-patch:*)"]}, "git format-patch -o /tmp HEAD~1", "A"),
    ("default", {"allow": ["Bash(git fetch:*)"]}, "git fetch --upload-pack=./x origin", "A"),
    ("default", {"allow": ["Bash(git archive:*)"]}, "git archive --exec=./x HEAD", "A"),
    ("default", {"allow": ["Bash(git:*)"]}, "git -c core.pager=./x log", "A"),
    ("default", {"allow": ["Bash(git grep:*)"]}, "git grep -c x", "A"),
    ("default", {"allow": ["Bash(git clone:*)"]}, "git clone -u ./x https://h/r", "A"),
    ("default", {"allow": ["Bash(git clone:*)"]}, "git clone --template=./t https://h/r", "A"),
    ("default", {"allow": ["Bash(git clone:*)"]}, "git clone --config core.x=y https://h/r", "A"),
    ("default", {"allow": ["Bash(git rebase:*)"]}, "git rebase -x ./x main", "A"),
    ("default", {"allow": ["Bash(git difftool:*)"]}, "git difftool -x ./x", "A"),
    ("yolo", DENY_PUSH, "git rebase --exec 'git push' main", "D"),
    ("default", {"allow": ["Bash(git show:*)"]}, "git show --stat HEAD", "Y"),
    ("default", {"allow": ["Bash(git log:*)"]}, "git log --oneline -p", "Y"),
    ("default", {"allow": ["Bash(sed:*)"]}, "sed 'e touch m' f", "A"),
    ("default", {"allow": ["Bash(sed:*)"]}, "sed -n 'w out' f", "A"),
    ("default", {"allow": ["Bash(sed:*)"]}, "sed '1W out' f", "A"),
    ("default", {"allow": ["Bash(sed:*)"]}, "sed 's/a/touch m/e' f", "A"),
    ("default", {"allow": ["Bash(sed:*)"]}, "sed 's/a/b/w out' f", "A"),
    ("default", {"allow": ["Bash(sed:*)"]}, "sed -i 's/a/b/' f", "A"),
    ("default", {"allow": ["Bash(sed:*)"]}, "sed -ni 's/a/b/p' f", "A"),
    ("default", {"allow": ["Bash(sed:*)"]}, "sed --in-place=.bak 's/a/b/' f", "A"),
    ("default", {"allow": ["Bash(sed:*)"]}, "sed -e p -e 'e id' f", "A"),
    ("default", {"allow": ["Bash(sed:*)"]}, "sed -f script.sed f", "A"),
    ("default", {"allow": ["Bash(sed:*)"]}, "sed -n '/x/p; s/a/b/g' f", "Y"),
    ("default", {"allow": ["Bash(sed:*)"]}, "sed -n '1,5p' f", "Y"),
    ("default", {"allow": ["Bash(awk:*)"]}, "awk 'BEGIN{system(\"touch m\")}'", "A"),
    ("default", {"allow": ["Bash(awk:*)"]}, "awk '{print | \"sh\"}' f", "A"),
    ("default", {"allow": ["Bash(awk:*)"]}, "awk '{print > \"out\"}' f", "A"),
    ("default", {"allow": ["Bash(awk:*)"]}, "awk -F, '{print $1}' f", "Y"),
    ("default", {"allow": ["Bash(gawk:*)"]}, "gawk -f prog.awk f", "A"),
    ("default", {"allow": ["Bash(perl:*)"]}, "perl -e 'unlink q(f)'", "A"),
    ("default", {"allow": ["Bash(perl:*)"]}, "perl -ne 'print' f", "A"),
    ("default", {"allow": ["Bash(ruby:*)"]}, "ruby -e 'File.delete(1)'", "A"),
    ("default", {"allow": ["Bash(python:*)"]}, "python -c 'import os'", "A"),
    ("default", {"allow": ["Bash(python3:*)"]}, "python3 -Sc 'import os'", "A"),
    ("default", {"allow": ["Bash(node:*)"]}, "node -e 'process.exit()'", "A"),
    ("default", {"allow": ["Bash(node:*)"]}, "node --eval 'x'", "A"),
    ("default", {"allow": ["Bash(python -m pytest:*)"]}, "python -m pytest -q", "Y"),
    ("default", {"allow": ["Bash(tar:*)"]}, "tar --to-command='sh -c id' -xf a.tar", "A"),
    ("default", {"allow": ["Bash(tar:*)"]}, "tar --to-c=id -xf a.tar", "A"),
    (
        "default",
        {"allow": ["Bash(tar:*)"]},
        "tar --checkpoint=1 --checkpoint-action=exec=id -cf a .",
        "A",
    ),
    ("default", {"allow": ["Bash(tar:*)"]}, "tar --use-compress-program=./x -xf a", "A"),
    ("default", {"allow": ["Bash(tar:*)"]}, "tar -I ./x -xf a", "A"),
    ("default", {"allow": ["Bash(tar:*)"]}, "tar xIf ./x a", "A"),
    ("default", {"allow": ["Bash(tar:*)"]}, "tar -tzf a.tgz", "Y"),
    ("default", {"allow": ["Bash(sort:*)"]}, "sort -o /tmp/x f", "A"),
    ("default", {"allow": ["Bash(sort:*)"]}, "sort -uo /tmp/x f", "A"),
    ("default", {"allow": ["Bash(sort:*)"]}, "sort --output=/tmp/x f", "A"),
    ("default", {"allow": ["Bash(sort:*)"]}, "sort --compress-program=./x f", "A"),
    ("default", {"allow": ["Bash(sort:*)"]}, "sort -u f", "Y"),
    ("default", {"allow": ["Bash(find:*)"]}, "find . -delete", "A"),
    ("default", {"allow": ["Bash(find:*)"]}, "find . -fprint /tmp/x", "A"),
    ("default", {"allow": ["Bash(find:*)"]}, "find . -name x", "Y"),
    ("default", {"allow": ["Bash(npm run test:*)"]}, "npm run test --script-shell=./evil.sh", "A"),
    ("default", {"allow": ["Bash(npm run test:*)"]}, "npm run test -- --watch", "Y"),
    ("default", {"allow": ["Bash(yarn test:*)"]}, "yarn test --cwd /x", "A"),
    ("default", {"allow": ["Bash(pnpm test:*)"]}, "pnpm test --filter x", "A"),
    # paths that Read and Edit deny rules cover
    ("yolo", SSH, "cat ~/.ssh/id_ed25519", "D"),
    ("yolo", SSH, "cat $HOME/.ssh/id_ed25519", "D"),
    ("yolo", SSH, "cat < ~/.ssh/id_ed25519", "D"),
    ("yolo", SSH, "base64 --input=~/.ssh/id_rsa", "D"),
    ("yolo", SSH, "echo $(cat ~/.ssh/id_rsa)", "D"),
    ("yolo", SSH, "cd ~/.ssh && cat id_rsa", "D"),
    ("yolo", {"deny": ["Edit(~/.bashrc)"]}, "echo x >> ~/.bashrc", "D"),
    ("yolo", SSH, "cat ~/notes.txt", "Y"),
    ("yolo", SSH, "ls ~", "Y"),
]


@pytest.mark.parametrize(
    ("mode", "rules", "command", "verdict"),
    CASES,
    ids=[f"{mode}:{command}" for mode, _, command, _ in CASES],
)
def test_the_matcher_refuses_asks_or_lets_run(
    tmp_path: Path, mode: Mode, rules: dict[str, list[str]], command: str, verdict: str
) -> None:
    decided = decide(
        checked(ToolUse("1", "Bash", {"command": command})),
        PermissionRules.parse(mode, **rules),
        tmp_path,
    )
    expected = {"D": Deny, "A": Ask, "Y": Allow}[verdict]
    assert isinstance(decided, expected), decided


def test_a_glob_naming_a_denied_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("KEY")
    monkeypatch.setenv("HOME", str(home))
    rules = PermissionRules.parse("yolo", deny=["Read(~/.ssh/**)"])
    for command in ("cat ~/.ss*/id_*", "cat ~/.[s]sh/*", "grep -r . ~/.s?h"):
        decided = decide(checked(ToolUse("1", "Bash", {"command": command})), rules, tmp_path)
        assert isinstance(decided, Deny), (command, decided)
    kept = decide(checked(ToolUse("1", "Bash", {"command": "cat ~/*"})), rules, tmp_path)
    assert isinstance(kept, Allow), kept
