"""The workspace's files kept current between Bash commands: one walk, then inotify.

``Tracked.refresh`` answers what changed since it was last asked, as ``scan.scan``
would see it. The first call walks the whole workspace, watching every folder it
lists (before listing it, so that nothing between the two goes unseen); later calls
list again only the folders inotify says something happened in. A folder that is new,
replaced (another inode under its name) or under a changed ``.gitignore`` is walked
whole; one that went away takes its files with it. Ignored folders are watched too,
for their own entry (listed, never entered, in their parent). Without inotify, or when
it lost events (``inotify.Lost``), every refresh is a whole walk compared file by file,
as before.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from nehanda.checkpoints.inotify import Inotify, Lost
from nehanda.checkpoints.scan import IGNORED_FOLDER, MAX_ENTRIES, Seen, TooLarge, list_folder, scan
from nehanda.tools.ignore import IgnoreChain, IgnoreFile


class Delta(NamedTuple):
    changed: dict[str, Seen]  # new or different, by relative path
    gone: list[str]


class _Folder(NamedTuple):
    path: str
    above: IgnoreChain  # the .gitignore files of the folders above it
    own: IgnoreFile | None
    files: frozenset[str]
    folders: dict[str, int]  # the folders walked into, by relative path, to their inode


class Tracked:
    def __init__(self, workspace: Path, hidden: Callable[[Path], bool]) -> None:
        self.workspace, self.hidden = workspace, hidden
        self.files: dict[str, Seen] = {}
        self._folders: dict[str, _Folder] = {}
        self._relist: dict[int, str] = {}  # a watch to the folder its events make listed again
        self._walked: dict[int, str] = {}  # a walked folder's own watch to that folder
        self._inotify: Inotify | None = None
        self._started = False
        self._was: dict[str, Seen | None] = {}  # what a refresh changed, as it was before

    def refresh(self) -> Delta:
        """What changed since the last refresh (the first: every file)."""
        if self._started and self._inotify is not None:
            try:
                return self._follow(self._inotify)
            except Lost:
                self._stop_watching()
        if not self._started:
            self._started = True
            try:
                self._inotify = Inotify()
                return self._walk_all(self._inotify)
            except (OSError, Lost):
                self._stop_watching()
        return self._compare(scan(self.workspace, self.hidden))

    def close(self) -> None:
        self._stop_watching()

    def _stop_watching(self) -> None:
        if self._inotify is not None:
            self._inotify.close()
        self._inotify = None
        self._folders.clear()
        self._relist.clear()
        self._walked.clear()

    def _compare(self, seen: dict[str, Seen]) -> Delta:
        last = self.files
        changed = {rel: s for rel, s in seen.items() if last.get(rel) != s}
        gone = [rel for rel in last if rel not in seen]
        self.files = seen
        return Delta(changed, gone)

    def _walk_all(self, watcher: Inotify) -> Delta:
        self.files, self._was = {}, {}
        self._walk(watcher, str(self.workspace), "", ())
        return Delta(dict(self.files), [])

    def _walk(self, watcher: Inotify, path: str, rel: str, above: IgnoreChain) -> None:
        stack = [(path, rel, above)]
        while stack:
            path, rel, above = stack.pop()
            wd = watcher.watch(path)
            self._relist[wd] = self._walked[wd] = rel
            listing = list_folder(path, rel, above, self.hidden)
            self._put(listing.files)
            if len(self.files) > MAX_ENTRIES:
                raise TooLarge(self.workspace)
            self._watch_ignored(watcher, listing.files, rel)
            folders = {name: inode for _, name, inode in listing.folders}
            files = frozenset(listing.files)
            self._folders[rel] = _Folder(path, above, listing.own, files, folders)
            stack += [(sub, name, listing.chain) for sub, name, _ in listing.folders]

    def _watch_ignored(self, watcher: Inotify, files: dict[str, Seen], rel: str) -> None:
        for name, seen in files.items():
            if seen.kept == IGNORED_FOLDER:
                self._relist[watcher.watch(str(self.workspace / name))] = rel

    def _follow(self, watcher: Inotify) -> Delta:
        touched, dropped = watcher.changed()
        dirty = {self._relist[wd] for wd in touched if wd in self._relist}
        self._was = {}
        for wd in dropped:
            folder = self._walked.pop(wd, None)
            if folder is not None and folder in self._folders:
                self._forget(folder)
            if wd in self._relist:
                dirty.add(self._relist.pop(wd))
        for rel in sorted(dirty, key=len):  # a folder before those below it
            if rel in self._folders:  # not taken away with a folder above it
                self._relist_folder(watcher, rel)
        changed: dict[str, Seen] = {}
        gone: list[str] = []
        for rel, was in self._was.items():
            now = self.files.get(rel)
            if now is None:
                gone += [rel] if was is not None else []
            elif now != was:
                changed[rel] = now
        return Delta(changed, gone)

    def _below(self, rel: str) -> list[str]:
        return [name for name in self._folders if name.startswith(rel)]

    def _put(self, files: dict[str, Seen]) -> None:
        for name, seen in files.items():
            self._was.setdefault(name, self.files.get(name))
            self.files[name] = seen

    def _take(self, name: str) -> None:
        if name in self.files:
            self._was.setdefault(name, self.files.pop(name))

    def _relist_folder(self, watcher: Inotify, rel: str) -> None:
        old = self._folders[rel]
        listing = list_folder(old.path, rel, old.above, self.hidden)
        if listing.own != old.own:
            self._drop(rel)
            self._walk(watcher, old.path, rel, old.above)
            return
        for name in old.files - listing.files.keys():
            self._take(name)
        self._put(listing.files)
        self._watch_ignored(watcher, listing.files, rel)
        folders = {name: inode for _, name, inode in listing.folders}
        for name, inode in old.folders.items():
            if folders.get(name) != inode:
                self._drop(name)
        for sub, name, inode in listing.folders:
            if old.folders.get(name) != inode:
                self._walk(watcher, sub, name, listing.chain)
        if len(self.files) > MAX_ENTRIES:
            raise TooLarge(self.workspace)
        self._folders[rel] = old._replace(files=frozenset(listing.files), folders=folders)

    def _forget(self, rel: str) -> None:
        """A folder deleted: a folder its parent lists under its name is walked anew,
        even one the file system gave the same inode number."""
        self._drop(rel)
        parent = rel[: rel.rstrip("/").rfind("/") + 1]
        if parent in self._folders:
            above = self._folders[parent]
            folders = {name: inode for name, inode in above.folders.items() if name != rel}
            self._folders[parent] = above._replace(folders=folders)

    def _drop(self, rel: str) -> None:
        """A folder and all below it, gone from the files (its watches stay: a watch
        given again to a folder moved elsewhere in the workspace is the same one)."""
        for inner in self._below(rel):
            for name in self._folders.pop(inner).files:
                self._take(name)
